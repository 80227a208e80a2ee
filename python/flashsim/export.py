"""Results tables as Parquet: the converter behind `flashsim results export
--format parquet`.

The tables (summary, timeseries, requests, components, component_texts, component_series) are defined once, in
C++ (sim/results/results_export.h), which writes them as CSV with their
column types in a manifest; this reads that CSV back with exactly those types
(integers exact, doubles to the bit, text kept as written, an empty number a
null) and writes one Parquet file per table, each to a temp file beside its
target and renamed. It needs only pandas and pyarrow, so the flashsim binary
carries this file and runs it standalone:

    python3 -s export.py --manifest TABLES.json --out DIR

Exit status 3 (the message says what to install) when pandas or pyarrow
cannot be imported, 2 on a bad manifest."""
import json
import os
import sys
import tempfile

EXIT_MISSING_PACKAGE = 3
EXIT_BAD_INPUT = 2


def _missing(package, error):
    python = sys.executable or "python3"
    return (f"flashsim results export --format parquet: {package} cannot be imported by '{python}' ({error}); "
            f"install it there with `{python} -m pip install {package}` (tools/setup.sh installs the pinned "
            f"version of tools/python-requirements.txt into the project's .venv), or set FLASHSIM_PYTHON "
            f"to a Python that has it; --format csv needs no Python")


def _column(values, kind):
    """One column's CSV text (a list of str) as the manifest's type says."""
    import numpy as np
    import pandas as pd
    if kind == "text":
        return pd.array(values, dtype=object)
    if kind == "f64":  # float(): correctly rounded, reads "nan", "inf", "-inf"
        return np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)
    dtype = {"u64": np.uint64, "i64": np.int64}[kind]
    if "" in values:  # a key some runs lack: nullable integers
        return pd.array([int(v) if v != "" else None for v in values], dtype="UInt64" if kind == "u64" else "Int64")
    return np.array([int(v) for v in values], dtype=dtype)


def read_table(path, columns):
    """The CSV table at `path` as a DataFrame with the manifest's column types
    (`columns`: [{"name", "type"}], types u64, i64, f64, text)."""
    import pandas as pd
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False)
    names = [c["name"] for c in columns]
    if list(raw.columns) != names:
        raise ValueError(f"{path}: columns {list(raw.columns)}, the manifest says {names}")
    return pd.DataFrame({c["name"]: _column(raw[c["name"]].tolist(), c["type"]) for c in columns})


def write_parquet(df, target):
    """df as Parquet at `target`, through a temp file beside it (removed on failure)."""
    folder, name = os.path.split(os.path.abspath(target))
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f"{name}.tmp-{os.getpid()}-")
    os.close(fd)
    try:
        df.to_parquet(temp, engine="pyarrow", index=False)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, target)
    except BaseException:
        os.unlink(temp)
        raise


def convert(manifest, out):
    """Every table of `manifest` (export_manifest_json's document) as
    OUT/<name>.parquet; returns their paths."""
    os.makedirs(out, exist_ok=True)
    written = []
    for table in manifest["tables"]:
        df = read_table(table["file"], table["columns"])
        if len(df) != table["rows"]:
            raise ValueError(f"{table['file']}: {len(df)} rows, the manifest says {table['rows']}")
        target = os.path.join(out, table["name"] + ".parquet")
        write_parquet(df, target)
        written.append(target)
    return written


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="export.py", description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", required=True, help="the tables (sim/results/results_export.h)")
    parser.add_argument("--out", required=True, help="the folder for the .parquet files")
    args = parser.parse_args(argv)
    for package in ("pandas", "pyarrow"):
        try:
            __import__(package)
        except ImportError as e:
            print(_missing(package, e), file=sys.stderr)
            return EXIT_MISSING_PACKAGE
    try:
        with open(args.manifest, encoding="utf-8") as f:
            manifest = json.load(f)
        manifest["tables"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"export.py: bad manifest {args.manifest}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        convert(manifest, args.out)
    except OSError as e:
        print(f"flashsim results export: cannot write into '{args.out}': {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

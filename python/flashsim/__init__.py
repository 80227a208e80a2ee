"""flashsim from Python: run scenarios, get results as pandas DataFrames,
read and write traces, and write eviction policies in Python.

    import flashsim
    res = flashsim.run("builtin:default", cache__capacity="10%")
    res.summary[["policy_label", "hit_ratio_by_access", "stall_ns"]]

The simulator runs in-process (the native module flashsim._core, built
from the same C++ as the `flashsim` command); results are the command's
results.h5 and summary.json, read back under the one metric schema
(docs/scenarios.md, "Results")."""
import json
import os
import shutil
import tempfile
import weakref

from . import _core

__all__ = ["run", "run_trace", "replay", "Results", "read_trace", "write_trace", "policies", "prefetchers", "register_policy",
           "register_prefetcher", "InputError", "Error"]

InputError = _core.InputError
Error = _core.Error

_OP = {0: "r", 1: "w"}
_PHASE = {0: "unknown", 1: "prefill", 2: "decode"}


def _override_text(key, value):
    """A --set override: the value as YAML (JSON is YAML)."""
    text = value if isinstance(value, str) else json.dumps(value)
    return f"{key}={text}"


def run(scenario="builtin:default", overrides=None, out=None, jobs=0, **kwargs):
    """Runs a scenario and returns its Results.

    scenario: a YAML file path, "builtin:default" (the embedded default
    scenario), or a dict (the scenario itself). overrides: {"cache.capacity":
    "10%", ...} applied as `flashsim run --set`; keyword arguments do the same
    with "__" for "." (cache__capacity="10%"). out: the results folder
    (default: a temporary folder, removed when the returned Results object
    is garbage-collected; pass out= to keep the files). Raises
    flashsim.InputError on bad input."""
    sets = [_override_text(k, v) for k, v in (overrides or {}).items()]
    sets += [_override_text(k.replace("__", "."), v) for k, v in kwargs.items()]
    if isinstance(scenario, dict):
        return _run_into(out, lambda folder: _core.run(json.dumps(scenario), True, sets, folder, jobs))
    scenario = os.fspath(scenario)
    return _run_into(out, lambda folder: _core.run(scenario, False, sets, folder, jobs))


def _run_into(out, run_there):
    """run_there(folder) into `out`, or into a temporary folder owned by the
    returned Results (removed with it, and at once when the run fails)."""
    if out:
        run_there(os.fspath(out))
        return Results(out)
    folder = tempfile.mkdtemp(prefix="flashsim-")
    try:
        run_there(folder)
        return Results(folder, _temporary=True)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def run_trace(trace, policies=("lru",), capacity="10%", engine="cache_only", hardware="h200", format="",
              out=None, jobs=0):
    """Runs one trace without a scenario, as `flashsim run --trace TRACE
    --policies ... --capacity ...` does: every policy at every capacity (more
    than one capacity is a sweep; "10%" of the trace's footprint or "2GiB").
    engine "cache_only" (hit ratios) or "event" (time, on the hardware
    profile). Returns Results; e.g. a miss-ratio curve:

        res = flashsim.run_trace("t.csv", ["lru", "arc"], ["1%", "5%", "10%"])
        res.summary.pivot(index="capacity_bytes", columns="policy", values="hit_ratio_by_access").plot()"""
    def as_list(v, what):
        items = v.split(",") if isinstance(v, str) else list(v) if isinstance(v, (list, tuple)) else None
        if items is None or not all(isinstance(i, str) for i in items):
            raise InputError(f"run_trace: {what}: expected a str (comma-separated) or a list of str, not {v!r}")
        return [i.strip() for i in items]
    policies, capacity = as_list(policies, "policies"), as_list(capacity, "capacity")
    text = _core.quick_scenario_yaml(os.path.abspath(os.fspath(trace)), format, policies, capacity, engine, hardware)
    return _run_into(out, lambda folder: _core.run(text, True, [], folder, jobs))


# The run entries' component lists (summary.json runs[]), each a table of its own.
_COMPONENT_LISTS = ("components", "component_texts", "component_series")


class Results:
    """A results folder of `flashsim run` (or of flashsim.run)."""

    def __init__(self, path, _temporary=False):
        self.path = os.fspath(path)
        if _temporary:  # run(out=None): the folder lives as long as this object
            weakref.finalize(self, shutil.rmtree, self.path, True)
        summary = os.path.join(self.path, "summary.json")
        try:
            with open(summary, encoding="utf-8") as f:
                self._doc = json.load(f)
        except OSError as e:
            raise InputError(f"{summary}: cannot read it ({e.strerror}); is {self.path} a flashsim results folder?")
        except (ValueError, RecursionError) as e:  # RecursionError: nesting deeper than json's parser goes
            raise InputError(f"{summary}: not JSON ({e})")
        runs = self._doc.get("runs") if isinstance(self._doc, dict) else None
        if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
            raise InputError(f"{summary}: key 'runs' is not a list of runs; not a flashsim results file")

    def _run(self, run):
        """Run number `run` checked against the folder's runs."""
        runs = self._doc["runs"]
        if isinstance(run, bool) or not isinstance(run, int) or not 0 <= run < len(runs):
            raise InputError(f"{self.path}: no run {run!r} (runs 0..{len(runs) - 1})")
        return runs[run]

    @property
    def summary(self):
        """One row per run, one column per metric of the schema (text as str);
        params as a dict column, the component lists left out (see components(),
        component_texts(), component_series())."""
        import pandas as pd
        rows = [{k: v for k, v in r.items() if k not in _COMPONENT_LISTS} for r in self._doc["runs"]]
        return pd.DataFrame(rows)

    def components(self, run):
        """What each component counted in run `run` (component, name, unit, value)."""
        import pandas as pd
        return pd.DataFrame(self._run(run).get("components", []))

    def _entries(self, run, key, fields):
        """Run `run`'s list `key` of objects, each with the str `fields`; InputError naming the first that is not."""
        entries = self._run(run).get(key, [])
        where = f"{self.path}/summary.json: runs[{run}].{key}"
        if not isinstance(entries, list):
            raise InputError(f"{where} is not a list")
        for k, e in enumerate(entries):
            if not isinstance(e, dict):
                raise InputError(f"{where}[{k}] is not an object")
            for f in fields:
                if not isinstance(e.get(f), str):
                    raise InputError(f"{where}[{k}].{f} is {e.get(f)!r}, not a text")
        return entries

    def component_texts(self, run):
        """The facts run `run`'s components report as text (component, name, text);
        empty when it has none."""
        import pandas as pd
        rows = self._entries(run, "component_texts", ("component", "name", "text"))
        return pd.DataFrame([{k: e[k] for k in ("component", "name", "text")} for e in rows],
                            columns=["component", "name", "text"])

    def component_series(self, run):
        """Run `run`'s component series in long form, one row per value
        (component, name, unit, index, value); empty when it has none."""
        import pandas as pd
        series = self._entries(run, "component_series", ("component", "name", "unit"))
        rows = []
        for k, s in enumerate(series):
            values = s.get("values")
            if not isinstance(values, list) or not all(
                    v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in values):
                raise InputError(f"{self.path}/summary.json: runs[{run}].component_series[{k}].values is not a list "
                                 f"of numbers")
            rows += [{"component": s["component"], "name": s["name"], "unit": s["unit"], "index": i,
                      "value": float("nan") if v is None else float(v)} for i, v in enumerate(values)]
        return pd.DataFrame(rows, columns=["component", "name", "unit", "index", "value"])

    def _group(self, run, sub=None):
        """Run `run`'s group (or its subgroup `sub`) of results.h5 as a DataFrame;
        None when the group is absent."""
        import h5py
        import pandas as pd
        self._run(run)
        group = _core.timeseries_group_name(run, len(self._doc["runs"]))
        name = f"timeseries/{group}" + (f"/{sub}" if sub else "")
        h5 = os.path.join(self.path, "results.h5")
        try:
            with h5py.File(h5, "r") as f:
                if name not in f:
                    return None
                g = f[name]
                data = {k: g[k][()] for k in g if isinstance(g[k], h5py.Dataset)}
        except (OSError, RuntimeError, KeyError, ValueError) as e:
            raise InputError(f"{h5}: cannot read {name} ({e})")
        df = pd.DataFrame(data)
        for col in df.columns:  # text as str, not bytes
            if df[col].dtype == object:
                df[col] = df[col].map(lambda v: v.decode() if isinstance(v, bytes) else v)
        return df

    def timeseries(self, run):
        """Run `run`'s per-window time series (start_ns, hits, stall_ns, ...).
        Raises InputError when results.h5 lacks it (cache-only runs keep none)."""
        df = self._group(run)
        if df is None:
            raise InputError(f"{self.path}/results.h5 has no time series of run {run}")
        return df

    def requests(self, run):
        """Run `run`'s serving requests (ttft_ns, tpot_ns, ...); empty for traces without requests."""
        import pandas as pd
        df = self._group(run, "requests")
        return pd.DataFrame() if df is None else df

    def export(self, out, format="csv"):
        """Writes the six tables (summary, timeseries, requests, components,
        component_texts, component_series;
        the tables `flashsim results export` writes, column for column) into
        the folder `out` as CSV or Parquet (pyarrow), each file written to a
        temp file and renamed. Returns the written paths."""
        from . import export as _export
        if format not in ("csv", "parquet"):
            raise InputError(f"Results.export: format '{format}': expected csv or parquet")
        out = os.fspath(out)
        try:
            os.makedirs(out or ".", exist_ok=True)
            if format == "csv":
                manifest = json.loads(_core.export_csv(self.path, out))
                return [t["file"] for t in manifest["tables"]]
            with tempfile.TemporaryDirectory(prefix="flashsim-export-") as tmp:
                manifest = json.loads(_core.export_csv(self.path, tmp))
                return _export.convert(manifest, out)
        except OSError as e:
            raise Error(f"Results.export: cannot write into '{out}': {e.strerror or e}")

    @property
    def replay(self):
        """A GPU replay's own statistics, one row per run: its `replay` and
        `device` components (numbers and texts: decisions,
        decision_ns_mean/p50/p99/max = host policy cost, host_issue_seconds,
        checksum_mismatches, allocator, access_log, device_name, ...; see
        hw/replay/gpu_replay_engine.cpp); empty for simulator results.
        Results written before the engine was registered kept these in a
        top-level "replay" list, read as it is."""
        import pandas as pd
        if "replay" in self._doc:
            return pd.DataFrame(self._doc["replay"])
        rows = []
        for run in self._doc["runs"]:
            row = {}
            for c in run.get("components", []):
                if c["component"] in ("replay", "device"):
                    row[("device_" if c["component"] == "device" else "") + c["name"]] = c["value"]
            for t in run.get("component_texts", []):
                if t["component"] in ("replay", "device"):
                    row[("device_" if t["component"] == "device" else "") + t["name"]] = t["text"]
            if row:
                rows.append({"run": run["run"], **row})
        return pd.DataFrame(rows)

    def __repr__(self):
        return f"flashsim.Results({self.path!r}: {len(self._doc['runs'])} runs)"


def read_trace(path, format=""):
    """A trace file (any importable format) as a DataFrame, one row per access;
    op as 'r'/'w', phase as 'unknown'/'prefill'/'decode'."""
    import pandas as pd
    t = _core.read_trace(os.fspath(path), format)
    df = pd.DataFrame(t["columns"])
    df["op"] = df["op"].map(_OP)
    df["phase"] = df["phase"].map(_PHASE)
    df.attrs["source"] = t["source"]
    return df


# write_trace's columns: name -> numpy dtype of the record field (traces/access_record.h).
_TRACE_COLUMNS = {"time_ns": "int64", "block_id": "uint64", "bytes": "uint64", "stream_id": "uint32",
                  "request_id": "uint64", "token_index": "int32", "operator_id": "uint32", "compute_ns": "int64",
                  "address": "uint64", "offset": "uint64", "next_use_index": "uint64"}
_OP_CODE = {"r": 0, "w": 1, 0: 0, 1: 1}
_PHASE_CODE = {"unknown": 0, "prefill": 1, "decode": 2, 0: 0, 1: 1, 2: 2}


def _trace_column(df, name, dtype):
    """df[name] as `dtype`, refusing what would change a value (NaN, fractions, out of range)."""
    import numpy as np
    col = df[name]
    if col.dtype == object or str(col.dtype) in ("string", "category"):
        raise InputError(f"write_trace: column '{name}' holds text, expected integers")
    values = col.to_numpy()
    if values.dtype.kind == "b":
        raise InputError(f"write_trace: column '{name}' holds booleans, expected integers")
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values) | (values != np.floor(values))
        if bad.any():
            row = int(np.argmax(bad))
            raise InputError(f"write_trace: column '{name}', row {row}: {values[row]!r} is not an integer")
    info = np.iinfo(dtype)
    if len(values) and (values.min() < info.min or values.max() > info.max):
        row = int(np.argmax((values < info.min) | (values > info.max)))
        raise InputError(f"write_trace: column '{name}', row {row}: {values[row]!r} is outside {info.min}..{info.max}")
    return values.astype(dtype)


def _trace_codes(df, name, codes):
    col = df[name]
    mapped = col.map(lambda v: codes.get(v.item() if hasattr(v, "item") else v))
    if mapped.isna().any():
        row = int(mapped.isna().to_numpy().argmax())
        raise InputError(f"write_trace: column '{name}', row {row}: {col.iloc[row]!r}; expected one of "
                         f"{sorted({k for k in codes if isinstance(k, str)})}")
    return mapped.to_numpy().astype("uint8")


def write_trace(df, path):
    """Writes df as a canonical HDF5 trace (`path` ends in .h5 or .hdf5;
    written to a temporary file and renamed). Columns: time_ns, block_id,
    bytes (required); stream_id, request_id, token_index, operator_id,
    compute_ns, address, offset, next_use_index, op ('r'/'w' or 0/1) and
    phase ('unknown'/'prefill'/'decode' or 0..2) when present, as
    read_trace() returns them; other columns are refused. The records are
    checked as a reader checks them (times non-decreasing per stream, bytes >
    0, ...). The trace's catalog (block names, layers) is not written: for a
    copy that keeps it, use `flashsim trace convert`. Raises InputError
    naming the column and row."""
    import pandas as pd
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"write_trace: expected a pandas DataFrame, not {type(df).__name__}")
    path = os.fspath(path)
    if not path.endswith((".h5", ".hdf5")):
        raise InputError(f"write_trace: '{path}': writes the canonical HDF5 trace, name it .h5 "
                         f"(other formats: `flashsim trace convert`)")
    known = set(_TRACE_COLUMNS) | {"op", "phase"}
    unknown = [c for c in df.columns if c not in known]
    if unknown:
        raise InputError(f"write_trace: unknown column(s) {unknown}; known: {sorted(known)}")
    for need in ("time_ns", "block_id", "bytes"):
        if need not in df:
            raise InputError(f"write_trace: column '{need}' is missing")
    cols = {k: _trace_column(df, k, t) for k, t in _TRACE_COLUMNS.items() if k in df}
    if "op" in df:
        cols["op"] = _trace_codes(df, "op", _OP_CODE)
    if "phase" in df:
        cols["phase"] = _trace_codes(df, "phase", _PHASE_CODE)
    _core.write_trace(cols, path)


def policies():
    """Every registered eviction policy: name, summary, params (name, type, default, doc)."""
    return _core.policies()


def prefetchers():
    """Every registered prefetcher, as policies()."""
    return _core.prefetchers()


def register_policy(name, cls, summary="", params=None):
    """Registers an eviction policy written in Python under `name`, usable in any
    scenario run by flashsim.run or flashsim.replay (policies: [NAME], or
    {impl: NAME, params: {...}}). `cls(capacity_bytes, block_count, **params)`
    builds one instance per run; it implements the C++ interface's hooks
    (sim/policy/i_eviction_policy.h): on_hit(a), on_insert(a), evict(now_ns,
    allows) -> block or None (only blocks for which allows(block) is true),
    remove(block), size(); optionally on_miss(a), on_bypass(a). `a` is a
    PolicyAccess (block, bytes, now_ns, access_index, next_use_index, op,
    is_prefetch). params: {name: default} (bool, int, float or str), set
    from a scenario like a C++ policy's and checked against the default's type."""
    _core.register_policy(name, cls, summary, params or {})


def register_prefetcher(name, cls, summary="", params=None):
    """Registers a prefetcher written in Python under `name`, usable in a
    scenario's `prefetch:` lists like a C++ one (sim/prefetch/i_prefetcher.h).
    `cls(context, **params)` builds one per run; context has capacity_bytes,
    seed, catalog (CatalogEntry: id, name, bytes, layer, kind, segment) and
    operators (OperatorEntry: name, layer, segment, blocks, routed_blocks,
    compute_ns; empty for recorded traces). The object implements
    on_access(a, view, actions): `a` a PrefetchAccess (block_id, bytes,
    now_ns, access_index, stream_id, request_id, token_index, phase,
    operator_id, outcome 'hit'/'delayed_hit'/'miss'); `view` the fast tier
    (state(b) -> 'absent'/'in_flight'/'resident'/'in_use', capacity_bytes(),
    reserved_bytes(), last_access_ns(b), residents(), in_next_tier(b));
    `actions` prefetch(b) -> bool and evict(b) -> bool. view and actions are
    valid only during the call. Optionally preview(record, access_index) with
    wants_preview = True: every trace record before the first access (for
    prefetchers that model a predictor of the trace, as expert_speculative)."""
    _core.register_prefetcher(name, cls, summary, params or {})


def _engine_value(value):
    """A gpu_replay parameter's value as its YAML text (booleans as true/false)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def replay(scenario="builtin:default", overrides=None, out=None, **options):
    """Replays a scenario on the GPU: run() with the gpu_replay engine (in
    this process, so policies and prefetchers registered from Python run
    there too), returning its Results; Results.replay has the replay's own
    statistics per run (decision_ns_mean/p50/p99 = host policy cost,
    decisions, checksum_mismatches, ...). scenario, overrides and out as
    run(). options are the engine's parameters (`flashsim policies --all`
    lists them): backing="pageable", kernel="gemv", copy_streams=2,
    run_ahead=8, no_cache=True, prefetcher="lookahead",
    prefetcher_params={...}, replay_gaps=True, l2_mode=True, l2_window=False,
    verify=True, nvml=False, access_log=False, device=0, max_accesses=N.
    Raises flashsim.Error when this build has no replay
    (flashsim._core.have_replay), InputError for an unknown option."""
    if not _core.have_replay:
        raise Error("flashsim.replay: this build has no GPU replay (the CUDA toolkit was not found at configure time)")
    engine = {"impl": "gpu_replay"}
    for key, value in options.items():
        if key == "prefetcher_params":
            value = ",".join(f"{k}={v}" for k, v in dict(value).items())
        engine[key] = _engine_value(value)
    merged = {"engine": engine}
    merged.update(overrides or {})  # engine.KEY overrides still apply on top
    return run(scenario, overrides=merged, out=out, jobs=1)


def _override_args(overrides):
    args = []
    for k, v in (overrides or {}).items():
        args += ["--set", _override_text(k, v)]
    return args

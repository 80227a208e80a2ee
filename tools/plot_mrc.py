#!/usr/bin/env python3
"""Draws the miss-ratio curve of a capacity sweep: miss ratio against
fast-tier capacity, one line per policy.

Reads the results of `flashsim run` (results.h5 or summary.json; a folder
means its summary.json), one point per run: x = the run's capacity_bytes
(as a share of footprint_bytes with --relative, the default), y = 1 - hit
ratio by access (or by byte with --by-byte). Writes OUT.png and OUT.svg and
prints the table it plotted (--table FILE also writes it as Markdown).

--bound BOUND.json (what `flashsim trace bound TRACE -c ... --json` prints)
adds the bounds on the optimal hit ratio as a shaded band, 1 - upper .. 1 -
lower, labelled "optimal (FOO bounds)" or "PFOO bounds (...)" by the method;
each capacity's x is its capacity_bytes over the runs' footprint.

    python3 tools/plot_mrc.py flashsim-results/exp-mixtral-8x7b-mrc \
        --out docs/figures/mixtral-8x7b-mrc --table mrc.md [--bound bound.json]

Needs matplotlib (python3-matplotlib); h5py (python3-h5py) only for .h5 input.
"""
import argparse
import json
import os
import sys
import tempfile


def _text(value):
    return value.decode() if isinstance(value, (bytes, bytearray)) else str(value)


def load_runs(path):
    """Rows of dicts: policy_label, capacity_bytes, footprint_bytes, hit ratios."""
    if os.path.isdir(path):
        path = os.path.join(path, "summary.json")
    if path.endswith(".json"):
        with open(path) as f:
            summary = json.load(f)
        rows = summary["runs"]
        title = summary.get("scenario", "")
        return title, [
            {
                "policy": r["policy_label"],
                "capacity_bytes": int(r["capacity_bytes"]),
                "footprint_bytes": int(r["footprint_bytes"]),
                "size_unit": r.get("size_unit", "bytes"),  # blocks: cache.ignore_sizes (results schema 2)
                "accesses": int(r["accesses"]),
                "hit_ratio_by_access": float(r["hit_ratio_by_access"]),
                "hit_ratio_by_byte": float(r["hit_ratio_by_byte"]),
            }
            for r in rows
        ]
    import h5py  # only needed for HDF5 input

    with h5py.File(path, "r") as f:
        table = f["summary"][:]
        title = _text(f.attrs.get("scenario", ""))
    return title, [
        {
            "policy": _text(r["policy_label"]),
            "capacity_bytes": int(r["capacity_bytes"]),
            "footprint_bytes": int(r["footprint_bytes"]),
            "size_unit": _text(r["size_unit"]) if "size_unit" in table.dtype.names else "bytes",
            "accesses": int(r["accesses"]),
            "hit_ratio_by_access": float(r["hit_ratio_by_access"]),
            "hit_ratio_by_byte": float(r["hit_ratio_by_byte"]),
        }
        for r in table
    ]


def size_unit(rows):
    """'bytes', or 'blocks' when the runs ignored sizes (their bytes fields count blocks)."""
    units = {r.get("size_unit", "bytes") for r in rows}
    if len(units) > 1:
        raise SystemExit("runs mix sizes in bytes and in blocks (cache.ignore_sizes): plot them apart")
    return units.pop() if units else "bytes"


def curves(rows, by_byte, relative):
    """{policy: [(x, miss_ratio, capacity, footprint)]} sorted by capacity, policies in first-seen order.
    x: share of the footprint (relative), else GB, or blocks when sizes were ignored."""
    key = "hit_ratio_by_byte" if by_byte else "hit_ratio_by_access"
    blocks = size_unit(rows) == "blocks"
    out = {}
    for r in rows:
        if relative and r["footprint_bytes"] <= 0:
            raise SystemExit("run without footprint_bytes: use --absolute")
        c = r["capacity_bytes"]
        x = c / r["footprint_bytes"] if relative else (c if blocks else c / 1e9)
        out.setdefault(r["policy"], []).append((x, 1.0 - r[key], c, r["footprint_bytes"]))
    for points in out.values():
        points.sort()
    return out


def load_bound(path, rows, relative, unit):
    """[(x, bound)] of `flashsim trace bound --json` output, x on the runs' axis. Each bound
    gets its label ("optimal (FOO bounds)", "PFOO bounds (method)")."""
    with open(path) as f:
        doc = json.load(f)
    bounds = doc.get("bounds") if isinstance(doc, dict) else None
    if not isinstance(bounds, list) or not bounds:
        raise SystemExit(f"{path}: no 'bounds' list (the JSON of `flashsim trace bound --json`)")
    footprints = {r["footprint_bytes"] for r in rows}
    if relative and len(footprints) != 1:
        raise SystemExit(f"{path}: the runs have {len(footprints)} footprints; a bound is of one trace (use --absolute)")
    footprint = footprints.pop() if relative else None
    out = []
    for i, b in enumerate(bounds):
        for key in ("capacity_bytes", "hit_ratio_by_access_lower", "hit_ratio_by_access_upper",
                    "hit_ratio_by_byte_lower", "hit_ratio_by_byte_upper", "method"):
            if key not in b:
                raise SystemExit(f"{path}: bounds[{i}] lacks '{key}'")
        b = dict(b)
        b["label"] = "optimal (FOO bounds)" if b["method"] == "FOO" else f"PFOO bounds ({b['method']})"
        c = b["capacity_bytes"]
        out.append((c / footprint if relative else (c if unit == "blocks" else c / 1e9), b))
    return out


def markdown_table(data, by_byte, unit="bytes", bound=()):
    """The plotted miss ratios per capacity; with `bound` a column of the optimal miss ratio
    (1 - upper .. 1 - lower) at the capacities it has."""
    policies = list(data)
    kind_key = "byte" if by_byte else "access"
    optimal = {b["capacity_bytes"]: b for _, b in bound}
    caps = sorted({p[2] for pts in data.values() for p in pts})
    footprint = {p[2]: p[3] for pts in data.values() for p in pts}
    kind = "by byte" if by_byte else "by access"
    size_head = "blocks" if unit == "blocks" else "GB"
    lines = [
        f"| capacity | {size_head} | " + " | ".join(f"{p} miss ratio ({kind})" for p in policies)
        + (f" | optimal miss ratio ({kind})" if optimal else "") + " |",
        "|---:|---:|" + "---:|" * (len(policies) + bool(optimal)),
    ]
    for c in caps:
        cells = []
        for p in policies:
            m = [pt[1] for pt in data[p] if pt[2] == c]
            cells.append(f"{m[0]:.4f}" if m else "")
        share = f"{c / footprint[c]:.0%}" if footprint[c] > 0 else "-"
        size = str(c) if unit == "blocks" else f"{c / 1e9:.2f}"
        if optimal:
            b = optimal.get(c)
            cells.append(f"{1 - b[f'hit_ratio_by_{kind_key}_upper']:.4f} .. {1 - b[f'hit_ratio_by_{kind_key}_lower']:.4f}"
                         if b else "")
        lines.append(f"| {share} | {size} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_atomic(path, write):
    """Writes via a temporary file beside `path`, renamed into place when complete."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".tmp-")
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="results.h5, summary.json, or a results folder")
    ap.add_argument("--out", required=True, help="output path without extension (writes .png and .svg)")
    ap.add_argument("--by-byte", action="store_true", help="miss ratio by byte instead of by access")
    ap.add_argument("--absolute", action="store_true", help="x axis in GB instead of share of footprint")
    ap.add_argument("--title", default=None)
    ap.add_argument("--table", default=None, help="also write the plotted values as a Markdown table")
    ap.add_argument("--bound", default=None, metavar="BOUND.json",
                    help="`flashsim trace bound --json` output of the runs' trace: draw the optimal hit ratio's bounds")
    args = ap.parse_args(argv)

    title, rows = load_runs(args.results)
    if not rows:
        raise SystemExit(f"{args.results}: no runs")
    data = curves(rows, args.by_byte, not args.absolute)
    unit = size_unit(rows)
    bound = load_bound(args.bound, rows, not args.absolute, unit) if args.bound else []
    table = markdown_table(data, args.by_byte, unit, bound)
    sys.stdout.write(table)
    if args.table:
        write_atomic(args.table, lambda p: open(p, "w").write(table))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if bound:
        # The band's drawing is plot_validation.py's, which flashsim report runs: one look.
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from plot_validation import draw_bound_band

        draw_bound_band(ax, bound, args.by_byte)
    for policy, pts in data.items():
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=4, label=policy, zorder=3)
    if args.absolute:
        ax.set_xlabel("fast-tier capacity (blocks, sizes ignored)" if unit == "blocks" else "fast-tier capacity (GB)")
    else:
        ax.set_xlabel("fast-tier capacity (share of footprint)")
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_ylabel("miss ratio (by byte)" if args.by_byte else "miss ratio (by access)")
    ax.set_ylim(0, 1.02)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(args.title if args.title is not None else f"miss-ratio curve: {title}")
    fig.tight_layout()
    for ext in ("png", "svg"):
        write_atomic(f"{args.out}.{ext}", lambda p, ext=ext: fig.savefig(p, format=ext, dpi=120))
        print(f"wrote {args.out}.{ext}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

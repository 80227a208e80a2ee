#!/usr/bin/env python3
"""Plots of a `flashsim validate` result (validation.json, schema
flashsim-validation/1): the simulator against the hardware.

Writes into OUT (created if needed), each as .png and .svg:
  parity_<metric>      sim against hw per gated relative metric: y = x, a
                       ±10% band, fit and holdout scenarios marked apart,
                       Pearson r and mean absolute % error in the title
                       (log axes when the values span two decades or more)
  error_bars           signed relative error per scenario and metric, the hw
                       repeat spread (min..max) as error bars, the effective
                       tolerance as ± marks
  mrc                  miss-ratio curves (1 - hit ratio against capacity as a
                       share of the footprint), sim and hw, for each scenario
                       group and policy with two capacities or more
  latency_cdf          access latency CDFs per scenario group, sim and hw
  hit_ratio_over_time  hit ratio per window, sim and hw, for up to 8
                       scenarios (failing ones first)
and plots.json, the list of figures written (name, title, caption) in the
order `flashsim report` shows them.

Given the miss-ratio data `flashsim report` writes beside its page
(FILE-mrc.json, schema flashsim-report-mrc/1) and --section K, it draws
instead
  mrc_runs             that run summary's miss-ratio curves by access and by
                       byte, one line per policy, and the bounds on the
                       optimal hit ratio as a shaded band (1 - upper .. 1 -
                       lower), labelled "optimal (FOO bounds)" or "PFOO
                       bounds (...)" by the method that solved them.
Given the hit-ratio data it writes beside its page (FILE-hit-ratio.json,
schema flashsim-report-hit-ratio/1) and --section K, it draws
  hit_ratio_runs       that run summary's hit ratio over simulated time, one
                       line per run (hits / accesses per window; windows
                       without accesses left out), in the panels the data
                       lists (one chart, or one per sweep point)
A figure without data is not written (and not listed). Every file is written to a temp file beside it and renamed.

    /usr/bin/python3 -s tools/plot_validation.py validation.json --out DIR

Exit status: 0 written; 2 bad input (the message names the file and key);
3 matplotlib cannot be imported (`flashsim report` then skips the plots).
Needs matplotlib (Debian python3-matplotlib; tools/install-deps.sh).
"""
import argparse
import json
import math
import os
import re
import sys
import tempfile

SCHEMA = "flashsim-validation/1"
MRC_SCHEMA = "flashsim-report-mrc/1"
HIT_RATIO_SCHEMA = "flashsim-report-hit-ratio/1"
MAX_PANELS = 8


class InputProblem(Exception):
    """Bad validation.json: the message names the file and the key."""


class Doc:
    """Checked access to the document: every miss names file and key path."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, encoding="utf-8") as f:
                self.root = json.load(f)
        except OSError as e:
            raise InputProblem(f"'{path}': cannot read: {e.strerror}")
        except json.JSONDecodeError as e:
            raise InputProblem(f"'{path}': invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}")
        except UnicodeDecodeError as e:
            raise InputProblem(f"'{path}': not UTF-8 text: {e}")
        if not isinstance(self.root, dict):
            raise InputProblem(f"'{path}': the top level is not an object")
        schema = self.root.get("schema")
        if schema != SCHEMA:
            raise InputProblem(f"'{path}': key 'schema' is {json.dumps(schema)}, expected \"{SCHEMA}\"")

    def need(self, obj, key, where, kind=None):
        if not isinstance(obj, dict) or key not in obj:
            raise InputProblem(f"'{self.path}': key '{where}{key}' is missing")
        value = obj[key]
        if kind is not None and not _is(value, kind):
            raise InputProblem(f"'{self.path}': key '{where}{key}' is not {_kind_name(kind)}")
        return value

    def opt(self, obj, key, where, kind):
        """The value, or None when absent or null."""
        if not isinstance(obj, dict) or obj.get(key) is None:
            return None
        value = obj[key]
        if not _is(value, kind):
            raise InputProblem(f"'{self.path}': key '{where}{key}' is not {_kind_name(kind)}")
        return value


def _is(value, kind):
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "numbers":
        return isinstance(value, list) and all(_is(v, "number") for v in value)
    return isinstance(value, kind)


def _kind_name(kind):
    return {"number": "a number", "numbers": "a list of numbers", str: "a string", list: "a list",
            dict: "an object", bool: "true or false"}.get(kind, str(kind))


def load(path):
    """The document as plain dicts: metrics (list), entries (list of dicts with
    rows keyed by metric), summary {(metric, role): dict}."""
    d = Doc(path)
    root = d.root
    metrics = []
    for i, m in enumerate(d.need(root, "metrics", "", list)):
        w = f"metrics[{i}]."
        metrics.append({"name": d.need(m, "name", w, str), "unit": d.opt(m, "unit", w, str) or "",
                        "kind": d.opt(m, "kind", w, str) or "", "gate": bool(d.opt(m, "gate", w, bool)),
                        "floor": d.opt(m, "floor", w, "number") or 0.0,
                        "tolerance": d.opt(m, "tolerance", w, "number")})
    entries = []
    for i, e in enumerate(d.need(root, "entries", "", list)):
        w = f"entries[{i}]."
        entry = {"name": d.need(e, "name", w, str), "group": d.opt(e, "group", w, str) or d.need(e, "name", w, str),
                 "role": d.opt(e, "role", w, str) or "fit", "policy": d.opt(e, "policy", w, str) or "",
                 "prefetch": d.opt(e, "prefetch", w, str) or "",
                 "capacity_fraction": d.opt(e, "capacity_fraction", w, "number"), "rows": {}, "series": {}}
        for j, r in enumerate(d.need(e, "rows", w, list)):
            rw = f"{w}rows[{j}]."
            entry["rows"][d.need(r, "metric", rw, str)] = {
                "sim": d.opt(r, "sim", rw, "number"), "hw": d.opt(r, "hw", rw, "number"),
                "hw_min": d.opt(r, "hw_min", rw, "number"), "hw_max": d.opt(r, "hw_max", rw, "number"),
                "rel_error": d.opt(r, "rel_error", rw, "number"),
                "tolerance_effective": d.opt(r, "tolerance_effective", rw, "number"),
                "failed": (d.opt(r, "passed", rw, bool) is False and d.opt(r, "judged", rw, bool) is not False
                           and d.opt(r, "gated", rw, bool) is not False)}
        series = d.opt(e, "series", w, dict) or {}
        for side in ("sim", "hw"):
            s = d.opt(series, side, f"{w}series.", dict)
            if s is None:
                continue
            sw = f"{w}series.{side}."
            q, lat = d.opt(s, "latency_q", sw, "numbers"), d.opt(s, "latency_ns", sw, "numbers")
            if q is not None and lat is not None and len(q) != len(lat):
                raise InputProblem(f"'{path}': keys '{sw}latency_q' and '{sw}latency_ns' differ in length"
                                   f" ({len(q)} and {len(lat)})")
            entry["series"][side] = {"latency_q": q, "latency_ns": lat,
                                     "window_ns": d.opt(s, "window_ns", sw, "number"),
                                     "hit_ratio": d.opt(s, "hit_ratio", sw, "numbers")}
        entries.append(entry)
    summary = {}
    for i, s in enumerate(d.opt(root, "summary", "", list) or []):
        w = f"summary[{i}]."
        summary[(d.need(s, "metric", w, str), d.need(s, "role", w, str))] = {
            "mae_pct": d.opt(s, "mae_pct", w, "number"), "pearson_r": d.opt(s, "pearson_r", w, "number"),
            "pearson_on": d.opt(s, "pearson_on", w, str) or "", "n": d.opt(s, "n", w, "number")}
    suite = d.opt(root, "suite", "", dict) or {}
    return {"suite": d.opt(suite, "name", "suite.", str) or "", "metrics": metrics, "entries": entries,
            "summary": summary}


# ---- numbers --------------------------------------------------------------

def tex_safe(text):
    """Data-derived text (scenario, entry and policy names) as plain text:
    matplotlib's mathtext stays on for the log axes' 10^n ticks, so a '$'
    in a name is escaped instead."""
    return str(text).replace("$", r"\$")


def human_formatter(unit):
    """A tick formatter in the unit's human scale ("100 ms", "2 GB") for
    axes in ns or bytes; None for other units (matplotlib's own ticks)."""
    from matplotlib.ticker import FuncFormatter
    if unit == "ns":
        steps = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns"))
    elif unit == "bytes":
        steps = ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B"))
    else:
        return None

    def fmt(v, _pos):
        if v <= 0:
            return "0"
        for scale, name in steps:
            if v >= scale:
                return f"{v / scale:g} {name}"
        return f"{v:g} {steps[-1][1]}"
    return FuncFormatter(fmt)


def spans_decades(values):
    positive = [v for v in values if v > 0]
    return len(positive) == len(values) and positive and max(positive) / min(positive) >= 100


def pearson(xs, ys):
    n = len(xs)
    if n < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def signed_rel_error(row, floor):
    """(sim - hw) / max(|hw|, floor): the row's rel_error with a sign."""
    denom = max(abs(row["hw"]), floor) or 1.0
    return (row["sim"] - row["hw"]) / denom, denom


# ---- output ---------------------------------------------------------------

class Writer:
    """Saves figures atomically and keeps the manifest."""

    def __init__(self, out, salt=""):
        self.out = out
        self.salt = salt
        self.manifest = []

    def _atomic(self, name, write):
        fd, tmp = tempfile.mkstemp(dir=self.out, prefix=name + ".tmp-")
        os.close(fd)
        try:
            write(tmp)
            os.chmod(tmp, 0o644)
            os.replace(tmp, os.path.join(self.out, name))
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def save(self, fig, stem, title, caption):
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", stem)  # file names from metric names: no '/' or odd characters
        import matplotlib
        import matplotlib.pyplot as plt
        # Fixed ids per figure (svg.hashsalt) so output is reproducible and two
        # figures inlined in one HTML page do not share clip-path ids.
        matplotlib.rcParams["svg.hashsalt"] = self.salt + stem
        self._atomic(stem + ".png", lambda p: fig.savefig(p, format="png", dpi=110, metadata={"Software": None}))
        self._atomic(stem + ".svg", lambda p: fig.savefig(p, format="svg", metadata={"Date": None}))
        plt.close(fig)
        self.manifest.append({"name": stem, "title": title, "caption": caption})

    def finish(self):
        text = json.dumps({"figures": self.manifest}, indent=1) + "\n"
        self._atomic("plots.json", lambda p: open(p, "w", encoding="utf-8").write(text))


def role_style(role):
    return ({"marker": "o", "facecolors": "tab:blue", "edgecolors": "tab:blue"} if role != "holdout"
            else {"marker": "^", "facecolors": "none", "edgecolors": "tab:orange"})


def plot_parity(doc, metric, w):
    import matplotlib.pyplot as plt
    name = metric["name"]
    points = [(e, e["rows"][name]) for e in doc["entries"]
              if name in e["rows"] and e["rows"][name]["sim"] is not None and e["rows"][name]["hw"] is not None]
    if not points:
        return
    hw = [r["hw"] for _, r in points]
    sim = [r["sim"] for _, r in points]
    # Log axes exactly when validate computed r on log10 (the suite's log_span).
    s0 = doc["summary"].get((name, "all"))
    log = (s0["pearson_on"] == "log10") if s0 is not None and s0.get("pearson_on") else spans_decades(hw + sim)
    fig, ax = plt.subplots(figsize=(5.6, 5.2))
    lo, hi = min(hw + sim), max(hw + sim)
    if log:
        lo, hi = lo / 1.5, hi * 1.5
        ax.set_xscale("log")
        ax.set_yscale("log")
        xs = [lo * (hi / lo) ** (i / 100) for i in range(101)]
    else:
        pad = 0.05 * (hi - lo or abs(hi) or 1.0)
        lo, hi = lo - pad, hi + pad
        xs = [lo + (hi - lo) * i / 100 for i in range(101)]
    ax.fill_between(xs, [x * 0.9 for x in xs], [x * 1.1 for x in xs], color="0.88", label="±10%", zorder=0)
    ax.plot(xs, xs, color="0.3", lw=1, label="y = x", zorder=1)
    for role, label in (("fit", "fit"), ("holdout", "held out")):
        sel = [(e, r) for e, r in points if (e["role"] == "holdout") == (role == "holdout")]
        if not sel:
            continue
        xerr = [[max(0.0, r["hw"] - r["hw_min"]) if r["hw_min"] is not None else 0.0 for _, r in sel],
                [max(0.0, r["hw_max"] - r["hw"]) if r["hw_max"] is not None else 0.0 for _, r in sel]]
        ax.errorbar([r["hw"] for _, r in sel], [r["sim"] for _, r in sel], xerr=xerr, fmt="none",
                    ecolor="0.5", lw=0.8, zorder=2)
        ax.scatter([r["hw"] for _, r in sel], [r["sim"] for _, r in sel], s=28, label=label, zorder=3,
                   **role_style(role))
    failed = [r for _, r in points if r["failed"]]
    if failed:
        ax.scatter([r["hw"] for r in failed], [r["sim"] for r in failed], s=110, marker="o",
                   facecolors="none", edgecolors="red", lw=1.4, zorder=4, label="failed")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    human = human_formatter(metric["unit"])
    if human is not None:
        ax.xaxis.set_major_formatter(human)
        ax.yaxis.set_major_formatter(human)
    unit = f" ({metric['unit']})" if metric["unit"] and human is None else ""
    ax.set_xlabel(f"hardware{unit}")
    ax.set_ylabel(f"simulator{unit}")
    s = doc["summary"].get((name, "all"))
    if s is not None and s["pearson_r"] is not None and s["mae_pct"] is not None:
        r, mae, on = s["pearson_r"], s["mae_pct"], s["pearson_on"] or "linear"
    else:
        errs = [r["rel_error"] for _, r in points if r["rel_error"] is not None]
        on = "log10" if log else "linear"
        f = (lambda v: math.log10(v)) if log else (lambda v: v)
        r = pearson([f(v) for v in hw], [f(v) for v in sim])
        mae = 100 * sum(errs) / len(errs) if errs else float("nan")
    title = f"{tex_safe(name)}\nr = {r:.4f} ({on}), MAE = {mae:.2f}%, n = {len(points)}"
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(True, which="major", lw=0.3)
    fig.tight_layout()
    w.save(fig, f"parity_{name}", f"Parity: {name}",
           "Simulator against hardware per scenario; grey band ±10%; horizontal bars: hardware min..max of the repeats.")


def relative_metrics(doc):
    """Gated relative metrics with data; all relative ones if none is gated."""
    rel = [m for m in doc["metrics"] if m["kind"] == "relative"]
    gated = [m for m in rel if m["gate"]]
    return gated or rel


def plot_error_bars(doc, w):
    import matplotlib.pyplot as plt
    metrics = []
    for m in relative_metrics(doc):
        if any(m["name"] in e["rows"] and e["rows"][m["name"]]["hw"] is not None
               and e["rows"][m["name"]]["sim"] is not None for e in doc["entries"]):
            metrics.append(m)
    if not metrics:
        return
    entries = doc["entries"]
    n = len(entries)
    fig, axes = plt.subplots(len(metrics), 1, figsize=(max(7.0, 0.32 * n + 2), 2.4 * len(metrics) + 1.6),
                             sharex=True, squeeze=False)
    for ax, m in zip(axes[:, 0], metrics):
        for i, e in enumerate(entries):
            r = e["rows"].get(m["name"])
            if r is None or r["hw"] is None or r["sim"] is None:
                continue
            err, denom = signed_rel_error(r, m["floor"])
            lo = (r["sim"] - r["hw_max"]) / denom if r["hw_max"] is not None else err
            hi = (r["sim"] - r["hw_min"]) / denom if r["hw_min"] is not None else err
            color = "red" if r["failed"] else ("tab:orange" if e["role"] == "holdout" else "tab:blue")
            ax.errorbar([i], [100 * err], yerr=[[100 * max(0.0, err - lo)], [100 * max(0.0, hi - err)]],
                        fmt="o" if e["role"] != "holdout" else "^", color=color, ms=4, capsize=2, lw=0.9)
            tol = r["tolerance_effective"]
            if tol is not None:
                ax.hlines([100 * tol, -100 * tol], i - 0.4, i + 0.4, colors="0.45", lw=0.9, linestyles="--")
        ax.axhline(0, color="0.3", lw=0.6)
        ax.set_ylabel(f"{m['name']}\nerror (%)", fontsize=8)
        ax.grid(True, axis="y", lw=0.3)
    ax = axes[-1, 0]
    ax.set_xticks(range(n))
    ax.set_xticklabels([tex_safe(e["name"]) for e in entries], rotation=70, ha="right", fontsize=7)
    ax.set_xlim(-0.7, n - 0.3)
    axes[0, 0].set_title("Relative error (sim − hw) / max(hw, floor); bars: hw repeat spread; "
                         "dashes: ± effective tolerance (blue fit, orange held out, red failed)", fontsize=9)
    fig.tight_layout()
    w.save(fig, "error_bars", "Relative error per scenario",
           "Signed relative error per scenario and metric; error bars: the hardware min..max over repeats, "
           "as relative error; dashes: ± effective tolerance.")


def grid(n, ncols=3):
    import matplotlib.pyplot as plt
    ncols = min(ncols, n)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.3 * nrows), squeeze=False)
    flat = [a for row in axes for a in row]
    for a in flat[n:]:
        a.set_visible(False)
    return fig, flat[:n]


def plot_mrc(doc, w):
    curves = {}  # group -> policy label -> [(fraction, sim miss, hw miss)]
    for e in doc["entries"]:
        r = e["rows"].get("hit_ratio_by_access") or e["rows"].get("hit_ratio")
        if r is None or e["capacity_fraction"] is None or r["sim"] is None:
            continue
        label = e["policy"] + (f"+{e['prefetch']}" if e["prefetch"] else "")
        curves.setdefault(e["group"], {}).setdefault(label, []).append(
            (e["capacity_fraction"], 1 - r["sim"], None if r["hw"] is None else 1 - r["hw"]))
    panels = []
    for group, by_policy in curves.items():
        kept = {p: sorted(pts) for p, pts in by_policy.items() if len({x for x, _, _ in pts}) >= 2}
        if kept:
            panels.append((group, kept))
    if not panels:
        return
    fig, axes = grid(len(panels))
    for ax, (group, by_policy) in zip(axes, panels):
        for k, (policy, pts) in enumerate(by_policy.items()):
            color = f"C{k % 10}"
            ax.plot([x for x, _, _ in pts], [s for _, s, _ in pts], "-o", color=color, ms=4, label=tex_safe(f"{policy} sim"))
            hw = [(x, h) for x, _, h in pts if h is not None]
            if hw:
                ax.plot([x for x, _ in hw], [h for _, h in hw], "--s", color=color, ms=5, mfc="none",
                        label=tex_safe(f"{policy} hw"))
        ax.set_title(tex_safe(group), fontsize=9)
        ax.set_xlabel("capacity / footprint", fontsize=8)
        ax.set_ylabel("miss ratio", fontsize=8)
        ax.set_ylim(bottom=0)
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    w.save(fig, "mrc", "Miss-ratio curves",
           "Miss ratio (1 − hit ratio) against fast-tier capacity as a share of the footprint; "
           "solid: simulator, dashed: hardware.")


def has_latency(side):
    return side is not None and side["latency_q"] and side["latency_ns"]


def plot_latency_cdf(doc, w):
    groups = {}
    for e in doc["entries"]:
        if has_latency(e["series"].get("sim")) or has_latency(e["series"].get("hw")):
            groups.setdefault(e["group"], []).append(e)
    if not groups:
        return
    names = list(groups)
    fig, axes = grid(len(names))
    for ax, group in zip(axes, names):
        values = []
        for k, e in enumerate(groups[group][:10]):
            color = f"C{k % 10}"
            for side, style in (("sim", "-"), ("hw", "--")):
                s = e["series"].get(side)
                if has_latency(s):
                    ax.plot(s["latency_ns"], s["latency_q"], style, color=color, lw=1.2,
                            label=tex_safe(f"{e['name']} {side}") if len(groups[group]) <= 4 else (side if k == 0 else None))
                    values += s["latency_ns"]
        if spans_decades(values):
            ax.set_xscale("log")
        ax.xaxis.set_major_formatter(human_formatter("ns"))
        ax.set_title(tex_safe(group), fontsize=9)
        ax.set_xlabel("access latency", fontsize=8)
        ax.set_ylabel("quantile", fontsize=8)
        ax.set_ylim(0, 1)
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=6)
    fig.tight_layout()
    w.save(fig, "latency_cdf", "Access latency CDFs",
           "Access latency distribution per scenario group (solid: simulator, dashed: hardware).")


def plot_hit_ratio_over_time(doc, w):
    chosen = [e for e in doc["entries"]
              if any((e["series"].get(s) or {}).get("hit_ratio") for s in ("sim", "hw"))]
    if not chosen:
        return
    if len(chosen) > MAX_PANELS:
        failing = [e for e in chosen if any(r["failed"] for r in e["rows"].values())][:MAX_PANELS]
        rest = [e for e in chosen if e not in failing]
        want = MAX_PANELS - len(failing)
        picked = [rest[round(i * (len(rest) - 1) / max(1, want - 1))] for i in range(want)] if want > 0 else []
        keep = {id(e) for e in failing + picked}
        chosen = [e for e in chosen if id(e) in keep]  # in document order
    fig, axes = grid(len(chosen), ncols=2 if len(chosen) <= 4 else 4)
    for ax, e in zip(axes, chosen):
        for side, style in (("sim", "-"), ("hw", "--")):
            s = e["series"].get(side) or {}
            hr = s.get("hit_ratio")
            if not hr:
                continue
            window_ms = (s.get("window_ns") or 1e6) / 1e6
            ax.plot([(i + 1) * window_ms for i in range(len(hr))], hr, style, lw=1.2,
                    color="tab:blue" if side == "sim" else "tab:orange", label=side)
        ax.set_title(tex_safe(e["name"]), fontsize=8)
        ax.set_xlabel("time (ms, window end)", fontsize=8)
        ax.set_ylabel("hit ratio", fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    w.save(fig, "hit_ratio_over_time", "Hit ratio over time",
           f"Hit ratio per window, simulator and hardware, for {len(chosen)} scenarios"
           " (failing ones first when there are more than 8).")


def data_schema(path):
    """The "schema" of a report's data file (MRC_SCHEMA, HIT_RATIO_SCHEMA), else None."""
    try:
        with open(path, encoding="utf-8") as f:
            root = json.load(f)
    except (OSError, ValueError):
        return None  # load() names the problem
    return root.get("schema") if isinstance(root, dict) else None


def load_section(path, section):
    """Section `section` of a report's data file (FILE-mrc.json, FILE-hit-ratio.json)."""
    try:
        with open(path, encoding="utf-8") as f:
            root = json.load(f)
    except OSError as e:
        raise InputProblem(f"'{path}': cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        raise InputProblem(f"'{path}': invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}")
    sections = root.get("sections") if isinstance(root, dict) else None
    if not isinstance(sections, list):
        raise InputProblem(f"'{path}': key 'sections' is missing")
    if not 0 <= section < len(sections) or not isinstance(sections[section], dict):
        raise InputProblem(f"'{path}': no section {section} (it has {len(sections)})")
    return sections[section]


def load_section_runs(path, section):
    """Section `section` of a report's data file and its list 'runs'."""
    sec = load_section(path, section)
    runs = sec.get("runs")
    if not isinstance(runs, list):
        raise InputProblem(f"'{path}': key 'sections[{section}].runs' is missing")
    return sec, runs


def load_mrc(path, section):
    """Section `section` of a report's MRC data: scenario, size_unit, bound_note, runs."""
    sec, runs = load_section_runs(path, section)
    for i, r in enumerate(runs):
        w = f"sections[{section}].runs[{i}]."
        for key in ("capacity_bytes", "footprint_bytes", "hit_ratio_by_access", "hit_ratio_by_byte"):
            if not _is(r.get(key) if isinstance(r, dict) else None, "number"):
                raise InputProblem(f"'{path}': key '{w}{key}' is not a number")
        if not isinstance(r.get("policy_label"), str):
            raise InputProblem(f"'{path}': key '{w}policy_label' is not a string")
        b = r.get("bound")
        if b is not None:
            for key in ("hit_ratio_by_access_lower", "hit_ratio_by_access_upper", "hit_ratio_by_byte_lower",
                        "hit_ratio_by_byte_upper"):
                if not _is(b.get(key) if isinstance(b, dict) else None, "number"):
                    raise InputProblem(f"'{path}': key '{w}bound.{key}' is not a number")
    return sec


def bound_label(bounds):
    """The band's legend: the bounds' label ("optimal (FOO bounds)", "PFOO bounds (...)"),
    or both methods' names when the capacities were solved by different ones."""
    labels = sorted({b.get("label") or b.get("method", "") for b in bounds})
    if len(labels) == 1:
        return labels[0]
    return "FOO / PFOO bounds"


def draw_bound_band(ax, points, by_byte, miss=True):
    """Shades the optimal hit ratio's bounds at capacities `points` [(x, bound)] (bound: the
    JSON of `flashsim trace bound` per capacity, or a report run's bound): lower..upper hit
    ratio, or 1 - upper .. 1 - lower as a miss ratio. Returns False when there is nothing to draw."""
    kind = "byte" if by_byte else "access"
    pts = sorted({x: b for x, b in points}.items())
    if not pts:
        return False
    xs = [x for x, _ in pts]
    lo = [b[f"hit_ratio_by_{kind}_lower"] for _, b in pts]
    hi = [b[f"hit_ratio_by_{kind}_upper"] for _, b in pts]
    if miss:
        lo, hi = [1 - v for v in hi], [1 - v for v in lo]
    label = bound_label([b for _, b in pts])
    if len(xs) == 1:  # one capacity: a bar, not a band
        ax.vlines(xs, lo, hi, colors="0.35", lw=6, alpha=0.45, label=label, zorder=1)
    else:
        ax.fill_between(xs, lo, hi, color="0.55", alpha=0.35, lw=0, label=label, zorder=1)
        ax.plot(xs, lo, color="0.35", lw=0.7, zorder=1)
        ax.plot(xs, hi, color="0.35", lw=0.7, zorder=1)
    return True


def plot_run_mrc(sec, w):
    """A run summary's miss-ratio curves (by access, and by byte unless sizes were
    ignored) with the optimal-caching bound as a band, one row of panels per curve group."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter
    groups = {}  # curve group -> policy -> [(x, run)]
    for r in sec["runs"]:
        if r["footprint_bytes"] <= 0:
            continue
        x = r["capacity_bytes"] / r["footprint_bytes"]
        groups.setdefault(r.get("curve") or "", {}).setdefault(r["policy_label"], []).append((x, r))
    groups = {g: p for g, p in list(groups.items())[:6] if any(len({x for x, _ in v}) >= 2 for v in p.values())}
    if not groups:
        return
    blocks = sec.get("size_unit") == "blocks"
    kinds = [False] if blocks else [False, True]
    fig, axes = plt.subplots(len(groups), len(kinds), figsize=(5.6 * len(kinds), 4.2 * len(groups)), squeeze=False)
    banded = False
    for row, (group, by_policy) in enumerate(groups.items()):
        for col, by_byte in enumerate(kinds):
            ax = axes[row][col]
            key = "hit_ratio_by_byte" if by_byte else "hit_ratio_by_access"
            bounds = [(x, r["bound"]) for pts in by_policy.values() for x, r in pts if r.get("bound")]
            banded = draw_bound_band(ax, bounds, by_byte) or banded
            for k, (policy, pts) in enumerate(by_policy.items()):
                pts = sorted(pts, key=lambda p: p[0])
                ax.plot([x for x, _ in pts], [1 - r[key] for _, r in pts], "-o", color=f"C{k % 10}", ms=4,
                        lw=1.3, label=tex_safe(policy), zorder=3)
            kind = "by block" if blocks else ("by byte" if by_byte else "by access")
            ax.set_title(tex_safe(f"{group}: miss ratio {kind}") if group else f"miss ratio {kind}", fontsize=9)
            ax.set_xlabel("capacity / " + ("distinct blocks" if blocks else "footprint"), fontsize=8)
            ax.set_ylabel(f"miss ratio ({kind})", fontsize=8)
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
            ax.set_ylim(0, 1.02)
            ax.set_xlim(left=0)
            ax.grid(True, lw=0.3)
            ax.legend(fontsize=7)
    fig.tight_layout()
    caption = ("Miss ratio (1 − hit ratio) against fast-tier capacity as a share of the footprint, per policy"
               + ("" if blocks else ", by access and by byte") + ".")
    if banded:
        caption += (" Shaded: the optimal policy's miss ratio lies in the band (1 − upper .. 1 − lower bound on the"
                    " optimal hit ratio): no policy falls below it.")
    note = sec.get("bound_note") or ""
    if note:
        caption += " " + note
    w.save(fig, "mrc_runs", f"Miss-ratio curves: {sec.get('scenario', '')}", caption)


def load_hit_ratio(path, section):
    """Section `section` of a report's hit-ratio data: scenario, note, time_unit, runs, panels."""
    sec, runs = load_section_runs(path, section)
    for i, r in enumerate(runs):
        w = f"sections[{section}].runs[{i}]."
        if not isinstance(r, dict):
            raise InputProblem(f"'{path}': key 'sections[{section}].runs[{i}]' is not an object")
        for key in ("start_ns", "end_ns", "hit_ratio"):
            if not _is(r.get(key), "numbers"):
                raise InputProblem(f"'{path}': key '{w}{key}' is not a list of numbers")
        if not len(r["start_ns"]) == len(r["end_ns"]) == len(r["hit_ratio"]):
            raise InputProblem(f"'{path}': keys '{w}start_ns', 'end_ns' and 'hit_ratio' differ in length")
        if not _is(r.get("window_ns"), "number"):
            raise InputProblem(f"'{path}': key '{w}window_ns' is not a number")
    panels = sec.get("panels")
    if not isinstance(panels, list):
        raise InputProblem(f"'{path}': key 'sections[{section}].panels' is missing")
    for i, p in enumerate(panels):
        w = f"sections[{section}].panels[{i}]."
        lines = p.get("lines") if isinstance(p, dict) else None
        if not isinstance(lines, list):
            raise InputProblem(f"'{path}': key '{w}lines' is missing")
        for j, line in enumerate(lines):
            k = line.get("series") if isinstance(line, dict) else None
            if not isinstance(k, int) or not 0 <= k < len(runs) or not isinstance(line.get("label"), str):
                raise InputProblem(f"'{path}': key '{w}lines[{j}]' needs a series (0..{len(runs) - 1}) and a label")
    return sec


TIME_UNITS = {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}


def window_text(ns):
    """A window's width in its human unit: "10 ms", "250 µs"."""
    for unit in ("s", "ms", "µs", "ns"):
        if ns >= TIME_UNITS[unit]:
            return f"{ns / TIME_UNITS[unit]:g} {unit}"
    return f"{ns:g} ns"


def plot_run_hit_ratio(sec, w):
    """A run summary's hit ratio over time: per panel one line per run, y in percent, x
    in the section's time unit at each window's middle, broken where windows were skipped."""
    import textwrap
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter
    panels = [p for p in sec["panels"] if p["lines"]]
    if not panels:
        return
    unit = sec.get("time_unit") if sec.get("time_unit") in TIME_UNITS else "ms"
    scale = TIME_UNITS[unit]
    one = len(panels) == 1
    ncols = 1 if one else 2
    nrows = (len(panels) + ncols - 1) // ncols
    # One colour per label across the panels (a policy keeps its colour from
    # point to point), and one legend below them all: inside, it would hide
    # the lines it names.
    colors = {}
    for p in panels:
        for line in p["lines"]:
            colors.setdefault(line["label"], f"C{len(colors) % 10}")
    legend_cols = 3 if one else 4
    legend_in = 0.3 + 0.2 * ((len(colors) + legend_cols - 1) // legend_cols)
    height = (4.2 if one else 3.7 * nrows) + legend_in
    fig, axes = plt.subplots(nrows, ncols, figsize=(11 if one else 6.6 * ncols, height), squeeze=False)
    flat = [a for row in axes for a in row]
    for a in flat[len(panels):]:
        a.set_visible(False)
    windows = set()
    for ax, panel in zip(flat, panels):
        for line in panel["lines"]:
            r = sec["runs"][line["series"]]
            windows.add(r["window_ns"])
            xs, ys = [], []
            for i, (a, b, h) in enumerate(zip(r["start_ns"], r["end_ns"], r["hit_ratio"])):
                if i > 0 and a > r["end_ns"][i - 1]:  # skipped (empty) windows: break the line
                    xs.append(float("nan"))
                    ys.append(float("nan"))
                xs.append((a + b) / 2 / scale)
                ys.append(100 * h)
            ax.plot(xs, ys, "-", color=colors[line["label"]], lw=1.1, marker="." if len(xs) <= 60 else None, ms=3,
                    label=tex_safe(line["label"]))
        if panel.get("title"):
            ax.set_title("\n".join(textwrap.wrap(tex_safe(panel["title"]), 70)), fontsize=9)
        ax.set_xlabel(f"simulated time ({unit})", fontsize=8)
        ax.set_ylabel("hit ratio", fontsize=8)
        ax.yaxis.set_major_formatter(PercentFormatter(100))
        ax.set_ylim(0, 102)
        ax.set_xlim(left=0)
        ax.grid(True, lw=0.3)
        ax.tick_params(labelsize=8)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=c, lw=1.4, label=tex_safe(label)) for label, c in colors.items()]
    fig.legend(handles=handles, loc="lower center", ncol=min(legend_cols, len(handles)), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, legend_in / height, 1, 1))
    merged = {sec["runs"][line["series"]].get("merged", 1) for p in panels for line in p["lines"]}
    if len(windows) == 1:
        caption = f"Hit ratio (hits / accesses) of each {window_text(min(windows))} window of simulated time"
        if merged != {1}:
            caption += f" (results.h5's {window_text(min(windows) / max(merged))} windows summed by {max(merged)})"
    else:
        caption = "Hit ratio (hits / accesses) per window of simulated time (window widths differ by run)"
    caption += ", one line per run" + ("" if one else "; one panel per sweep point") + \
        ". Windows without accesses are left out (the line breaks there)."
    if sec.get("note"):
        caption += " " + sec["note"]
    w.save(fig, "hit_ratio_runs", f"Hit ratio over time: {sec.get('scenario', '')}", caption)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Plots of a flashsim validation.json (PNG and SVG).")
    ap.add_argument("validation", help="validation.json written by `flashsim validate`")
    ap.add_argument("--out", required=True, help="folder for the figures (created if needed)")
    ap.add_argument("--id-salt", default="", help="prefix of the SVG id salt (figures of several files on one page)")
    ap.add_argument("--section", type=int, default=0,
                    help="with a report's data (FILE-mrc.json, FILE-hit-ratio.json): which run summary to plot")
    args = ap.parse_args(argv)
    try:
        mrc = hit = None
        schema = data_schema(args.validation)
        if schema == MRC_SCHEMA:
            mrc = load_mrc(args.validation, args.section)
        elif schema == HIT_RATIO_SCHEMA:
            hit = load_hit_ratio(args.validation, args.section)
        else:
            doc = load(args.validation)
    except InputProblem as e:
        print(f"plot_validation.py: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except Exception as e:  # ImportError, or a broken install raising anything else
        print(f"plot_validation.py: cannot import matplotlib: {type(e).__name__}: {e}", file=sys.stderr)
        return 3
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: smaller SVGs, no glyph ids to collide
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        print(f"plot_validation.py: cannot create '{args.out}': {e.strerror}", file=sys.stderr)
        return 1
    w = Writer(args.out, args.id_salt)
    if mrc is not None or hit is not None:
        if mrc is not None:
            plot_run_mrc(mrc, w)
        else:
            plot_run_hit_ratio(hit, w)
        w.finish()
        for f in w.manifest:
            print(os.path.join(args.out, f["name"] + ".svg"))
        return 0
    for m in doc["metrics"]:
        if m["gate"] and m["kind"] == "relative":
            plot_parity(doc, m, w)
    plot_error_bars(doc, w)
    plot_mrc(doc, w)
    plot_latency_cdf(doc, w)
    plot_hit_ratio_over_time(doc, w)
    w.finish()
    for f in w.manifest:
        print(os.path.join(args.out, f["name"] + ".svg"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

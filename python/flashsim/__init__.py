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
import tempfile

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
    (default: a new temporary folder). Raises flashsim.InputError on bad input."""
    sets = [_override_text(k, v) for k, v in (overrides or {}).items()]
    sets += [_override_text(k.replace("__", "."), v) for k, v in kwargs.items()]
    out = out or tempfile.mkdtemp(prefix="flashsim-")
    if isinstance(scenario, dict):
        _core.run(json.dumps(scenario), True, sets, out, jobs)
    else:
        scenario = os.fspath(scenario)
        _core.run(scenario, False, sets, out, jobs)
    return Results(out)


def run_trace(trace, policies=("lru",), capacity="10%", engine="cache_only", hardware="h200", format="",
              out=None, jobs=0):
    """Runs one trace without a scenario, as `flashsim run --trace TRACE
    --policies ... --capacity ...` does: every policy at every capacity (more
    than one capacity is a sweep; "10%" of the trace's footprint or "2GiB").
    engine "cache_only" (hit ratios) or "event" (time, on the hardware
    profile). Returns Results; e.g. a miss-ratio curve:

        res = flashsim.run_trace("t.csv", ["lru", "arc"], ["1%", "5%", "10%"])
        res.summary.pivot(index="capacity_bytes", columns="policy", values="hit_ratio_by_access").plot()"""
    policies = [policies] if isinstance(policies, str) else list(policies)
    capacity = [capacity] if isinstance(capacity, str) else [str(c) for c in capacity]
    text = _core.quick_scenario_yaml(os.path.abspath(os.fspath(trace)), format, policies, capacity, engine, hardware)
    out = out or tempfile.mkdtemp(prefix="flashsim-")
    _core.run(text, True, [], out, jobs)
    return Results(out)


class Results:
    """A results folder of `flashsim run` (or of flashsim.run)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        with open(os.path.join(self.path, "summary.json"), encoding="utf-8") as f:
            self._doc = json.load(f)

    @property
    def summary(self):
        """One row per run, one column per metric of the schema (text as str);
        params as a dict column, components left out (see components())."""
        import pandas as pd
        rows = [{k: v for k, v in r.items() if k != "components"} for r in self._doc["runs"]]
        return pd.DataFrame(rows)

    def components(self, run):
        """What each component counted in run `run` (component, name, unit, value)."""
        import pandas as pd
        return pd.DataFrame(self._doc["runs"][run].get("components", []))

    def _group(self, run, sub=None):
        import h5py
        import pandas as pd
        group = _core.timeseries_group_name(run, len(self._doc["runs"]))
        name = f"timeseries/{group}" + (f"/{sub}" if sub else "")
        with h5py.File(os.path.join(self.path, "results.h5"), "r") as f:
            if name not in f:
                raise KeyError(f"{self.path}/results.h5 has no group {name}")
            g = f[name]
            data = {k: g[k][()] for k in g if isinstance(g[k], h5py.Dataset)}
        df = pd.DataFrame(data)
        for col in df.columns:  # text as str, not bytes
            if df[col].dtype == object:
                df[col] = df[col].map(lambda v: v.decode() if isinstance(v, bytes) else v)
        return df

    def timeseries(self, run):
        """Run `run`'s per-window time series (start_ns, hits, stall_ns, ...)."""
        return self._group(run)

    def requests(self, run):
        """Run `run`'s serving requests (ttft_ns, tpot_ns, ...); empty for traces without requests."""
        try:
            return self._group(run, "requests")
        except KeyError:
            import pandas as pd
            return pd.DataFrame()

    def export(self, out, format="csv"):
        """Writes the four tables (summary, timeseries, requests, components;
        the tables `flashsim results export` writes, column for column) into
        the folder `out` as CSV or Parquet (pyarrow), each file written to a
        temp file and renamed. Returns the written paths."""
        from . import export as _export
        if format not in ("csv", "parquet"):
            raise InputError(f"Results.export: format '{format}': expected csv or parquet")
        os.makedirs(out, exist_ok=True)
        if format == "csv":
            manifest = json.loads(_core.export_csv(self.path, os.fspath(out)))
            return [t["file"] for t in manifest["tables"]]
        with tempfile.TemporaryDirectory(prefix="flashsim-export-") as tmp:
            manifest = json.loads(_core.export_csv(self.path, tmp))
            return _export.convert(manifest, os.fspath(out))

    @property
    def replay(self):
        """A replay's per-run hardware facts (one row per run, the /replay
        attributes: decisions, decision_ns_mean/p50/p99/max = host policy
        cost, host_issue_seconds, checksum_mismatches, ...); empty for
        simulator results."""
        import pandas as pd
        return pd.DataFrame(self._doc.get("replay", []))

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


def write_trace(df, path):
    """Writes df (columns time_ns, block_id, bytes; optional op 'r'/'w' or 0/1,
    stream_id) as a canonical HDF5 trace (written to a temporary file and renamed)."""
    cols = {k: df[k].to_numpy() for k in ("time_ns", "block_id", "bytes", "stream_id") if k in df}
    if "op" in df:
        cols["op"] = df["op"].map(lambda v: 1 if v in ("w", 1, True) else 0).to_numpy()
    _core.write_trace(cols, os.fspath(path))


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


_REPLAY_FLAGS = {"no_cache", "replay_gaps", "l2_mode", "verify"}


def _replay_args(options):
    """flashsim.replay's keyword options as `flashsim replay` arguments."""
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if key in _REPLAY_FLAGS:
            if value:
                args.append(flag)
        elif key in ("nvml", "access_log", "l2_window"):
            if not value:
                args.append({"nvml": "--no-nvml", "access_log": "--no-access-log",
                             "l2_window": "--l2-no-window"}[key])
        elif key == "prefetcher_params":
            for k, v in value.items():
                args += ["--prefetcher-param", f"{k}={v}"]
        else:
            args += [flag, str(value)]
    return args


def replay(scenario="builtin:default", overrides=None, out=None, label=None, **options):
    """Replays a scenario on the GPU (`flashsim replay`, in this process, so
    policies and prefetchers registered from Python run there too) and returns
    its Results; Results.replay has the host decision cost per run
    (decision_ns_mean/p50/p99, decisions). scenario and overrides as run();
    out: the results root (default: a new temporary folder), the results go
    to OUT/<scenario name>[-label]. options are the command's: backing=
    "pageable", kernel="gemv", copy_streams=2, run_ahead=8, no_cache=True,
    prefetcher="lookahead", prefetcher_params={...}, replay_gaps=True,
    l2_mode=True, l2_window=False, verify=True, nvml=False, access_log=False,
    device=0, max_accesses=N. Raises flashsim.Error without a GPU or when this
    build has no replay (flashsim._core.have_replay)."""
    import time
    out = os.fspath(out) if out else tempfile.mkdtemp(prefix="flashsim-replay-")
    args = [*(_override_args(overrides)), "--out", out]
    if label:
        args += ["--label", label]
    args += _replay_args(options)
    with tempfile.TemporaryDirectory(prefix="flashsim-scenario-") as tmp:
        if isinstance(scenario, dict):
            path = os.path.join(tmp, "scenario.yaml")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(scenario, f)  # JSON is YAML
            args.insert(0, path)
        elif os.fspath(scenario) != "builtin:default":
            args.insert(0, os.fspath(scenario))
        started = time.time()
        _core.replay(args)
    written = [os.path.join(out, d) for d in sorted(os.listdir(out))
               if os.path.isfile(os.path.join(out, d, "summary.json"))
               and os.path.getmtime(os.path.join(out, d, "summary.json")) >= started - 1]
    if len(written) != 1:
        raise Error(f"flashsim.replay: expected one results folder written under {out}, found {written}")
    return Results(written[0])


def _override_args(overrides):
    args = []
    for k, v in (overrides or {}).items():
        args += ["--set", _override_text(k, v)]
    return args

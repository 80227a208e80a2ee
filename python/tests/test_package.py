"""The Python package against the command's own results: run() returns the
same numbers as summary.json, DataFrames carry text as str, traces round-trip,
and a policy written in Python makes exactly the C++ LRU's decisions."""
import json
import os
import subprocess
import tempfile

import pytest

import flashsim

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TRACE = os.path.join(ROOT, "scenarios", "data", "llama-2048x22.csv")


def quick(policies, capacity="50%", **kw):
    return flashsim.run({"name": "py", "engine": {"impl": "cache_only"},
                         "workload": {"trace": TRACE}, "cache": {"capacity": capacity}, "policies": policies}, **kw)


def test_run_summary_is_the_results_schema(tmp_path):
    res = quick(["lru", "belady_bypass"], out=str(tmp_path / "r"))
    s = res.summary
    assert list(s["policy_label"]) == ["lru", "belady_bypass"]
    assert all(isinstance(v, str) for v in s["policy_label"])
    doc = json.load(open(tmp_path / "r" / "summary.json"))
    assert list(s["hits"]) == [r["hits"] for r in doc["runs"]]
    # A cyclic scan: LRU never hits; belady_bypass reaches 7/8 · C/F by byte (docs/policies.md).
    assert s.loc[0, "hits"] == 0
    assert s.loc[1, "hit_ratio_by_byte"] == pytest.approx(0.4375, abs=0.001)


def test_overrides_as_keywords_and_builtin():
    res = flashsim.run("builtin:default", cache__capacity="25%", policies=["lru", "belady"], sweep={})
    s = res.summary
    assert list(s["policy"]) == ["lru", "belady"]
    assert set(s["capacity_text"]) == {"25%"}
    ts = res.timeseries(0)
    assert {"start_ns", "hits", "stall_ns"} <= set(ts.columns)
    assert ts["accesses"].sum() == s.loc[0, "accesses"]


def test_bad_input_raises_input_error():
    with pytest.raises(flashsim.InputError, match="unknown policy 'nope'"):
        quick(["nope"])
    with pytest.raises(flashsim.InputError):
        flashsim.run("no-such-scenario.yaml")


def test_trace_round_trip(tmp_path):
    df = flashsim.read_trace(TRACE)
    assert len(df) == 1608
    assert set(df["op"]) <= {"r", "w"}
    out = tmp_path / "t.h5"
    flashsim.write_trace(df, out)
    back = flashsim.read_trace(out)
    assert list(back.columns) == list(df.columns)
    for col in df.columns:  # every record field survives, op and phase as text
        assert list(back[col]) == list(df[col]), col
    assert set(df["phase"]) == {"prefill", "decode"} and df["token_index"].nunique() > 1


def test_write_trace_refuses_what_would_change_or_break_the_trace(tmp_path):
    import numpy as np
    import pandas as pd
    good = pd.DataFrame({"time_ns": [0, 10, 20], "block_id": [1, 2, 1], "bytes": [4096] * 3})
    flashsim.write_trace(good, tmp_path / "ok.h5")
    cases = [
        (good.assign(time_ns=[0.0, np.nan, 20.0]), "column 'time_ns', row 1: nan is not an integer"),
        (good.assign(time_ns=[0, 30, 20]), "row 2: time goes backwards"),
        (good.assign(op=["r", "x", "w"]), "column 'op', row 1: 'x'; expected one of \\['r', 'w'\\]"),
        (good.assign(bytes=np.array([4096, 2**64 - 1, 4096], dtype=np.uint64)), "row 1: bytes"),
        (good.assign(block_id=[1, -2, 1]), "column 'block_id', row 1: -2 is outside"),
        (good.assign(stream_id=["a", "b", "c"]), "column 'stream_id' holds text"),
        (good.assign(colour=[1, 2, 3]), "unknown column\\(s\\) \\['colour'\\]"),
        (good.drop(columns="bytes"), "column 'bytes' is missing"),
        ({"time_ns": [0]}, "expected a pandas DataFrame, not dict"),
    ]
    for df, message in cases:
        with pytest.raises(flashsim.InputError, match=message):
            flashsim.write_trace(df, tmp_path / "bad.h5")
    with pytest.raises(flashsim.InputError, match="name it .h5"):
        flashsim.write_trace(good, tmp_path / "t.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.h5"]  # nothing half-written


def test_policies_list_the_registry():
    names = {p["name"]: p for p in flashsim.policies()}
    assert {"lru", "arc", "s3fifo", "lirs", "w_tinylfu"} <= set(names)
    assert [q["name"] for q in names["2q"]["params"]] == ["kin", "kout"]


class PyLru:
    """LRU in Python: the C++ interface's hooks."""

    def __init__(self, capacity_bytes, block_count):
        self.order = {}  # block -> stamp
        self.clock = 0

    def touch(self, b):
        self.clock += 1
        self.order[b] = self.clock

    def on_hit(self, a):
        self.touch(a.block)

    def on_insert(self, a):
        self.touch(a.block)

    def evict(self, now_ns, allows):
        for b, _ in sorted(self.order.items(), key=lambda kv: kv[1]):
            if allows(b):
                del self.order[b]
                return b
        return None

    def remove(self, b):
        self.order.pop(b, None)

    def size(self):
        return len(self.order)


def test_a_python_policy_runs_in_the_simulator_as_the_cpp_lru(tmp_path):
    flashsim.register_policy("py_lru", PyLru, "LRU written in Python (test)")
    with pytest.raises(flashsim.InputError, match="already registered"):
        flashsim.register_policy("py_lru", PyLru)
    assert issubclass(flashsim.InputError, flashsim.Error)
    # A skewed random trace (a block is the smaller of two uniform draws), variable sizes.
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(7)
    n, blocks = 5000, 300
    block = np.minimum(rng.integers(0, blocks, n), rng.integers(0, blocks, n))
    size = (1 + rng.integers(0, 16, blocks)) * 4096
    df = pd.DataFrame({"time_ns": np.arange(n) * 1000, "block_id": block, "bytes": size[block]})
    trace = tmp_path / "skewed.h5"
    flashsim.write_trace(df, trace)
    spec = {"name": "py", "engine": {"impl": "cache_only"},
            "workload": {"trace": str(trace)}, "cache": {"capacity": "20%"}, "policies": ["lru", "py_lru"]}
    s = flashsim.run(spec, jobs=2).summary
    assert s.loc[0, "hits"] > 1000
    for col in ("hits", "misses", "evictions", "bytes_hit", "bypasses"):
        assert s.loc[1, col] == s.loc[0, col], col


def test_run_trace_is_the_command_quick_form(tmp_path):
    """run_trace writes `flashsim run --trace`'s scenario: the same numbers as that
    scenario written by hand, one run per policy and capacity."""
    res = flashsim.run_trace(TRACE, ["lru", "belady"], ["50%", "90%"])
    s = res.summary
    assert list(s["policy"]) == ["lru", "belady", "lru", "belady"]
    assert list(s["capacity_text"]) == ["50%", "50%", "90%", "90%"]
    by_hand = quick(["lru", "belady"], capacity="90%").summary
    assert list(s.loc[2:, "hits"]) == list(by_hand["hits"])
    assert s.loc[2, "hits"] == 0 and s.loc[3, "hits"] > 0  # a cyclic scan: LRU never hits, OPT does
    with pytest.raises(flashsim.InputError, match="--policies"):
        flashsim.run_trace(TRACE, [], "10%")


def test_trace_to_plot_in_three_lines(tmp_path):
    """The README's promise: a trace to a DataFrame and a plot in three lines."""
    import matplotlib
    matplotlib.use("Agg")
    import flashsim as fs  # line 1
    res = fs.run_trace(TRACE, ["lru", "belady"], ["25%", "50%", "90%"])  # line 2
    ax = res.summary.pivot(index="capacity_bytes", columns="policy", values="hit_ratio_by_access").plot()  # line 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["belady", "lru"]
    ax.figure.savefig(tmp_path / "mrc.png")
    assert (tmp_path / "mrc.png").stat().st_size > 1000


def test_results_on_bad_folders_raise_input_errors(tmp_path):
    with pytest.raises(flashsim.InputError, match="is .* a flashsim results folder"):
        flashsim.Results(tmp_path)
    (tmp_path / "summary.json").write_text('{"runs": [')
    with pytest.raises(flashsim.InputError, match="summary.json: not JSON"):
        flashsim.Results(tmp_path)
    (tmp_path / "summary.json").write_text('{"runs": "x"}')
    with pytest.raises(flashsim.InputError, match="key 'runs' is not a list of runs"):
        flashsim.Results(tmp_path)
    res = quick(["lru"], out=str(tmp_path / "r"))
    for bad in (-1, 1, "0", True):
        with pytest.raises(flashsim.InputError, match="no run"):
            res.components(bad)
    with pytest.raises(flashsim.InputError, match="no run 7"):
        res.requests(7)
    with open(tmp_path / "r" / "results.h5", "r+b") as f:  # truncated
        f.truncate(100)
    with pytest.raises(flashsim.InputError, match="results.h5: cannot read"):
        res.timeseries(0)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(flashsim.Error, match="cannot write into"):
        res.export(blocker / "sub")


def test_run_trace_splits_comma_lists():
    s = flashsim.run_trace(TRACE, "lru, belady", "50%,90%").summary
    assert list(s["policy"]) == ["lru", "belady", "lru", "belady"]
    with pytest.raises(flashsim.InputError, match="expected a str"):
        flashsim.run_trace(TRACE, None)


def test_temporary_results_go_with_their_object(tmp_path, monkeypatch):
    import gc
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this test's own temp folder
    res = quick(["lru"])
    assert os.path.dirname(res.path) == str(tmp_path)
    path = res.path
    assert os.path.isfile(os.path.join(path, "summary.json"))
    del res
    gc.collect()
    assert not os.path.exists(path)
    with pytest.raises(flashsim.InputError):
        quick(["nope"])
    assert os.listdir(tmp_path) == []  # a failed run leaves no folder

"""Components written in Python: a prefetcher and a parametrised policy make
exactly the decisions of their C++ counterparts; their parameters are typed
and checked like C++ ones; misuse raises flashsim errors instead of crashing;
the GPU replay is reachable from Python (and says so when it cannot run)."""
import os
import shutil
import subprocess

import pytest

import flashsim
from test_package import PyLru

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MOE = os.path.join(ROOT, "scenarios", "examples", "mixtral-mini-experts.yaml")
TRACE = os.path.join(ROOT, "scenarios", "data", "llama-2048x22.csv")


class PyLookahead:
    """lookahead's operator rule (sim/prefetch/impl/lookahead.cpp) with byte_budget 0:
    entering an operator prefetches the absent non-routed blocks of the next `depth`."""

    def __init__(self, ctx, depth=2):
        self.ops = [op.blocks for op in ctx.operators]
        self.known = {e.id for e in ctx.catalog}
        self.depth = depth
        self.last = {}

    def on_access(self, a, view, actions):
        n = len(self.ops)
        if a.operator_id >= n or self.last.get(a.stream_id) == a.operator_id:
            return
        self.last[a.stream_id] = a.operator_id
        op = a.operator_id
        for _ in range(min(self.depth, n)):
            op = (op + 1) % n
            for b in self.ops[op]:
                if b in self.known and view.state(b) == "absent":
                    actions.prefetch(b)


flashsim.register_prefetcher("py_lookahead", PyLookahead, "lookahead in Python (test)", params={"depth": 2})


def test_python_prefetcher_equals_the_cpp_lookahead():
    names = {p["name"]: p for p in flashsim.prefetchers()}
    assert names["py_lookahead"]["params"][0]["type"] == "integer"
    rows = []
    for impl in ("lookahead", "py_lookahead"):
        s = flashsim.run(MOE, policies=[{"impl": "lru", "prefetch": [{"impl": impl, "depth": 3}]}]).summary
        rows.append(s.iloc[0])
    cpp, py = rows
    assert cpp["prefetches"] > 1000  # the rule does something on this model
    for col in ("hits", "misses", "stall_ns", "simulated_ns", "prefetches", "prefetch_used_timely",
                "prefetch_used_late", "prefetch_unused", "bytes_prefetched", "evictions"):
        assert py[col] == cpp[col], col


def test_prefetcher_parameters_are_typed_and_checked():
    with pytest.raises(flashsim.InputError, match="depth"):
        flashsim.run(MOE, policies=[{"impl": "lru", "prefetch": [{"impl": "py_lookahead", "depth": "far"}]}])
    with pytest.raises(flashsim.InputError, match="py_lookahead.*nope|nope"):
        flashsim.run(MOE, policies=[{"impl": "lru", "prefetch": [{"impl": "py_lookahead", "nope": 1}]}])
    with pytest.raises(flashsim.InputError, match="'bad'.*must be bool, int, float or str, not list"):
        flashsim.register_prefetcher("py_bad_param", PyLookahead, params={"bad": [1]})


class Keeper:
    """Keeps the view past its call; counts previews; raises when told to."""
    kept = None
    last = None
    wants_preview = True

    def __init__(self, ctx, fail=False):
        self.fail, self.previews = fail, 0
        Keeper.last = self

    def preview(self, record, access_index):
        assert record.op in ("r", "w") and access_index == self.previews
        self.previews += 1

    def on_access(self, a, view, actions):
        Keeper.kept = (view, actions)
        assert a.outcome in ("hit", "delayed_hit", "miss")
        assert view.capacity_bytes() > 0
        if self.fail:
            raise ValueError("told to fail")


flashsim.register_prefetcher("py_keeper", Keeper, params={"fail": False})


def test_misuse_raises_instead_of_crashing():
    spec = {"name": "k", "engine": {"impl": "event"}, "hardware": {"profile": "seed-defaults"},
            "workload": {"trace": TRACE}, "cache": {"capacity": "50%"},
            "policies": [{"impl": "lru", "prefetch": ["py_keeper"]}]}
    s = flashsim.run(spec).summary
    assert Keeper.last.previews == s.loc[0, "accesses"] == 1608
    view, actions = Keeper.kept
    with pytest.raises(flashsim.Error, match="outside the on_access call"):
        view.state(0)
    with pytest.raises(flashsim.Error, match="outside the on_access call"):
        actions.prefetch(0)
    spec["policies"] = [{"impl": "lru", "prefetch": [{"impl": "py_keeper", "fail": True}]}]
    with pytest.raises(flashsim.Error, match="python prefetcher 'py_keeper'.*told to fail"):
        flashsim.run(spec)


class PyQueue(PyLru):
    """LRU or FIFO by parameter: FIFO ignores hits."""

    def __init__(self, capacity_bytes, block_count, order="lru"):
        super().__init__(capacity_bytes, block_count)
        self.mode = order

    def on_hit(self, a):
        if self.mode == "lru":
            self.touch(a.block)


flashsim.register_policy("py_queue", PyQueue, params={"order": "lru"})


def test_policy_parameters_reach_the_factory(tmp_path):
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(11)
    n, blocks = 4000, 200
    block = np.minimum(rng.integers(0, blocks, n), rng.integers(0, blocks, n))
    df = pd.DataFrame({"time_ns": np.arange(n) * 1000, "block_id": block, "bytes": 4096})
    flashsim.write_trace(df, tmp_path / "t.h5")
    spec = {"name": "q", "engine": {"impl": "cache_only"},
            "workload": {"trace": str(tmp_path / "t.h5")}, "cache": {"capacity": "20%"},
            "policies": ["fifo", {"impl": "py_queue", "order": "fifo"}, "lru", "py_queue"]}
    s = flashsim.run(spec).summary
    assert s.loc[0, "hits"] != s.loc[2, "hits"]  # the trace tells FIFO from LRU
    for col in ("hits", "misses", "evictions"):
        assert s.loc[1, col] == s.loc[0, col], col
        assert s.loc[3, col] == s.loc[2, col], col


def _gpu_present():
    return shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0


@pytest.mark.skipif(not flashsim._core.have_replay, reason="this build has no GPU replay (no CUDA toolkit)")
@pytest.mark.skipif(_gpu_present(), reason="a GPU is present: tests/gpu runs the replay itself")
def test_replay_without_a_gpu_says_so(tmp_path):
    with pytest.raises(flashsim.Error, match="no CUDA device visible"):
        flashsim.replay({"name": "r", "engine": {"impl": "event"}, "hardware": {"profile": "h200"},
                         "workload": {"trace": TRACE}, "cache": {"capacity": "50%"}, "policies": ["lru"]},
                        out=tmp_path)


class KeepsAllows(PyLru):
    """Keeps evict()'s allows, or returns what it is told to."""
    kept = []

    def __init__(self, capacity_bytes, block_count, returns="block"):
        super().__init__(capacity_bytes, block_count)
        self.returns = returns

    def evict(self, now_ns, allows):
        KeepsAllows.kept.append(allows)
        victim = super().evict(now_ns, allows)
        return {"block": victim, "true": True, "text": "abc", "negative": -1}[self.returns]


flashsim.register_policy("py_keeps_allows", KeepsAllows, params={"returns": "block"})


def test_policy_misuse_raises_instead_of_crashing():
    spec = {"name": "a", "engine": {"impl": "cache_only"},
            "workload": {"trace": TRACE}, "cache": {"capacity": "50%"}, "policies": ["py_keeps_allows"]}
    assert flashsim.run(spec).summary.loc[0, "evictions"] > 0
    with pytest.raises(flashsim.Error, match="allows\\(\\) used outside the evict call"):
        KeepsAllows.kept[0](0)
    for returns, shown in (("true", "True"), ("text", "'abc'"), ("negative", "-1")):
        spec["policies"] = [{"impl": "py_keeps_allows", "returns": returns}]
        with pytest.raises(flashsim.Error, match=f"py_keeps_allows': evict\\(\\) returned {shown}, expected"):
            flashsim.run(spec)


def test_registration_checks_names_params_and_factories():
    for name in ("", "a b", "lru,arc", "9lives"):
        with pytest.raises(flashsim.InputError, match="expected letters, digits and '_'"):
            flashsim.register_policy(name, PyLru)
    with pytest.raises(flashsim.InputError, match="parameter 'impl' is a key of every scenario entry"):
        flashsim.register_policy("py_reserved", PyLru, params={"impl": 1})
    with pytest.raises(flashsim.InputError, match="parameter name 1: expected a str"):
        flashsim.register_policy("py_intkey", PyLru, params={1: 2})
    with pytest.raises(flashsim.InputError, match="does not fit in 64 bits"):
        flashsim.register_prefetcher("py_huge", PyLookahead, params={"depth": 2**70})
    with pytest.raises(flashsim.InputError, match="not callable"):
        flashsim.register_policy("py_not_callable", 3)
    assert "py_reserved" not in {p["name"] for p in flashsim.policies()}


def test_error_messages_keep_undecodable_bytes(tmp_path):
    """An error quoting input bytes that are not UTF-8 keeps its text (\\xNN), never empty."""
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(b"time_ns,block_id,bytes\n1,2,\xe9\xff\n")
    with pytest.raises(flashsim.InputError) as e:
        flashsim.read_trace(bad)
    assert "latin1.csv" in str(e.value) and "\\x" in str(e.value)

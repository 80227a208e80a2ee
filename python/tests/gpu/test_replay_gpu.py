"""Python components on the GPU (ctest python_replay_gpu, label gpu): a
policy written in Python drives `flashsim replay` in-process and makes the
C++ LRU's decisions there (demand decisions without prefetch do not depend
on timing), and the replay reports its host decision cost beside the C++
policy's. Skips without a GPU."""
import os
import shutil
import subprocess
import sys

import pytest

import flashsim

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from test_package import PyLru  # noqa: E402  (the same LRU the simulator test checks)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _gpu_present():
    return shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0


pytestmark = [
    pytest.mark.skipif(not flashsim._core.have_replay, reason="this build has no GPU replay (no CUDA toolkit)"),
    pytest.mark.skipif(not _gpu_present(), reason="no GPU"),
]


def test_python_policy_replays_as_the_cpp_lru(tmp_path):
    import numpy as np
    import pandas as pd
    flashsim.register_policy("py_lru_gpu", PyLru, "LRU written in Python (GPU test)")
    rng = np.random.default_rng(7)
    n, blocks = 20000, 400
    block = np.minimum(rng.integers(0, blocks, n), rng.integers(0, blocks, n))
    size = (1 + rng.integers(0, 16, blocks)) * 65536
    df = pd.DataFrame({"time_ns": np.arange(n) * 1000, "block_id": block, "bytes": size[block]})
    flashsim.write_trace(df, tmp_path / "skewed.h5")
    spec = {"name": "pyreplay", "engine": {"impl": "event"}, "hardware": {"profile": "h200"},
            "workload": {"trace": str(tmp_path / "skewed.h5")}, "cache": {"capacity": "20%"},
            "policies": ["lru", "py_lru_gpu"]}
    hw = flashsim.replay(spec, out=tmp_path / "replay", nvml=False, access_log=False)
    s, cost = hw.summary, hw.replay
    assert len(s) == 2 and s.loc[0, "hits"] > 1000
    # Not the cache-only simulator's counts: the replay holds blocks in use
    # while kernels read them and places variable sizes in slots.
    for col in ("hits", "misses", "evictions", "bytes_hit"):
        assert s.loc[1, col] == s.loc[0, col], col
    assert list(cost["decisions"]) == [n, n]
    assert (cost["checksum_mismatches"] == 0).all()
    assert (cost["decision_ns_mean"] > 0).all()
    out = os.environ.get("FLASHSIM_TEST_REPORT")
    if out:  # the device script keeps the measured host cost
        cost.assign(policy=s["policy_label"]).to_csv(out, index=False)

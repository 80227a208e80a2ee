"""Python components in the GPU replay, timed (tools/device/python_replay_h200.sh).

The mini Mixtral (scenarios/examples/mixtral-mini-experts.yaml) replayed on
the GPU with LRU and LRU + lookahead(depth 3), each as the C++ component and
as its Python twin (python/tests: PyLru, PyLookahead), the first 20,000
accesses: one warm-up replay, then 5 repeats. Per run: hits, the host
decision cost (decision_ns mean/p50/p99 per access), the host issue loop's
wall time and the GPU time. Writes OUT/python_replay.csv and prints
medians with their spread (min..max)."""
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", ".."))
sys.path.insert(0, os.path.join(root, "python", "tests"))
import flashsim  # noqa: E402
from test_components import PyLookahead  # noqa: E402,F401  (registers py_lookahead)
from test_package import PyLru  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp"
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
flashsim.register_policy("py_lru", PyLru, "LRU in Python")
scenario = os.path.join(root, "scenarios", "examples", "mixtral-mini-experts.yaml")
policies = ["lru", "py_lru",
            {"impl": "lru", "prefetch": [{"impl": "lookahead", "depth": 3}]},
            {"impl": "lru", "prefetch": [{"impl": "py_lookahead", "depth": 3}]}]
rows = []
for rep in range(repeats + 1):  # 0 = warm-up, not kept
    res = flashsim.replay(scenario, overrides={"policies": policies}, out=f"/tmp/pyreplay-{rep}",
                          nvml=False, access_log=False, max_accesses=20000)
    s, r = res.summary, res.replay
    if rep == 0:
        continue
    for i in range(len(s)):
        rows.append({"repeat": rep, "policy": s.loc[i, "policy_label"], "hits": int(s.loc[i, "hits"]),
                     "prefetches": int(s.loc[i, "prefetches"]), "decisions": int(r.loc[i, "decisions"]),
                     "decision_ns_mean": float(r.loc[i, "decision_ns_mean"]),
                     "decision_ns_p50": float(r.loc[i, "decision_ns_p50"]),
                     "decision_ns_p99": float(r.loc[i, "decision_ns_p99"]),
                     "host_issue_s": float(r.loc[i, "host_issue_seconds"]),
                     "simulated_ns": int(s.loc[i, "simulated_ns"]),
                     "checksum_mismatches": int(r.loc[i, "checksum_mismatches"])})
import pandas as pd  # noqa: E402
df = pd.DataFrame(rows)
df.to_csv(os.path.join(out, "python_replay.csv"), index=False)
for policy, g in df.groupby("policy", sort=False):
    def band(col, scale=1.0):
        v = [x / scale for x in g[col]]
        return f"{statistics.median(v):.3g} ({min(v):.3g}..{max(v):.3g})"
    print(f"{policy:28s} hits {sorted(set(g['hits']))} prefetches {sorted(set(g['prefetches']))} "
          f"decision ns/access {band('decision_ns_mean')} p99 {band('decision_ns_p99')} "
          f"host issue s {band('host_issue_s')} GPU ms {band('simulated_ns', 1e6)}")

#!/usr/bin/env python3
"""The Mixtral-8x7B expert-cache table of docs/experiments.md from a run's
summary.json and `flashsim trace bound --json` of the same trace:

  flashsim run scenarios/experiments/mixtral-8x7b-experts.yaml --jobs 1
  flashsim workload generate mixtral-8x7b --out mt.h5 -p preset=short -p granularity=tensor
  flashsim trace bound mt.h5 -c BYTES --json > bound.json   # BYTES: the runs' capacity_bytes
  tools/moe_table.py flashsim-results/exp-mixtral-8x7b-experts/summary.json bound.json

Expert hit ratio: the fast tier's expert_hits / expert_accesses (components
of tier.hbm: accesses of blocks named "...experts.N...")."""
import json
import sys


def component(run, name):
    for c in run["components"]:
        if c["component"].startswith("tier.") and c["name"] == name:
            return c["value"]
    return None


def main(summary_path, bound_path):
    runs = json.load(open(summary_path))["runs"]
    bound = json.load(open(bound_path))["bounds"][0]
    print("| policy | hit ratio by access | hit ratio by byte | expert hit ratio | TPOT mean (ms) | tokens/s | prefetch accuracy / coverage |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in runs:
        acc, hits = component(r, "expert_accesses"), component(r, "expert_hits")
        expert = f"{100 * hits / acc:.1f}%" if acc else "—"
        pf = (f"{100 * r['prefetch_accuracy']:.0f}% / {100 * r['prefetch_coverage']:.0f}%"
              if r["prefetches"] else "—")
        print(f"| {r['policy_label']} | {100 * r['hit_ratio_by_access']:.1f}% | {100 * r['hit_ratio_by_byte']:.1f}% "
              f"| {expert} | {r['tpot_mean_ns'] / 1e6:.0f} | {r['tokens_per_second']:.1f} | {pf} |")
    if bound["capacity_bytes"] != runs[0]["capacity_bytes"]:
        sys.exit(f"{bound_path}: bound at {bound['capacity_bytes']} B, runs at {runs[0]['capacity_bytes']} B")
    print(f"| optimal, {bound['method']} (lower .. upper) | {100 * bound['hit_ratio_by_access_lower']:.1f} .. "
          f"{100 * bound['hit_ratio_by_access_upper']:.1f}% | {100 * bound['hit_ratio_by_byte_lower']:.1f} .. "
          f"{100 * bound['hit_ratio_by_byte_upper']:.1f}% | — | — | — | — |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])

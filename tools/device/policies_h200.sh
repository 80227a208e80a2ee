#!/usr/bin/env bash
# Issue 15 on the H200, one device call: every registered policy in the GPU
# replay (DemandOnlyEquivalence: the replay's hit/miss sequence equals the
# simulator's and device memory's, for each policy of the registry), and the
# expert-cache scenario simulated and replayed (the model-aware policies,
# the expert caches and the speculative
# prefetcher run as the same objects on the GPU) on a Mixtral at 1/4 width
# and 8 layers (1.5 GB): the full Mixtral's replay, with its 94 GB backing
# store, had not finished its first 20,000 accesses after 240 s. Logs and
# summaries under $OUT.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/policies-h200}; mkdir -p "$out"; start=$(date +%s)
source tools/device/build_dev.sh flashsim test_gpu
timeout 240 build-dev/bin/test_gpu --gtest_filter='Policies/DemandOnlyEquivalence.*:ReplayGpu.*' > "$out/test_gpu.log" 2>&1
echo "test_gpu rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\[  (PASSED|FAILED) |tests? from .* ran|FAILED  \]" "$out/test_gpu.log" | tail -30
F=build-dev/bin/flashsim
S=scenarios/examples/mixtral-mini-experts.yaml
timeout 120 $F run $S --jobs 4 --out /tmp/mini-sim --no-progress > "$out/mini_sim.log" 2>&1; echo "sim rc=$?"
cp /tmp/mini-sim/summary.json "$out/mini_sim_summary.json"
timeout 300 $F replay --out /tmp/mini-replay $S --no-access-log > "$out/mini_replay.log" 2>&1
echo "replay rc=$? at $(( $(date +%s) - start )) s"
for f in /tmp/mini-replay/*/summary.json; do cp "$f" "$out/mini_replay_summary.json"; done
tail -20 "$out/mini_replay.log"

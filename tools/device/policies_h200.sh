#!/usr/bin/env bash
# Issue 15 on the H200, one device call: every registered policy in the GPU
# replay (DemandOnlyEquivalence: the replay's hit/miss sequence equals the
# simulator's and device memory's, for each policy of the registry), and the
# Mixtral-8x7B expert-cache scenario replayed on its first accesses (the
# model-aware policies, the admission-free expert caches and the speculative
# prefetcher run as the same objects on the GPU). Logs and summaries under $OUT.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/policies-h200}; mkdir -p "$out"; start=$(date +%s)
source tools/device/build_dev.sh flashsim test_gpu
timeout 240 build-dev/bin/test_gpu --gtest_filter='Policies/DemandOnlyEquivalence.*:ReplayGpu.*' > "$out/test_gpu.log" 2>&1
echo "test_gpu rc=$? at $(( $(date +%s) - start )) s"
grep -E "^\[  (PASSED|FAILED) |tests? from .* ran|FAILED  \]" "$out/test_gpu.log" | tail -30
F=build-dev/bin/flashsim
timeout 240 $F replay --out /tmp/moe-replay scenarios/experiments/mixtral-8x7b-experts.yaml --max-accesses ${MAX_ACCESSES:-20000} \
  --no-access-log > "$out/moe_replay.log" 2>&1
echo "replay rc=$? at $(( $(date +%s) - start )) s"
for f in /tmp/moe-replay/*/summary.json; do cp "$f" "$out/moe_replay_summary.json"; done
tail -25 "$out/moe_replay.log"

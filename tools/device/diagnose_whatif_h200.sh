#!/usr/bin/env bash
# One device call: build, the diagnose GPU tests, and the measurement of
# diagnose's pinned lever on accelerate cpu_offload (predictions in
# validate/programs/predictions/README.md, committed first): the program
# timed uncaptured, pageable and --pin-memory (warm-up 2, 5 repeats x 8
# steps), then diagnosed live pinned. Usage: tools/device/diagnose_whatif_h200.sh
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
out="${OUT:?OUT must name the folder that comes back}"
. tools/device/build_dev.sh flashsim flashsim_capture flashsim_copy_bound test_gpu
F=build-dev/bin/flashsim
timeout 200 build-dev/bin/test_gpu --gtest_filter='Diagnose*' > "$out/test_gpu.log" 2>&1; echo "diagnose gpu tests: exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|OK \]|FAILED \]|Failure|Which is|Expected" "$out/test_gpu.log" | head -30
P=validate/programs/accel_cpu_offload_llama.py
for mode in pageable pinned; do
  opt=(); [ $mode = pinned ] && opt=(--pin-memory)
  timeout 150 python3 $P "${opt[@]}" --repeats 5 --out "$out/accel_llama.$mode.timing.json" > "$out/accel_llama.$mode.log" 2>&1
  echo "timed $mode: exit $? [$(( $(date +%s) - start )) s]"; tail -1 "$out/accel_llama.$mode.log"
done
timeout 150 $F diagnose --skip-steps 2 --policies lru,belady --json "$out/accel_llama_pinned.diagnose.json" -- \
  python3 $P --pin-memory --warmup 1 --steps 6 --repeats 1 > "$out/accel_llama_pinned.diagnose.txt" 2>&1
echo "diagnose pinned: exit $?"; grep -v "^  tier:" "$out/accel_llama_pinned.diagnose.txt" | tail -30
echo "[$(( $(date +%s) - start )) s] done"

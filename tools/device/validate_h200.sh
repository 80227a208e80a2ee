#!/usr/bin/env bash
# One device call (H200): build, the GPU tests, then record the validation
# suite's baseline: `flashsim validate validate/h200.yaml --record` replays
# every entry 5 times (medians and spread, device identity, the calibrated
# profile and COMMIT as provenance) and compares with the simulator, under
# the calibrated profile (the fit comes after, from the committed baseline). Logs and the baseline go under $OUT.
#   COMMIT=$(git rev-parse HEAD) bash tools/device/validate_h200.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/validate-h200}; mkdir -p "$OUT"
: "${COMMIT:?set COMMIT to the 40-hex-digit commit of this tree}"
T0=$(date +%s); stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem --format=csv

stamp build
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$OUT/build.log" 2>&1
cmake --build build-dev -j16 -- -k 0 >> "$OUT/build.log" 2>&1; echo "build rc=$?"
grep -E "error|warning:|FAILED" "$OUT/build.log" | head -20
F=build-dev/bin/flashsim

stamp gpu-tests
timeout 300 build-dev/bin/test_gpu > "$OUT/test_gpu.log" 2>&1; echo "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" "$OUT/test_gpu.log" | head -30

stamp validate-record
timeout ${VALIDATE_TIMEOUT:-420} $F validate validate/h200.yaml --record --commit "$COMMIT" --jobs 16 \
  --profile scenarios/hardware/h200-calibrated.yaml \
  --out "$OUT" > "$OUT/validate-record.log" 2> "$OUT/validate-progress.log"; echo "validate rc=$?"
cp validate/baselines/h200/h200.json "$OUT/h200.json" 2>/dev/null && echo "baseline copied"
sed -n '/^across the suite/,$p' "$OUT/validate-record.log"
tail -3 "$OUT/validate-progress.log"
stamp done

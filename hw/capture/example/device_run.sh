#!/usr/bin/env bash
# The capture issue's GPU batch, in one call of the device tool (H200):
# build, the gpu-labelled capture tests, the worked example with and without
# capture (wall time of each), and the simulator on the captured trace.
# Writes logs and the captured trace under $OUT (at most 8 files).
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/capture-out}
mkdir -p "$OUT"
log() { echo "== $*"; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t=$(now)
cmake -S . -B build-dev -G Ninja -DFLASHSIM_WERROR=ON >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
cmake --build build-dev -j16 --target flashsim flashsim_capture flashsim_known_sequence test_gpu -- -k 0 \
  >>"$OUT/build.log" 2>&1 || grep -E "error|FAILED" -A4 "$OUT/build.log" | head -60
log "build: $(elapsed "$t" "$(now)") s"
B=build-dev/bin
ls "$B"

if [ -x "$B/test_gpu" ]; then
  log "capture gpu tests"
  "$B/test_gpu" --gtest_filter='Capture*' 2>&1 | tail -25
fi

log "worked example, no capture"
t=$(now)
python3 tools/examples/offload_stream.py "$@"
log "wall (no capture): $(elapsed "$t" "$(now)") s"

log "worked example, under flashsim capture"
t=$(now)
"$B/flashsim" capture --out "$OUT/offload.h5" --events "$OUT/offload_events.csv" -- \
  python3 tools/examples/offload_stream.py "$@"
rc=$?
log "wall (capture, incl. conversion): $(elapsed "$t" "$(now)") s; exit $rc"

log "worked example, no capture (again)"
t=$(now)
python3 tools/examples/offload_stream.py "$@"
log "wall (no capture, 2nd): $(elapsed "$t" "$(now)") s"

if [ -f "$OUT/offload.h5" ]; then
  "$B/flashsim" trace stats "$OUT/offload.h5" 2>&1 | head -30
  "$B/flashsim" run hw/capture/example/offload_scenario.yaml --out /tmp/run-capture \
    --set workload.trace="$OUT/offload.h5" >"$OUT/run.log" 2>&1
  log "flashsim run: exit $?"
  tail -30 "$OUT/run.log"
  cp /tmp/run-capture/summary.json "$OUT/run_summary.json" 2>/dev/null
fi

#!/usr/bin/env bash
# One device call for the two measurements the real-program suite's misses
# asked for (VALIDATION.md, "What the model still misses" 1 and 2):
#  1. pageable D2H into freshly mapped host memory (calibrate --only copies:
#     pageable_d2h_fresh_points beside the touched-buffer curve);
#  2. the capture's per-call host cost: the execution group's API loops
#     timed without capture and again under `flashsim capture` (same binary,
#     same session); the difference per call is what CUPTI adds. Three
#     alternating pairs, for a spread.
# Usage on the device machine, from the repo root: tools/device/execution_extras_h200.sh
set -u
start=$(date +%s)
out="${OUT:?OUT must name the folder that comes back}"
. tools/device/build_dev.sh flashsim flashsim_capture
fs=build-dev/bin/flashsim
timeout 200 $fs calibrate --only copies --out "$out/copies.yaml" > "$out/copies.log" 2>&1
echo "copies: exit $? ($(( $(date +%s) - start )) s)"
for i in 1 2 3; do
  timeout 90 $fs calibrate --only execution --out "$out/exec_plain_$i.yaml" > "$out/exec_plain_$i.log" 2>&1
  echo "execution plain $i: exit $? ($(( $(date +%s) - start )) s)"
  timeout 120 $fs capture --out "/tmp/cap_$i.h5" -- $fs calibrate --only execution --out "$out/exec_captured_$i.yaml" \
    > "$out/exec_captured_$i.log" 2>&1
  echo "execution captured $i: exit $? ($(( $(date +%s) - start )) s)"
done
cd "$out" || exit 1
tar -cf - exec_plain_* exec_captured_* | xz -T16 -6 > execution.tar.xz && rm -f exec_plain_* exec_captured_*
ls -la "$out"

#!/usr/bin/env bash
# One device call: the run-ahead-8 replay as a program of the real-program
# suite (validate/programs/scenarios/replay_runahead8.yaml). Six replays
# without capture (the first a warm-up), then one under `flashsim capture`;
# each replay's summary.json comes back, and the capture as a trace.
# Usage on the device machine, from the repo root: tools/device/replay_program_h200.sh
set -u
start=$(date +%s)
out="${OUT:?OUT must name the folder that comes back}"
. tools/device/build_dev.sh flashsim flashsim_capture
fs=build-dev/bin/flashsim
s=validate/programs/scenarios/replay_runahead8.yaml
mkdir -p "$out/r"
for i in 0 1 2 3 4 5; do
  timeout 60 $fs replay "$s" --no-cache --run-ahead 8 --no-nvml --out "/tmp/replay_$i" > "$out/r/replay_$i.log" 2>&1
  echo "replay $i: exit $? ($(( $(date +%s) - start )) s)"
  cp /tmp/replay_$i/replay_runahead8/summary.json "$out/r/replay_$i.summary.json" 2>/dev/null
done
timeout 120 $fs capture --out "$out/r/replay_runahead8.h5" -- $fs replay "$s" --no-cache --run-ahead 8 --no-nvml \
  --out /tmp/replay_captured > "$out/r/captured.log" 2>&1
echo "captured: exit $? ($(( $(date +%s) - start )) s)"
cp /tmp/replay_captured/replay_runahead8/summary.json "$out/r/captured.summary.json" 2>/dev/null
cd "$out" && tar -cf - r | xz -T16 -6 > replay_program.tar.xz && rm -rf r && ls -la

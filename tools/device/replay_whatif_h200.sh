#!/usr/bin/env bash
# One device call: the fast-tier what-ifs of validate/programs/predictions/
# (README, "A fast tier in the run-ahead-8 replay"), measured after their
# predictions were committed: `flashsim replay` of the replay_runahead8
# scenario with a 50% tier under Belady and LRU, run-ahead 8, six runs each
# (the first a warm-up); each summary.json comes back.
set -u
start=$(date +%s)
out="${OUT:?OUT must name the folder that comes back}"
. tools/device/build_dev.sh flashsim
fs=build-dev/bin/flashsim
s=validate/programs/scenarios/replay_runahead8.yaml
mkdir -p "$out/w"
for pol in belady lru; do
  for i in 0 1 2 3 4 5; do
    timeout 60 $fs replay "$s" --set policies.0.impl=$pol --run-ahead 8 --no-nvml --out "/tmp/w_${pol}_$i" \
      > "$out/w/${pol}_$i.log" 2>&1
    echo "$pol $i: exit $? ($(( $(date +%s) - start )) s)"
    cp /tmp/w_${pol}_$i/replay_runahead8/summary.json "$out/w/${pol}_$i.summary.json" 2>/dev/null
  done
done
cd "$out" && tar -cf - w | xz -T16 -6 > whatif.tar.xz && rm -rf w && ls -la

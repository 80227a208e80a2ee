#!/usr/bin/env bash
# Issue 25 on the H200, one device call: the gpu_replay engine registered
# beside the simulator's (flashsim replay a front end of flashsim run). Builds
# flashsim, flashsim-hw and test_gpu; runs the GPU tests; replays the
# default scenario and the tiny decode scenario (pinned and pageable) with
# `flashsim replay`, the same through `flashsim run` with the engine named in
# --set, and through flashsim-hw; prints each run's replay components and
# the timeline of one run. Everything under $OUT.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/gpu-replay-engine}; mkdir -p "$out"; start=$(date +%s)
source tools/device/build_dev.sh flashsim flashsim-hw test_gpu
F=build-dev/bin/flashsim
timeout 330 ctest --test-dir build-dev -L gpu --output-on-failure -j4 > "$out/ctest_gpu.log" 2>&1
echo "ctest -L gpu rc=$? at $(( $(date +%s) - start )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest_gpu.log" | head -30
timeout 60 $F replay --out "$out/replay" > "$out/replay_default.log" 2>&1
echo "replay default rc=$?"; tail -12 "$out/replay_default.log"
for b in pinned pageable; do
  timeout 60 $F replay validate/scenarios/decode-tiny.yaml --backing $b --label $b --out "$out/replay" > "$out/replay_tiny_$b.log" 2>&1
  echo "replay tiny $b rc=$?"; tail -6 "$out/replay_tiny_$b.log"
done
timeout 60 $F run validate/scenarios/decode-tiny.yaml --set 'engine={impl: gpu_replay, backing: pageable, nvml: false}' \
  --out "$out/run_engine" -q > "$out/run_engine.log" 2>&1
echo "run with engine gpu_replay rc=$?"; tail -6 "$out/run_engine.log"
timeout 60 build-dev/bin/flashsim-hw replay validate/scenarios/decode-tiny.yaml --out "$out/hw" --no-nvml > "$out/hw.log" 2>&1
echo "flashsim-hw replay rc=$?"; tail -4 "$out/hw.log"
for d in "$out"/replay/* "$out/run_engine"; do
  python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]; s = json.load(open(d + "/summary.json"))
for r in s["runs"]:
    c = {x["component"] + "." + x["name"]: x["value"] for x in r["components"] if x["component"] in ("replay", "device")}
    t = {x["component"] + "." + x["name"]: x["text"] for x in r.get("component_texts", [])}
    print(d.split("/")[-1], r["run"], r["engine"], r["policy_label"], r["capacity_text"], "hits", r["hits"], "misses", r["misses"],
          "sim_ns", r["simulated_ns"], "dec_ns", round(c.get("replay.decision_ns_mean", -1)), "tok_ms",
          round(c.get("replay.decode_token_ns", 0) / 1e6, 3), "checks", c.get("replay.checksum_mismatches"), c.get("replay.resident_mismatches"),
          t.get("replay.access_log"), t.get("device.name"), t.get("device.uuid"))
PY
done
first=$(ls -d "$out"/replay/* | head -1)
timeout 60 $F timeline "$first" --run 0 --out "$out/timeline.json" > "$out/timeline.log" 2>&1
echo "timeline rc=$?"; tail -4 "$out/timeline.log"
echo "total $(( $(date +%s) - start )) s"

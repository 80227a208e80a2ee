#!/usr/bin/env bash
# One device call for the real-program suite (validate/programs/): build,
# the capture GPU tests, the execution-model calibration, every program timed
# and captured, everything packed under $OUT (at most 8 files come back).
# Usage on the device machine, from the repo root, with .whl carried:
#   tools/device/programs_h200.sh [PROGRAM,...]
# The 13 programs do not fit one 10-minute call: split them over two calls
# (each calibrates again: hosts differ), e.g.
#   A: train_save_on_cpu,transformers_kv_offload_16k,diffusers_group_leaf_nostream,accel_disk_offload,
#      transformers_kv_offload,diffusers_group_block,diffusers_group_block_stream
#   B: accel_cpu_offload_llama,accel_cpu_offload_mixtral,accel_dispatch_budget,diffusers_group_leaf,
#      diffusers_group_disk,double_buffer_prefetch
# and measure the what-ifs (WHATIFS=1) in a third, after their predictions
# are committed, timing their base programs again in the same call.
set -u
start=$(date +%s)
out="${OUT:?OUT must name the folder that comes back}"
only="${1:-}"
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/build.log" 2>&1 &&
  cmake --build build-dev -j16 >> "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
if ls .whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
    export PYTHONPATH=/tmp/site
fi
git rev-parse HEAD > "$out/commit.txt" 2>/dev/null
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv > "$out/device.txt" 2>&1
build-dev/bin/test_gpu --gtest_filter='Capture*' > "$out/test_gpu.log" 2>&1; echo "capture gpu tests: exit $?"
tail -3 "$out/test_gpu.log"
mkdir -p "$out/p"
[ -n "${SKIP_CALIBRATE:-}" ] || timeout 120 build-dev/bin/flashsim calibrate --only copies,concurrent,execution --out "$out/p/execution.yaml" \
  > "$out/p/calibrate.log" 2>&1; echo "calibrate: exit $? ($(( $(date +%s) - start )) s)"
left=$(( ${RUNNER_BUDGET:-560} - ($(date +%s) - start) ))
PROGRAM_TIMEOUT=100 timeout "$left" validate/programs/run_programs.sh "$out/p" --flashsim build-dev/bin/flashsim \
  ${only:+--only "$only"} ${NO_TIMING:+--no-timing} 2>&1 | tail -20
# What-ifs (validate/programs/whatifs.txt: NAME PROGRAM ARGS...), timed without capture.
if [ -n "${WHATIFS:-}" ] && [ -f validate/programs/whatifs.txt ]; then
  while read -r wname wprog wargs; do
    [ -z "$wname" ] || [ "${wname#\#}" != "$wname" ] && continue
    timeout 100 python3 "validate/programs/$wprog.py" $wargs --repeats 5 --out "$out/p/whatif-$wname.timing.json" \
      > "$out/p/whatif-$wname.log" 2>&1; echo "what-if $wname: exit $?"
  done < validate/programs/whatifs.txt
fi
echo "programs: $(( $(date +%s) - start )) s"
cd "$out" || exit 1
mv build.log test_gpu.log device.txt commit.txt p/ 2>/dev/null
# At most 8 files come back, 16 MiB each: the raw captures in 4 archives.
raws=(); for d in p/*.raw; do [ -d "$d" ] && raws+=("$d"); done
for g in 0 1 2 3; do
  part=(); for i in "${!raws[@]}"; do [ $(( i % 4 )) = $g ] && part+=("${raws[$i]}"); done
  [ ${#part[@]} -gt 0 ] && tar -cf - "${part[@]}" | xz -T16 -6 > "raw$g.tar.xz"
done
tar -cf - --exclude='*.raw' p | xz -T16 -6 > results.tar.xz && rm -rf p
ls -la "$out"

#!/usr/bin/env bash
# Issue 28 item 2: the cost of `flashsim diagnose --counters` on real offload
# programs, on one host in one call: each program timed uncaptured (wall of
# the command as diagnose runs it, 3 times), then diagnosed live with the
# default launch budget (capture + Nsight Compute, progress lines kept),
# then with --ncu-launches 25 and 200 (the per-launch cost), and one run cut
# by --counters-timeout (the message). Everything lands in $OUT.
# Usage on the device machine, from the repo root:
#   [LAUNCHES="default 25 200"] tools/device/diagnose_counters_h200.sh [PROGRAM ...]
#   (default program: accel_cpu_offload_llama)
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
out="${OUT:?OUT must name the folder that comes back}"
. tools/device/build_dev.sh flashsim flashsim_capture
F=$PWD/build-dev/bin/flashsim
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
"$NCU" --version > "$out/ncu_version.txt" 2>&1
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(accel_cpu_offload_llama)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
wall() {  # wall seconds of a command, its output to $1
  local log=$1; shift
  local t0; t0=$(date +%s.%N)
  "$@" > "$log" 2>&1; local rc=$?
  python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)"
  return $rc
}
for p in "${programs[@]}"; do
  cmd=(python3 validate/programs/$p.py --warmup 1 --steps 6 --repeats 1)
  for k in 1 2 3; do
    echo "$p uncaptured wall $k: $(wall /tmp/uncaptured.txt "${cmd[@]}" --out /tmp/uncaptured.json) s"
    cat /tmp/uncaptured.txt >> "$out/$p.uncaptured.txt"
  done
  stamp "$p uncaptured"
  for launches in ${LAUNCHES:-default 25 200}; do
    extra=(); [ $launches = default ] || extra=(--ncu-launches $launches)
    t=$(wall "$out/$p.diagnose.$launches.txt" timeout 590 "$F" diagnose --skip-steps 2 --no-levers --counters \
        --ncu "$NCU" "${extra[@]}" --json "$out/$p.diagnose.$launches.json" -- "${cmd[@]}")
    echo "$p diagnose --counters ($launches launches): exit $? wall $t s"
    grep -E "Nsight Compute|L2 hit rate|flashsim diagnose:" "$out/$p.diagnose.$launches.txt" | tail -14
    stamp "$p $launches"
  done
done
p=${programs[0]}
t=$(wall "$out/$p.diagnose.timeout.txt" "$F" diagnose --no-levers --counters --ncu "$NCU" --ncu-launches 2000 \
    --counters-timeout 20 -- python3 validate/programs/$p.py --warmup 1 --steps 6 --repeats 1)
echo "$p --counters-timeout 20: exit $? wall $t s"
tail -4 "$out/$p.diagnose.timeout.txt"
stamp done

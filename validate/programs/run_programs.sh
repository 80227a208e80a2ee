#!/usr/bin/env bash
# Run the real-program validation suite: each program timed without capture
# (--repeats 5), then under `flashsim capture` (--repeats 1).
# Usage: validate/programs/run_programs.sh OUTDIR [--flashsim PATH] [--only NAME,...] [--quick]
# Environment: PYTHON (default python3), EXTRA_ARGS (options added to every program run).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
usage() { echo "usage: $0 OUTDIR [--flashsim PATH] [--only NAME,...] [--quick]" >&2; exit 2; }
[ $# -ge 1 ] || usage
outdir="$1"; shift
flashsim="$root/build-dev/bin/flashsim"
only=""
quick=0
no_timing=0
while [ $# -gt 0 ]; do
  case "$1" in
    --flashsim) [ $# -ge 2 ] || usage; flashsim="$2"; shift 2 ;;
    --only) [ $# -ge 2 ] || usage; only="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --no-timing) no_timing=1; shift ;;
    *) usage ;;
  esac
done
export PYTHONUNBUFFERED=1
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
python="${PYTHON:-python3}"
# extra program options for every run, e.g. EXTRA_ARGS="--device cpu" for a dry check
read -r -a extra <<< "${EXTRA_ARGS:-}"

programs=(accel_cpu_offload_llama accel_cpu_offload_mixtral accel_dispatch_budget accel_disk_offload
          diffusers_group_block diffusers_group_block_stream diffusers_group_leaf diffusers_group_leaf_nostream
          diffusers_group_disk transformers_kv_offload transformers_kv_offload_16k double_buffer_prefetch
          train_save_on_cpu)
if [ -n "$only" ]; then
  IFS=',' read -r -a wanted <<< "$only"
  for w in "${wanted[@]}"; do
    [ -f "$here/$w.py" ] || { echo "unknown program: $w" >&2; exit 2; }
  done
  programs=("${wanted[@]}")
fi
if [ "$quick" = 1 ]; then
  timed_opts=(--warmup 1 --steps 3 --repeats 2)
  capt_opts=(--warmup 1 --steps 3 --repeats 1)
else
  timed_opts=(--repeats 5)
  # Two repeats under capture: the first repeat of several programs is slower
  # (allocator and pinned-pool warm-up); the second is what the timed median sees.
  capt_opts=(--repeats "${CAPTURE_REPEATS:-2}")
fi
have_flashsim=1
[ -x "$flashsim" ] || { echo "warning: $flashsim not found/executable: captures will fail" >&2; have_flashsim=0; }

summary=()
for name in "${programs[@]}"; do
  prog="$here/$name.py"
  log="$outdir/$name.log"
  : > "$log"
  echo "== $name" | tee -a "$log"
  # (a) timed, no capture (--no-timing: keep an earlier run's timing)
  rc_t=0
  if [ $no_timing = 0 ]; then
  rm -f "$outdir/$name.timing.json"
  t0=$(date +%s.%N)
  timeout "${PROGRAM_TIMEOUT:-120}" "$python" "$prog" "${timed_opts[@]}" ${extra[@]+"${extra[@]}"} --out "$outdir/$name.timing.json" \
      > "$outdir/$name.timing.stdout" 2> "$outdir/$name.timing.stderr"
  rc_t=$?
  t1=$(date +%s.%N)
  echo "timed: exit $rc_t, wall $(awk "BEGIN{printf \"%.1f\", $t1-$t0}") s" >> "$log"
  if [ $rc_t -ne 0 ]; then
    echo "--- timed stderr (tail)" >> "$log"; tail -n 40 "$outdir/$name.timing.stderr" >> "$log"
  fi
  fi
  # (b) captured
  rm -rf "$outdir/$name.raw" "$outdir/$name.h5" "$outdir/$name.captured.json"
  t0=$(date +%s.%N)
  if [ $have_flashsim = 1 ]; then
    timeout "${PROGRAM_TIMEOUT:-120}" "$flashsim" capture --keep-raw "$outdir/$name.raw" --out "$outdir/$name.h5" -- \
        "$python" "$prog" "${capt_opts[@]}" ${extra[@]+"${extra[@]}"} --out "$outdir/$name.captured.json" \
        > "$outdir/$name.capture.stdout" 2> "$outdir/$name.capture.stderr"
    rc_c=$?
  else
    echo "flashsim not found: $flashsim" > "$outdir/$name.capture.stderr"
    rc_c=127
  fi
  t1=$(date +%s.%N)
  echo "captured: exit $rc_c, wall $(awk "BEGIN{printf \"%.1f\", $t1-$t0}") s" >> "$log"
  if [ $rc_c -ne 0 ]; then
    echo "--- capture stderr (tail)" >> "$log"; tail -n 40 "$outdir/$name.capture.stderr" >> "$log"
  fi
  med_t="-"; med_c="-"
  if [ -f "$outdir/$name.timing.json" ]; then
    med_t=$("$python" -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["median_step_ns"]/1e6))' "$outdir/$name.timing.json" 2>/dev/null || echo "?")
  fi
  if [ -f "$outdir/$name.captured.json" ]; then
    med_c=$("$python" -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["median_step_ns"]/1e6))' "$outdir/$name.captured.json" 2>/dev/null || echo "?")
  fi
  st="ok"; [ $rc_t -eq 0 ] && [ $rc_c -eq 0 ] || st="FAILED"
  line=$(printf "%-30s %-6s timed(exit %d) median %s ms | captured(exit %d) median %s ms" "$name" "$st" "$rc_t" "$med_t" "$rc_c" "$med_c")
  echo "$line" >> "$log"
  tail -n 3 "$log" | sed 's/^/  /'
  summary+=("$line")
done
echo
echo "== summary ($outdir)"
for l in "${summary[@]}"; do echo "$l"; done
fail=0
for l in "${summary[@]}"; do case "$l" in *FAILED*) fail=1 ;; esac; done
exit $fail

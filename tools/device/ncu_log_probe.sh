#!/usr/bin/env bash
# What Nsight Compute writes, where and when (issue 28: the progress line of
# diagnose --counters reads it): a small torch program of 30 GEMMs under ncu
# with the metrics diagnose asks for, in three output modes, with the log's
# line count sampled every 0.5 s while it runs. Everything under $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
out="${OUT:?}"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
"$NCU" --version > "$out/ncu_version.txt" 2>&1
cat > /tmp/gemms.py <<'PY'
import time, torch
a = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
for i in range(30):
    b = a @ a
    torch.cuda.synchronize()
    print("step", i, flush=True)
PY
M=lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,lts__t_sector_hit_rate.pct
sample() {  # $1 = file to watch, $2 = pid
  while kill -0 $2 2>/dev/null; do echo "$(date +%s.%N) $(grep -c '' $1 2>/dev/null) $(grep -c '==PROF==' $1 2>/dev/null)"; sleep 0.5; done
}
i=0
for mode in "csv-logfile" "csv-stdout" "plain-logfile"; do
  i=$((i+1)); log=$out/$mode.log
  case $mode in
    csv-logfile) args=(--csv --log-file $log) ;;
    csv-stdout) args=(--csv) ;;
    plain-logfile) args=(--log-file $log) ;;
  esac
  "$NCU" "${args[@]}" --clock-control none --cache-control none --metrics $M --target-processes all \
    --launch-count 20 -k regex:gemm python3 /tmp/gemms.py > $out/$mode.stdout 2> $out/$mode.stderr &
  pid=$!
  w=$log; [ $mode = csv-stdout ] && w=$out/$mode.stdout
  sample $w $pid > $out/$mode.samples
  wait $pid; echo "$mode: exit $?"
  echo "  samples (time lines prof-lines):"; sed -n '1p;$p' $out/$mode.samples | sed 's/^/    /'
  for f in $log $out/$mode.stdout $out/$mode.stderr; do [ -f $f ] && echo "  $(basename $f): $(grep -c '' $f) lines, $(grep -c '==PROF==' $f) ==PROF==" && grep -m4 '==PROF==\|==WARNING==' $f | sed 's/^/    /'; done
done

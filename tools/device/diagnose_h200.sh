#!/usr/bin/env bash
# One device call for issue 16 (flashsim diagnose): build; the diagnose GPU
# tests (a copy-bound program of known behaviour); `flashsim diagnose` on a
# real offload program (accelerate cpu_offload, captured live with NVML
# sampling, then run again under Nsight Compute for the L2 hit rate); and
# the L2 counter probe behind docs/hardware.md's 434–756% reading: the
# replay's L2 mode under ncu with the old metric and the SM lookups side by
# side. Needs .replay-data/cloudPhysicsIO.oracleGeneral.bin (carry it).
# Usage on the device machine, from the repo root: tools/device/diagnose_h200.sh
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
out="${OUT:?OUT must name the folder that comes back}"
. tools/device/build_dev.sh flashsim flashsim_capture flashsim_copy_bound flashsim_known_sequence test_gpu
F=build-dev/bin/flashsim
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

timeout 200 build-dev/bin/test_gpu --gtest_filter='Diagnose*' > "$out/test_gpu.log" 2>&1; echo "diagnose gpu tests: exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|OK \]|FAILED \]|Failure|Which is|Expected" "$out/test_gpu.log" | head -30
echo "[$(( $(date +%s) - start )) s]"

# A real offload program, diagnosed live (capture + NVML), then with ncu.
timeout 300 $F diagnose --skip-steps 2 --counters --ncu "$NCU" --ncu-launches 300 \
  --keep-trace "$out/accel_llama.diagnose.h5" --json "$out/accel_llama.diagnose.json" -- \
  python3 validate/programs/accel_cpu_offload_llama.py --warmup 1 --steps 6 --repeats 1 \
  --out "$out/accel_llama.captured.json" > "$out/accel_llama.diagnose.txt" 2>&1
echo "diagnose accelerate: exit $?"
grep -v "^  tier:" "$out/accel_llama.diagnose.txt" | tail -45
echo "[$(( $(date +%s) - start )) s]"

# The L2 probe: the replay's L2 mode (LRU, 32 MiB) under ncu, per consume kernel.
S2=scenarios/examples/libcachesim-cloudphysics.yaml
A=(--set workload.trace=$PWD/.replay-data/cloudPhysicsIO.oracleGeneral.bin --set workload.issue=closed
   --set 'policies=[lru]' --set cache.capacity=32MiB --max-accesses 300 --no-access-log --no-nvml --l2-mode)
M=lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex.sum
[ -n "${SKIP_PROBE:-}" ] && { echo "[$(( $(date +%s) - start )) s] done"; exit 0; }
for cc in none all; do
  timeout 90 "$NCU" --clock-control none --cache-control $cc --metrics $M -k regex:replay_consume -c 150 --csv \
    $F replay --out /tmp/ncu-$cc $S2 "${A[@]}" > "$out/ncu-l2-$cc.csv" 2>&1; echo "ncu cache-control $cc: exit $?"
  python3 - "$out/ncu-l2-$cc.csv" <<'PY'
import csv, sys, statistics as st
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("no rows"); sys.exit()
h = rows[0]; iid, im, iv = h.index('ID'), h.index('Metric Name'), h.index('Metric Value')
k = {}
for r in rows[1:]:
    try: k.setdefault(r[iid], {})[r[im]] = float(r[iv].replace(',', ''))
    except ValueError: pass
def col(m): return [d[m] for d in k.values() if m in d]
for m in sorted({m for d in k.values() for m in d}):
    v = col(m); print(f"  {m}: n={len(v)} median={st.median(v):.1f} min={min(v):.1f} max={max(v):.1f} sum={sum(v):.0f}")
hit, miss = sum(col('lts__t_sectors_srcunit_tex_lookup_hit.sum')), sum(col('lts__t_sectors_srcunit_tex_lookup_miss.sum'))
print(f"  SM lookups hit rate (summed): {100*hit/max(1,hit+miss):.2f}%")
PY
done
echo "[$(( $(date +%s) - start )) s] done"

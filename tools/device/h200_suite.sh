#!/usr/bin/env bash
# One call of the device tool (H200): build, every test (gpu ones included),
# the L2 hit ratio of the L2 mode from ncu, the framework side-by-side of the
# recorded torch offload workload (issue 4 item 6), and the captured worked
# example replayed on the GPU. Logs go under $OUT. Needs the recorded traces
# copied into .replay-data/ (carry it): llama-2048x22.trace.json.gz,
# cloudPhysicsIO.oracleGeneral.bin.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/h200-suite}; mkdir -p "$OUT"
D=$PWD/.replay-data; R=/tmp/replay-results; T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv,noheader
git log -1 --format='commit %H %s' 2>/dev/null || true

stamp build
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$OUT/build.log" 2>&1
cmake --build build-dev -j16 -- -k 0 >> "$OUT/build.log" 2>&1; echo "build rc=$?"
grep -E "error|warning:|FAILED" "$OUT/build.log" | head -20
F=build-dev/bin/flashsim

stamp ctest
timeout 300 ctest --test-dir build-dev -j8 --output-on-failure > "$OUT/ctest.log" 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\(Failed\)|Not Run|Subprocess" "$OUT/ctest.log" | tail -20
grep -c "Skipped" "$OUT/ctest.log" | sed 's/^/skipped: /'

stamp offload
T=$D/llama-2048x22.trace.json.gz
S=scenarios/examples/torch-offload-h200.yaml
one=(--set cache.capacity=50% --set "policies=[{impl: lru}]")
{
  timeout 60 $F replay --out $R $S --set workload.trace=$T "${one[@]}" --no-cache --backing pageable --label nocache-pageable
  timeout 60 $F replay --out $R $S --set workload.trace=$T "${one[@]}" --no-cache --backing pageable --replay-gaps --label nocache-pageable-gaps
  timeout 60 $F replay --out $R $S --set workload.trace=$T "${one[@]}" --no-cache --label nocache-pinned
  timeout 90 $F replay --out $R $S --set workload.trace=$T --set cache.capacity=50% --set 'policies=[{impl: lru}, {impl: mlru}]' --label cache50-pinned
  timeout 90 $F replay --out $R $S --set workload.trace=$T --set cache.capacity=50% --set 'policies=[{impl: mlru}]' --prefetcher lookahead --copy-streams 2 --label cache50-mlru-lookahead
  timeout 60 $F run $S --set workload.trace=$T --set cache.capacity=50% --set 'policies=[{impl: lru}, {impl: mlru}, {impl: mlru, prefetch: [{impl: lookahead}]}]' --out /tmp/sim-offload --no-progress
  timeout 60 $F run $S --set workload.trace=$T --set hardware.profile=h200-pageable --set cache.capacity=50% --set 'policies=[{impl: lru}]' --out /tmp/sim-offload-pageable --no-progress
} > "$OUT/offload.log" 2>&1; echo "offload rc=$?"

stamp capture-replay
{
  timeout 60 $F replay --out $R hw/capture/example/offload_scenario.yaml --no-cache --label capture-nocache
  timeout 60 $F replay --out $R hw/capture/example/offload_scenario.yaml --label capture-cache50
  timeout 60 $F run hw/capture/example/offload_scenario.yaml --out /tmp/sim-capture --no-progress
} > "$OUT/capture.log" 2>&1; echo "capture rc=$?"

stamp ncu-l2
S2=scenarios/examples/libcachesim-cloudphysics.yaml
A=(--set workload.trace=$D/cloudPhysicsIO.oracleGeneral.bin --set workload.issue=closed --set 'policies=[lru]' --set cache.capacity=32MiB --max-accesses 300 --no-access-log --no-nvml --l2-mode)
for w in window nowindow; do
  extra=(); [ $w = nowindow ] && extra=(--l2-no-window)
  timeout 60 ncu --clock-control none --cache-control none --metrics lts__t_sector_hit_rate.pct -k regex:replay_consume -c 150 --csv \
    $F replay --out /tmp/ncu-$w $S2 "${A[@]}" "${extra[@]}" > "$OUT/ncu-$w.csv" 2>&1; echo "ncu $w rc=$?"
  python3 - "$OUT/ncu-$w.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print(sys.argv[1], "no rows"); sys.exit()
h = rows[0]; i = h.index('Metric Value')
v = []
for r in rows[1:]:
    try: v.append(float(r[i].replace(',', '')))
    except ValueError: pass
v.sort()
print(sys.argv[1].split('/')[-1], 'kernels', len(v), 'mean L2 sector hit %', round(sum(v) / max(1, len(v)), 2), 'median', v[len(v) // 2] if v else None)
PY
done
tar czf "$OUT/results.tgz" -C /tmp replay-results sim-offload sim-offload-pageable sim-capture 2>/dev/null
stamp done

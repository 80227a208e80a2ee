#!/usr/bin/env bash
# One device call for two seed-verdict rows that need the H200
# (docs/seed-verdicts.md): (1) CUDA Graph vs eager decode, the weight
# kernels' L2 hit rate from `flashsim diagnose --counters` (ncu's SM
# lookups), with L2-resident (2 layers, 50 MiB) and streamed (8 layers of
# hidden 2048, 864 MiB) weights; (2) the persisting L2 window in the
# replay's L2 mode, repeated 5 times with and without the window (LRU,
# 32 MiB, cloudPhysics first 20,000 accesses). Needs
# .replay-data/cloudPhysicsIO.oracleGeneral.bin (carry it).
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
out="${OUT:?OUT must name the folder that comes back}"
. tools/device/build_dev.sh flashsim flashsim_capture
F=build-dev/bin/flashsim
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
P=validate/programs/graph_vs_eager.py
for size in small large; do
  shape=(--layers 2 --hidden 1024 --intermediate 2816); [ $size = large ] && shape=(--layers 8 --hidden 2048 --intermediate 5632)
  for mode in eager graph; do
    python3 $P --mode $mode "${shape[@]}" --warmup 10 --steps 200 --out "$out/graph-$size-$mode.timing.json" | tail -1
    timeout 150 $F diagnose --counters --no-levers --ncu "$NCU" --ncu-launches 400 --json "$out/graph-$size-$mode.diagnose.json" -- \
      python3 $P --mode $mode "${shape[@]}" --warmup 3 --steps 20 > "$out/graph-$size-$mode.diagnose.txt" 2>&1
    echo "diagnose $size $mode: exit $? [$(( $(date +%s) - start )) s]"; grep "L2 hit rate" "$out/graph-$size-$mode.diagnose.txt"
  done
done
if [ -n "${SKIP_L2:-}" ]; then
  tar -C "$out" -czf "$out/graph.tgz" $(cd "$out" && ls graph-*) && (cd "$out" && rm -f graph-*.json graph-*.txt)
  echo "[$(( $(date +%s) - start )) s] done"; exit 0
fi
S2=scenarios/examples/libcachesim-cloudphysics.yaml
A=(--set workload.trace=$PWD/.replay-data/cloudPhysicsIO.oracleGeneral.bin --set workload.issue=closed
   --set 'policies=[lru]' --set cache.capacity=32MiB --max-accesses 20000 --no-access-log --no-nvml --l2-mode)
for r in 1 2 3 4 5; do
  for w in window nowindow; do
    extra=(); [ $w = nowindow ] && extra=(--l2-no-window)
    timeout 60 $F replay --out "/tmp/l2-$w-$r" $S2 "${A[@]}" "${extra[@]}" > "$out/l2-$w-$r.log" 2>&1
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(sys.argv[2], sys.argv[3], r['stall_ns'], r['simulated_ns'], r['hit_ratio_by_access'])" \
      "$(find /tmp/l2-$w-$r -name summary.json | head -1)" $w $r | tee -a "$out/l2-window-repeats.txt"
  done
done
echo "[$(( $(date +%s) - start )) s] done"

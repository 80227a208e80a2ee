#!/usr/bin/env bash
# flashsim's cache-only path against libCacheSim's cachesim on the *same*
# oracleGeneral file, one replay per process, 3 runs each (medians and
# ranges go to BENCHMARKS.md). cachesim ignores sizes (--ignore-obj-size,
# capacity in objects); flashsim-bench replays the recorded sizes with
# CAPACITY in bytes, so the two count the same thing only on a trace whose
# sizes are all 1 (zipf_to_oracle_general.c writes such a file). For exact
# miss counts on a sized trace see docs/policies.md ("Exact miss counts
# against libCacheSim"). libCacheSim names 2q `twoq` and accepts `2q`.
#   tools/bench/compare_libcachesim.sh CACHESIM TRACE.oracleGeneral.bin CAPACITY [POLICY...]
# CACHESIM: a cachesim built from 1a1a11a/libCacheSim (cmake -DCMAKE_BUILD_TYPE=Release).
set -euo pipefail
cachesim=$1 trace=$2 capacity=$3; shift 3
policies=("${@:-lru arc s3fifo sieve}")
bench="$(dirname "$0")/../../build/bin/flashsim-bench"
# cachesim writes a result file (default: beside the working directory); keep it out of the tree.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for p in ${policies[@]}; do
  for i in 1 2 3; do
    /usr/bin/time -f "%M" -o "$scratch/rss" "$cachesim" "$trace" oracleGeneral "$p" "$capacity" --ignore-obj-size 1 \
      --num-thread 1 --output "$scratch/cachesim" 2>&1 | grep -o "miss ratio [0-9.]*, throughput [0-9.]* MQPS" | sed "s/^/libcachesim $p: /" | tr '\n' ' '
    echo "peak_rss_kib $(cat "$scratch/rss")"
    "$bench" cache "$trace" "$p" "$capacity" | sed "s/^/flashsim $p: /"
  done
done

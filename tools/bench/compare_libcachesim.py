#!/usr/bin/env python3
"""flashsim's cache-only path against libCacheSim's cachesim on the *same*
oracleGeneral file, in one run on one machine (issue 27 (c), BENCHMARKS.md).

usage: tools/bench/compare_libcachesim.py TRACE.oracleGeneral.bin CAPACITY[,CAPACITY...]
           [--policies lru,arc,s3fifo,sieve,belady] [--repeats 5]
           [--cachesim PATH | --libcachesim-src DIR] [--flashsim-bench build/bin/flashsim-bench]

libCacheSim is built here, not in CI: without --cachesim the script clones
1a1a11a/libCacheSim at COMMIT (or uses the checkout --libcachesim-src names)
into ~/.cache/flashsim-bench and builds `cachesim` with CMake, Release
(Debian: cmake, libglib2.0-dev, libzstd-dev). cachesim ignores sizes
(--ignore-obj-size 1, capacity in objects); flashsim-bench replays the
recorded sizes with CAPACITY in bytes, so both count the same thing only on
a trace whose sizes are all 1 (zipf_to_oracle_general.c writes one).

Per policy and capacity, the runs alternate (libCacheSim, flashsim, ...),
one replay per process, and the table gives the median and range of each
one's requests/s (each tool's own figure: trace reading included), the hit
ratios, and two memory figures per process:
  heap  peak anonymous resident memory (RssAnon of /proc/PID/status, sampled
        every 2 ms): the process's own data, without file pages (cachesim
        mmaps the whole trace; flashsim streams it);
  rss   peak resident set (VmHWM), file pages included.
Exits 1 if the two tools' hit ratios differ in the fourth digit.
"""
import argparse, os, re, statistics, subprocess, sys, tempfile, time

COMMIT = "aa0fc40"  # develop, the commit BENCHMARKS.md was measured with
REPO = "https://github.com/1a1a11a/libCacheSim"

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("trace", help="an oracleGeneral trace (libCacheSim's binary format)")
ap.add_argument("capacities", help="capacities in objects, comma-separated (e.g. 10000,100000)")
ap.add_argument("--policies", default="lru,arc,s3fifo,sieve,belady")
ap.add_argument("--repeats", type=int, default=5, help="runs per tool, policy and capacity (>= 1)")
ap.add_argument("--cachesim", help="a built cachesim binary (default: build libCacheSim %s here)" % COMMIT)
ap.add_argument("--libcachesim-src", help="a libCacheSim checkout to build instead of cloning it")
ap.add_argument("--flashsim-bench", default=os.path.join(os.path.dirname(__file__), "../../build/bin/flashsim-bench"))
args = ap.parse_args()
if not os.path.isfile(args.trace):
    ap.error(f"{args.trace}: no such file")
if args.repeats < 1:
    ap.error("--repeats: expected 1 or more")
POLICIES = ("lru", "arc", "s3fifo", "sieve", "belady")  # named alike by both tools
for c in args.capacities.split(","):
    if not re.fullmatch(r"[0-9]+", c) or int(c) == 0:  # str.isdigit() also takes superscript digits
        ap.error(f"capacities: '{c}' is not a number of objects > 0 (libCacheSim's --ignore-obj-size 1 counts objects)")
for p in args.policies.split(","):
    if p not in POLICIES:
        ap.error(f"--policies: '{p}' is not one of {','.join(POLICIES)} (the policies both tools name alike)")
if args.cachesim and not (os.path.isfile(args.cachesim) and os.access(args.cachesim, os.X_OK)):
    ap.error(f"--cachesim {args.cachesim}: no such executable file")
if args.libcachesim_src and not os.path.isdir(args.libcachesim_src):
    ap.error(f"--libcachesim-src {args.libcachesim_src}: no such folder")
if os.path.isfile(args.flashsim_bench) and not os.access(args.flashsim_bench, os.X_OK):
    ap.error(f"--flashsim-bench {args.flashsim_bench}: not executable")
if not os.path.isfile(args.flashsim_bench):
    ap.error(f"--flashsim-bench {args.flashsim_bench}: no such file (build it: cmake --build build)")


def build_cachesim():
    try:
        return _build_cachesim()
    except (subprocess.CalledProcessError, OSError) as e:
        sys.exit(f"compare_libcachesim.py: cannot build libCacheSim's cachesim ({e}); "
                 f"--libcachesim-src must be a libCacheSim checkout, or pass --cachesim")


def _build_cachesim():
    cache = os.path.expanduser("~/.cache/flashsim-bench")
    src = args.libcachesim_src or os.path.join(cache, "libCacheSim")
    if not os.path.isdir(src):
        os.makedirs(cache, exist_ok=True)
        subprocess.run(["git", "clone", "--quiet", REPO, src], check=True)
        subprocess.run(["git", "-C", src, "checkout", "--quiet", COMMIT], check=True)
    build = os.path.join(cache, "libCacheSim-build")
    binary = os.path.join(build, "bin", "cachesim")
    if not os.path.exists(binary):
        subprocess.run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release"], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2), "--target", "cachesim"],
                       check=True, stdout=subprocess.DEVNULL)
    return binary


def kib(status, key):
    m = re.search(rf"^{key}:\s+(\d+) kB", status, re.M)
    return int(m.group(1)) if m else 0


def measured(cmd, cwd):
    """Runs cmd; returns (stdout+stderr, peak RssAnon KiB, VmHWM KiB)."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
        heap = hwm = 0
        path = f"/proc/{p.pid}/status"
        while p.poll() is None:
            try:
                with open(path) as f:
                    s = f.read()
                heap = max(heap, kib(s, "RssAnon"))
                hwm = max(hwm, kib(s, "VmHWM"))
            except OSError:
                pass
            time.sleep(0.002)
        if p.returncode != 0:
            out.seek(0)
            sys.exit(f"{cmd[0]} failed ({p.returncode}): {out.read().decode(errors='replace')[-2000:]}")
        out.seek(0)
        return out.read().decode(errors="replace"), heap, hwm


def libcachesim(cachesim, policy, capacity, scratch):
    text, heap, hwm = measured([cachesim, args.trace, "oracleGeneral", policy, str(capacity), "--ignore-obj-size", "1",
                                "--num-thread", "1"], scratch)
    m = re.search(r"miss ratio ([0-9.]+), throughput ([0-9.]+) MQPS", text)
    if not m:
        sys.exit(f"cachesim printed no result: {text[-2000:]}")
    return 1.0 - float(m.group(1)), float(m.group(2)) * 1e6, heap, hwm


def flashsim(policy, capacity, scratch):
    text, heap, hwm = measured([args.flashsim_bench, "cache", args.trace, policy, str(capacity)], scratch)
    hit = float(re.search(r'"hit_ratio":([0-9.]+)', text).group(1))
    rate = float(re.search(r'"accesses_per_s":([0-9.]+)', text).group(1))
    return hit, rate, heap, hwm


def m(v):
    return f"{v / 1e6:.2f} M"


def spread(values):
    return f"{m(statistics.median(values))} [{m(min(values))}–{m(max(values))}]"


cachesim = args.cachesim or build_cachesim()
failed = False
print("| policy | capacity (objects) | flashsim req/s | libCacheSim req/s | ratio | hit ratio flashsim / libCacheSim "
      "| peak heap flashsim / libCacheSim | peak RSS flashsim / libCacheSim |")
print("|---|---:|---:|---:|---:|---|---:|---:|")
with tempfile.TemporaryDirectory() as scratch:  # cachesim writes a result file into its working directory
    for capacity in args.capacities.split(","):
        for policy in args.policies.split(","):
            f_runs, l_runs = [], []
            for _ in range(args.repeats):
                l_runs.append(libcachesim(cachesim, policy, capacity, scratch))
                f_runs.append(flashsim(policy, capacity, scratch))
            f_rate = [r[1] for r in f_runs]
            l_rate = [r[1] for r in l_runs]
            f_hit, l_hit = f_runs[0][0], l_runs[0][0]
            if f"{f_hit:.4f}" != f"{l_hit:.4f}":
                failed = True
            f_heap = statistics.median(r[2] for r in f_runs) / 1024
            l_heap = statistics.median(r[2] for r in l_runs) / 1024
            f_rss = statistics.median(r[3] for r in f_runs) / 1024
            l_rss = statistics.median(r[3] for r in l_runs) / 1024
            print(f"| {policy} | {int(capacity):,} | {spread(f_rate)} | {spread(l_rate)} | "
                  f"{statistics.median(f_rate) / statistics.median(l_rate):.2f}× | {f_hit:.4f} / {l_hit:.4f} | "
                  f"{f_heap:.0f} / {l_heap:.0f} MiB | {f_rss:.0f} / {l_rss:.0f} MiB |", flush=True)
sys.exit(1 if failed else 0)

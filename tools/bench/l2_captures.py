#!/usr/bin/env python3
"""Issue 27 (a): every committed capture through the calibrated L2 model,
range walk against the per-line reference, on this machine.

usage: tools/bench/l2_captures.py [--repeats N] [--flashsim build/bin/flashsim]
                                 [--captures 'validate/baselines/h200/programs/*.h5']

Per capture and l2.model: the median and range of the run's accesses per
second (summary.json host.runs[].accesses_per_second, the run table's acc/s:
the engine's run, trace decoding included, opening the file not), and whether
the two models' runs agree on every run metric (summary.json runs[]:
hit ratios, stall, simulated time); and, as the ceiling, the run with the
L2 model off. Prints a Markdown
table; exits 1 if any capture's runs differ between the models.
"""
import argparse, glob, json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--repeats", type=int, default=5, help="runs per capture and model (>= 1; the median is reported)")
ap.add_argument("--flashsim", default=os.path.join(ROOT, "build/bin/flashsim"))
ap.add_argument("--captures", default=os.path.join(ROOT, "validate/baselines/h200/programs/*.h5"),
                help="a glob of captured traces")
args = ap.parse_args()
if args.repeats < 1:
    ap.error("--repeats: expected 1 or more")
if not glob.glob(args.captures):
    ap.error(f"--captures {args.captures}: no file matches")
if not (os.path.isfile(args.flashsim) and os.access(args.flashsim, os.X_OK)):
    ap.error(f"--flashsim {args.flashsim}: no such executable file (build it: cmake --build build)")

def run(trace, model, out):
    setting = "hardware.l2.capacity=0B" if model == "off" else f"hardware.l2.model={model}"
    cmd = [args.flashsim, "run", "--trace", trace, "--engine", "event", "--hardware", "h200-calibrated",
           "--policies", "lru", "--capacity", "50%", "--set", setting, "-o", out, "--force"]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"l2_captures.py: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    try:
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        return s["host"]["runs"][0]["accesses_per_second"], s["runs"][0]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        sys.exit(f"l2_captures.py: {' '.join(cmd)} wrote no readable {out}/summary.json ({e!r}): is --flashsim flashsim?")

def k(v):
    return f"{v / 1e3:.1f} k"

failed = False
print("| capture | accesses | range: acc/s median (min–max) | line: acc/s median (min–max) | speed-up | runs equal | L2 off (ceiling) |")
print("|---|---:|---:|---:|---:|---|---:|")
with tempfile.TemporaryDirectory() as tmp:
    for trace in sorted(glob.glob(args.captures)):
        name = os.path.basename(trace)[:-3]
        speeds, runs = {}, {}
        for model in ("range", "line", "off"):
            got = [run(trace, model, os.path.join(tmp, f"{name}-{model}")) for _ in range(args.repeats)]
            speeds[model] = [g[0] for g in got]
            runs[model] = got[0][1]
        equal = runs["range"] == runs["line"]
        failed |= not equal
        r, l = speeds["range"], speeds["line"]
        print(f"| {name} | {runs['range']['accesses']} | {k(statistics.median(r))} ({k(min(r))}–{k(max(r))}) | "
              f"{k(statistics.median(l))} ({k(min(l))}–{k(max(l))}) | "
              f"{statistics.median(r) / statistics.median(l):.1f}× | {'yes' if equal else 'NO'} | "
              f"{k(statistics.median(speeds['off']))} |")
sys.exit(1 if failed else 0)

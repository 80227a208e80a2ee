#!/usr/bin/env python3
"""`flashsim timeline` output loaded the way Perfetto loads it.

Runs a small event-engine scenario (one stream, blocks 0, 1, 0 of 1 MiB on
the h200 profile, 1 MiB of fast tier: three copies, two evictions), makes a
replay-shaped results folder from it (engine gpu_replay, a hand-written
access log), writes both into one timeline and checks it:

1. always (stdlib only): the JSON obeys what Perfetto's JSON importer needs
   (every event has ph/pid/tid/ts; complete slices have dur >= 0 and nest
   properly on each thread; counter args are numbers; every thread is named),
   and the counts match the hand-counted events;
2. when a trace processor is at hand: loads the file in Perfetto's trace
   processor (PyPI `perfetto`, TraceProcessor) and checks that its slice,
   thread-track, process and counter-track counts equal the JSON's, and that
   its stats table reports no import error. The trace processor runs a
   `trace_processor_shell` binary: FLASHSIM_TRACE_PROCESSOR_SHELL=PATH, else
   the one the package downloads on first use (needs the network). Without
   one this part is skipped, saying so.

Usage: timeline_perfetto_test.py FLASHSIM_BINARY
Exit 0 = pass, 1 = fail, 77 = skipped (ctest SKIP_RETURN_CODE).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

SKIP = 77
CI = os.environ.get("CI") == "true"


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(binary, cwd, *args):
    p = subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        fail("flashsim %s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p.stdout


def make_timeline(binary, d):
    with open(os.path.join(d, "t.csv"), "w") as f:
        f.write("time_ns,block_id,bytes,stream_id,compute_ns\n"
                "0,0,1048576,0,10000\n1000,1,1048576,0,10000\n2000,0,1048576,0,10000\n")
    run(binary, d, "run", "--trace", "t.csv", "--policies", "lru", "--capacity", "1MiB", "--engine", "event",
        "--hardware", "h200", "--out", "sim", "--no-progress")
    shutil.copytree(os.path.join(d, "sim"), os.path.join(d, "hw"))
    with open(os.path.join(d, "hw", "summary.json")) as f:
        summary = json.load(f)
    summary["runs"][0]["engine"] = "gpu_replay"
    summary["replay"] = [{"access_log": "access_log_run_000.csv"}]
    with open(os.path.join(d, "hw", "summary.json"), "w") as f:
        json.dump(summary, f)
    with open(os.path.join(d, "hw", "access_log_run_000.csv"), "w") as f:
        f.write("time_ns,block_id,bytes,stream_id,compute_ns\n"
                "0,0,1048576,0,12000\n40000,1,1048576,0,12000\n52500,0,1048576,0,12000\n")
    out = os.path.join(d, "both.json")
    run(binary, d, "timeline", "sim", "hw", "--out", out)
    return out


def structural(path):
    """Perfetto's JSON importer's rules; returns the counts it should load."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("displayTimeUnit", "ms") != "ms":  # Perfetto takes "ns" as the unit of ts
        fail("displayTimeUnit %r: ts are in µs" % doc["displayTimeUnit"])
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        fail("no traceEvents array")
    processes, threads = {}, {}
    by_thread = defaultdict(list)
    counters = set()
    slices = 0
    for e in events:
        for key in ("ph", "pid", "tid", "name"):
            if key not in e:
                fail("event without %s: %r" % (key, e))
        ph = e["ph"]
        if ph == "M":
            if e["name"] == "process_name":
                processes[e["pid"]] = e["args"]["name"]
            elif e["name"] == "thread_name":
                threads[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            fail("bad ts: %r" % e)
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                fail("bad dur: %r" % e)
            by_thread[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
            slices += 1
        elif ph == "i":
            if e.get("s") != "t":
                fail("instant not thread-scoped: %r" % e)
            by_thread[(e["pid"], e["tid"])].append((e["ts"], e["ts"]))
            slices += 1
        elif ph == "C":
            if not e["args"] or not all(isinstance(v, (int, float)) for v in e["args"].values()):
                fail("counter args must be numbers: %r" % e)
            for k in e["args"]:
                counters.add((e["pid"], e["name"] + " " + k))
        else:
            fail("unexpected phase %r" % ph)
    for key, spans in by_thread.items():
        if key not in threads:
            fail("thread %r has events but no thread_name" % (key,))
        stack = []
        for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                fail("slices overlap without nesting on %s: ends %r and [%r, %r]" % (threads[key], stack[-1], start, end))
            stack.append(end)
    names = sorted(processes.values())
    if names != ["hardware", "simulator"]:
        fail("processes %r" % names)
    track_names = defaultdict(set)
    for (pid, _), name in threads.items():
        track_names[processes[pid]].add(name)
    for name in ("stream 0 accesses", "stream 0 compute"):
        if not all(name in track_names[p] for p in ("simulator", "hardware")):
            fail("track %r is not on both sides: %r" % (name, dict(track_names)))
    # Hand count: simulator 3 accesses + 3 stalls (all miss) + 2 computes +
    # 3 copies + 2 evictions; hardware 3 accesses + 3 kernels.
    if slices != 3 + 3 + 2 + 3 + 2 + 3 + 3:
        fail("%d slices and instants, expected 19" % slices)
    used_threads = len(by_thread)
    print("structural: %d slices/instants on %d tracks, %d named threads, %d counter tracks, processes %s: ok"
          % (slices, used_threads, len(threads), len(counters), names))
    return {"slices": slices,
            "threads": {(processes[pid], name) for (pid, _), name in threads.items()},
            "counters": {(processes[pid], name) for pid, name in counters},
            "processes": len(processes)}


def trace_processor(path, expected):
    try:
        from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig
    except ImportError as e:
        print("trace processor: SKIPPED (no `perfetto` package for %s: %s; pip install perfetto)" % (sys.executable, e))
        return False
    shell = os.environ.get("FLASHSIM_TRACE_PROCESSOR_SHELL")
    try:
        config = TraceProcessorConfig(bin_path=shell) if shell else TraceProcessorConfig()
        tp = TraceProcessor(trace=path, config=config)
    except Exception as e:  # the shell download needs the network
        print("trace processor: SKIPPED (no trace_processor_shell: %s: %s; set FLASHSIM_TRACE_PROCESSOR_SHELL)"
              % (type(e).__name__, str(e).splitlines()[-1] if str(e) else ""))
        return False
    rows = lambda q: [tuple(getattr(r, c) for c in ("a", "b")) for r in tp.query(q)]
    got = {
        "slices": rows("select count(*) as a, 0 as b from slice")[0][0],
        "threads": set(rows("select p.name as a, t.name as b from thread t join process p using (upid) "
                            "where t.name is not null")),
        "counters": set(rows("select p.name as a, c.name as b from process_counter_track c "
                             "join process p using (upid)")),
        "processes": rows("select count(*) as a, 0 as b from process where name in ('simulator', 'hardware')")[0][0],
    }
    errors = rows("select name as a, value as b from stats where severity in ('error', 'data_loss') and value > 0")
    tp.close()
    if errors:
        fail("trace processor import errors: %r" % errors)
    for key, value in expected.items():
        if got[key] != value:
            fail("trace processor %s = %r, the JSON has %r" % (key, got[key], value))
    print("trace processor: loaded: %r" % got)
    return True


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    binary = sys.argv[1]
    if not os.path.isfile(binary):
        if CI:
            fail("no flashsim binary at %s" % binary)
        print("SKIPPED: no flashsim binary at %s" % binary)
        return SKIP
    with tempfile.TemporaryDirectory() as d:
        path = make_timeline(binary, d)
        expected = structural(path)
        trace_processor(path, expected)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

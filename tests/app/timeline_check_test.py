#!/usr/bin/env python3
"""`flashsim timeline` output checked against the format and loaded by
independent consumers.

Writes three timelines with the binary: a simulator run beside a
replay-shaped results folder (one stream, blocks 0, 1, 0 of 1 MiB on the
h200 profile, 1 MiB of fast tier: three copies, two evictions; engine
gpu_replay with a hand-written access log), an open-loop run whose copies
overlap (lanes), and a run cut by --max-events. Each is checked:

1. the format (always; trace_event_check.py): the JSON schema kept in
   tests/app/schema/ (python3-jsonschema), then ts monotonic per track,
   matched B/E, nesting slices, flow ids, named threads; the first file's
   counts also against a hand count. The checker is first shown to refuse
   documents that break each rule.
2. Chrome's trace viewer (trace_viewer_load.py: Catapult's importer in
   headless chromium, offline): its model must have every thread with the
   same slice count, every counter series with the same sample count, the
   same processes and no import warning.
3. Perfetto's trace processor, when one is at hand (PyPI `perfetto`, which
   runs a `trace_processor_shell`: FLASHSIM_TRACE_PROCESSOR_SHELL=PATH, else
   the one it downloads at first use, which needs the network): slice,
   thread, counter-track and process counts and no import error.
   Skipped, saying so, without one.

Parts 1 and 2 are required when CI=true (tools/setup.sh installs them).

Usage: timeline_check_test.py FLASHSIM_BINARY
Exit 0 = pass, 1 = fail, 77 = skipped (ctest SKIP_RETURN_CODE).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_event_check  # noqa: E402
import trace_viewer_load  # noqa: E402

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


def write_open_loop(binary, d):
    """Two streams issued open loop at once: their copies overlap on the link (lanes)."""
    with open(os.path.join(d, "o.csv"), "w") as f:
        f.write("time_ns,block_id,bytes,stream_id\n")
        for k in range(8):
            f.write("%d,%d,1048576,%d\n" % (k * 100, k, k % 2))
    run(binary, d, "run", "--trace", "o.csv", "--policies", "lru", "--capacity", "4MiB", "--engine", "event",
        "--hardware", "h200", "--set", "workload.issue=timestamp", "--set", "hardware.tiers.1.link.sharing=fair",
        "--out", "open", "--no-progress")
    out = os.path.join(d, "open.json")
    run(binary, d, "timeline", "open", "--out", out)
    return out


def write_back_to_back(binary, d):
    """100 hits of one block, closed loop: each access slice starts where the
    last ended (134.126 + 0.336 = 134.462 µs is no overlap; a float sum says
    it is: the checker once refused this)."""
    with open(os.path.join(d, "h.csv"), "w") as f:
        f.write("time_ns,block_id,bytes\n")
        for k in range(100):
            f.write("%d,0,65536\n" % (k * 1000))
    run(binary, d, "run", "--trace", "h.csv", "--policies", "lru", "--capacity", "1MiB", "--engine", "event",
        "--hardware", "h200", "--out", "hits", "--no-progress")
    out = os.path.join(d, "hits.json")
    run(binary, d, "timeline", "hits", "--out", out)
    return out


def write_capped(binary, d):
    out = os.path.join(d, "capped.json")
    run(binary, d, "timeline", "sim", "--out", out, "--max-events", "7")
    return out


def checker_refuses_bad_documents():
    """A checker that cannot fail is no check: each rule, broken once."""
    meta = [{"ph": "M", "pid": 1, "tid": 0, "name": "process_name", "args": {"name": "p"}},
            {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "t"}}]
    x = lambda ts, dur, **kw: dict({"ph": "X", "pid": 1, "tid": 1, "name": "a", "ts": ts, "dur": dur}, **kw)
    cases = {
        "no traceEvents": {"events": []},
        "X without dur": {"traceEvents": meta + [{"ph": "X", "pid": 1, "tid": 1, "name": "a", "ts": 0}]},
        "negative ts": {"traceEvents": meta + [x(-1, 1)]},
        "unknown phase": {"traceEvents": meta + [dict(x(0, 1), ph="Q")]},
        "text counter": {"traceEvents": meta + [{"ph": "C", "pid": 1, "tid": 0, "name": "c", "ts": 0,
                                                  "args": {"v": "3"}}]},
        "ts goes back": {"traceEvents": meta + [x(5, 1), x(2, 1)]},
        "E without B": {"traceEvents": meta + [{"ph": "E", "pid": 1, "tid": 1, "name": "a", "ts": 1}]},
        "B never ends": {"traceEvents": meta + [{"ph": "B", "pid": 1, "tid": 1, "name": "a", "ts": 1}]},
        "E closes another B": {"traceEvents": meta + [{"ph": "B", "pid": 1, "tid": 1, "name": "a", "ts": 1},
                                                       {"ph": "E", "pid": 1, "tid": 1, "name": "b", "ts": 2}]},
        "overlap without nesting": {"traceEvents": meta + [x(0, 10), x(5, 10)]},
        "flow end without start": {"traceEvents": meta + [x(0, 10), {"ph": "f", "pid": 1, "tid": 1, "name": "l",
                                                                     "ts": 1, "id": 7, "bp": "e"}]},
        "flow never ends": {"traceEvents": meta + [x(0, 10), {"ph": "s", "pid": 1, "tid": 1, "name": "l",
                                                              "ts": 1, "id": 7}]},
        "flow outside a slice": {"traceEvents": meta + [x(0, 10),
                                                        {"ph": "s", "pid": 1, "tid": 1, "name": "l", "ts": 20, "id": 7},
                                                        {"ph": "f", "pid": 1, "tid": 1, "name": "l", "ts": 21, "id": 7}]},
        "unnamed thread": {"traceEvents": meta + [dict(x(0, 1), tid=2)]},
        "overlap by 1 ns": {"traceEvents": meta + [x(134.126, 0.337), x(134.462, 0.336)]},
    }
    for rule, doc in cases.items():
        try:
            trace_event_check.check(doc)
        except trace_event_check.CheckError:
            continue
        fail("the checker accepts a document with %s" % rule)
    abutting = {"traceEvents": meta + [x(134.126, 0.336), x(134.462, 0.336)]}  # ends where the next starts
    if trace_event_check.check(abutting).slices != {("p", "t"): 2}:
        fail("the checker miscounts two abutting slices")
    good = {"traceEvents": meta + [{"ph": "B", "pid": 1, "tid": 1, "name": "a", "ts": 0},
                                   {"ph": "s", "pid": 1, "tid": 1, "name": "l", "ts": 1, "id": 7},
                                   {"ph": "E", "pid": 1, "tid": 1, "ts": 2},
                                   x(3, 4), {"ph": "f", "pid": 1, "tid": 1, "name": "l", "ts": 4, "id": 7, "bp": "e"}]}
    counts = trace_event_check.check(good)
    if counts.slices != {("p", "t"): 2} or counts.flows != 1:
        fail("the checker counts %r in a document with 2 slices and 1 flow arrow" % counts)
    print("checker: refuses %d broken documents, counts a good one: ok" % len(cases))


def format_check(path, hand_count=None):
    with open(path) as f:
        doc = json.load(f)
    try:
        counts = trace_event_check.check(doc)
    except trace_event_check.CheckError as e:
        fail("%s: %s" % (os.path.basename(path), e))
    if hand_count is not None:
        # simulator 3 accesses + 3 stalls (all miss) + 2 computes + 3 copies
        # + 2 evictions; hardware 3 accesses + 3 kernels.
        if counts.total_slices() != hand_count:
            fail("%s: %d slices and instants, expected %d" % (path, counts.total_slices(), hand_count))
        if counts.processes != {"simulator", "hardware"}:
            fail("processes %r" % counts.processes)
        for track in ("stream 0 accesses", "stream 0 compute"):
            if not all((p, track) in counts.slices for p in ("simulator", "hardware")):
                fail("track %r is not on both sides: %r" % (track, sorted(counts.slices)))
    print("format: %s: %r: ok" % (os.path.basename(path), counts))
    return counts


def trace_viewer(path, expected):
    try:
        model = trace_viewer_load.load(path)
    except trace_viewer_load.Unavailable as e:
        if CI:
            fail("trace viewer: %s" % e)
        print("trace viewer: SKIPPED (%s)" % e)
        return False
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        fail("trace viewer: %s: %s" % (os.path.basename(path), e))
    if model["warnings"]:
        fail("trace viewer: %s: import warnings %r" % (os.path.basename(path), model["warnings"]))
    slices = {(t["process"], t["name"]): t["slices"] for t in model["threads"] if t["slices"]}
    if slices != dict(expected.slices):
        fail("trace viewer: %s: slices per thread %r, the JSON has %r" % (os.path.basename(path), slices,
                                                                         dict(expected.slices)))
    counters = {(c["process"], c["name"], s): n for c in model["counters"] for s, n in c["series"]}
    if counters != dict(expected.counters):
        fail("trace viewer: %s: counter samples %r, the JSON has %r" % (os.path.basename(path), counters,
                                                                       dict(expected.counters)))
    if set(model["processes"]) != expected.processes or model["flows"] != expected.flows:
        fail("trace viewer: %s: processes %r and %d flows, the JSON has %r and %d"
             % (os.path.basename(path), model["processes"], model["flows"], expected.processes, expected.flows))
    print("trace viewer: %s: %d threads, %d slices, %d counter series, no warnings: ok"
          % (os.path.basename(path), len(slices), sum(slices.values()), len(counters)))
    return True


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
    want = {"slices": expected.total_slices(),
            "threads": set(expected.slices),
            "counters": {(p, "%s %s" % (name, series)) for p, name, series in expected.counters},
            "processes": len(expected.processes)}
    for key, value in want.items():
        if key == "threads" and not value <= got[key]:
            fail("trace processor threads %r lack %r" % (got[key], value - got[key]))
        elif key != "threads" and got[key] != value:
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
    try:
        import jsonschema  # noqa: F401
    except ImportError as e:
        if CI:
            fail("no jsonschema (Debian python3-jsonschema): %s" % e)
        print("SKIPPED: no jsonschema for %s (Debian python3-jsonschema): %s" % (sys.executable, e))
        return SKIP
    checker_refuses_bad_documents()
    with tempfile.TemporaryDirectory() as d:
        files = [(make_timeline(binary, d), 19), (write_open_loop(binary, d), None), (write_back_to_back(binary, d), None),
                 (write_capped(binary, d), None)]
        for path, hand_count in files:
            expected = format_check(path, hand_count)
            trace_viewer(path, expected)
            trace_processor(path, expected)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

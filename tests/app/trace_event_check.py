"""Checks a Trace Event Format document (what `flashsim timeline` writes).

Two parts, both raising CheckError with the event's index and the rule:
- schema(doc): the JSON schema kept beside this file
  (schema/trace_event_format.schema.json), through the `jsonschema` package
  (Debian python3-jsonschema);
- semantics(doc): what a schema cannot say: timestamps never go back on a
  track (a thread, a counter series, an async or flow id), B/E pairs match
  on each thread (an E names the B it closes, if it names one), complete
  slices (X) nest properly on each thread, flow events (s/t/f) of one id
  start once, end once, and lie inside a slice of their thread (Perfetto
  and Chrome's trace viewer drop a flow that binds to nothing), every
  thread and process with events is named. Returns the counts a consumer
  should load (Counts).
"""
import json
import os
from collections import Counter, defaultdict

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema",
                           "trace_event_format.schema.json")

THREAD_SLICE = {"B", "E", "X"}
INSTANT = {"i", "I"}
FLOW = {"s", "t", "f"}
ASYNC = {"b", "n", "e"}


class CheckError(Exception):
    pass


class Counts:
    """What a consumer should load: slices per (process, thread) name, and
    samples per (process, counter, series)."""

    def __init__(self):
        self.slices = Counter()    # (process name, thread name) -> slices and thread instants
        self.counters = Counter()  # (process name, counter name, series) -> samples
        self.processes = set()
        self.flows = 0             # flow arrows: (s, next t or f) pairs

    def total_slices(self):
        return sum(self.slices.values())

    def __repr__(self):
        n = len(self.processes)
        return "%d slices on %d threads, %d counter series, %d process%s, %d flow arrows" % (
            self.total_slices(), len(self.slices), len(self.counters), n, "" if n == 1 else "es", self.flows)


def schema(doc):
    """Validates `doc` against the kept schema; the first error, with its path."""
    import jsonschema  # Debian python3-jsonschema (tools/install-deps.sh)

    with open(SCHEMA_PATH) as f:
        kept = json.load(f)
    validator = jsonschema.Draft202012Validator(kept)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "(document)"
        raise CheckError("schema: at %s: %s (%d errors in all)" % (where, e.message, len(errors)))


def _ns(us):
    """A ts or dur (µs, the format's unit) in whole ns: the writer's own
    unit. Compared as floats, 134.126 + 0.336 ends after 134.462 starts."""
    return round(us * 1000)


def _fail(index, event, rule):
    raise CheckError("event %d %s: %s" % (index, json.dumps(event)[:200], rule))


def semantics(doc):
    """The rules above; returns Counts. `doc` must already pass schema()."""
    events = doc["traceEvents"]
    process_names, thread_names = {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            process_names[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            thread_names[(e["pid"], e["tid"])] = e["args"]["name"]
    last_ts = {}                       # track key -> last ts
    open_b = defaultdict(list)         # (pid, tid) -> [(name, ts)]
    spans = defaultdict(list)          # (pid, tid) -> [(start, end)] of X and closed B/E
    flow_points = []                   # (index, event) checked once spans are known
    flows = {}                         # (cat, id) -> "open" | "closed"
    open_async = Counter()
    counts = Counts()

    def monotonic(key, index, e, what):
        if e["ts"] < last_ts.get(key, float("-inf")):
            _fail(index, e, "ts %r goes back on %s (last %r)" % (e["ts"], what, last_ts[key]))
        last_ts[key] = e["ts"]

    def named(index, e):
        if e["pid"] not in process_names:
            _fail(index, e, "process %d has events but no process_name" % e["pid"])
        if (e["pid"], e["tid"]) not in thread_names:
            _fail(index, e, "thread %d/%d has events but no thread_name" % (e["pid"], e["tid"]))
        return process_names[e["pid"]], thread_names[(e["pid"], e["tid"])]

    for index, e in enumerate(events):
        ph = e["ph"]
        if ph == "M":
            continue
        thread = (e["pid"], e["tid"])
        if ph in THREAD_SLICE or (ph in INSTANT and e.get("s", "t") == "t"):
            name = named(index, e)
            monotonic(("thread",) + thread, index, e, "thread %s" % "/".join(name))
            if ph == "B":
                open_b[thread].append((e["name"], _ns(e["ts"])))
            elif ph == "E":
                if not open_b[thread]:
                    _fail(index, e, "E without an open B on its thread")
                begin_name, begin_ts = open_b[thread].pop()
                if e.get("name") and e["name"] != begin_name:
                    _fail(index, e, "E named %r closes B %r" % (e["name"], begin_name))
                spans[thread].append((begin_ts, _ns(e["ts"])))
                counts.slices[name] += 1
            elif ph == "X":
                spans[thread].append((_ns(e["ts"]), _ns(e["ts"]) + _ns(e["dur"])))
                counts.slices[name] += 1
            else:
                counts.slices[name] += 1
        elif ph == "C":
            if e["pid"] not in process_names:
                _fail(index, e, "process %d has a counter but no process_name" % e["pid"])
            monotonic(("counter", e["pid"], e["name"]), index, e, "counter %r" % e["name"])
            for series in e["args"]:
                counts.counters[(process_names[e["pid"]], e["name"], series)] += 1
        elif ph in FLOW:
            key = (e.get("cat", ""), e["id"])
            monotonic(("flow",) + key, index, e, "flow %r" % (key,))
            state = flows.get(key)
            if ph == "s":
                if state == "open":
                    _fail(index, e, "flow %r starts again before it ends" % (key,))
                flows[key] = "open"
            else:
                if state != "open":
                    _fail(index, e, "flow %r %s without its start (s)" % (key, "step" if ph == "t" else "end"))
                counts.flows += 1
                if ph == "f":
                    flows[key] = "closed"
            named(index, e)
            flow_points.append((index, e))
        elif ph in ASYNC:
            key = (e["pid"], e.get("cat", ""), e["id"], e["name"])
            monotonic(("async",) + key, index, e, "async %r" % (key,))
            if ph == "b":
                open_async[key] += 1
            elif ph == "e":
                if open_async[key] == 0:
                    _fail(index, e, "async end without its begin (b)")
                open_async[key] -= 1
                counts.slices[(process_names.get(e["pid"], ""), e["name"])] += 1
        if e["pid"] in process_names:
            counts.processes.add(process_names[e["pid"]])

    for thread, stack in open_b.items():
        if stack:
            raise CheckError("thread %d/%d: B %r at ts %r never ends" % (thread + (stack[-1][0], stack[-1][1])))
    for key, state in flows.items():
        if state == "open":
            raise CheckError("flow %r starts but never ends (no f)" % (key,))
    for key, n in open_async.items():
        if n:
            raise CheckError("async %r begins but never ends" % (key,))
    for thread, list_ in spans.items():
        stack = []
        for start, end in sorted(list_, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                raise CheckError("thread %s: slices overlap without nesting: one ends at %r ns, [%r, %r] ns starts inside"
                                 % (thread_names[thread], stack[-1], start, end))
            stack.append(end)
    for index, e in flow_points:
        inside = any(start <= _ns(e["ts"]) <= end for start, end in spans[(e["pid"], e["tid"])])
        if not inside and e.get("bp") != "e":
            _fail(index, e, "flow event outside every slice of its thread (consumers drop it)")
    return counts


def check(doc):
    """schema() then semantics(); returns Counts."""
    schema(doc)
    return semantics(doc)

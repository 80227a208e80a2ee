#!/usr/bin/env python3
"""Writes sample-validation.json: a TEST FIXTURE in the flashsim-validation/1
schema (what `flashsim validate` writes) for the tests of `flashsim report`
and tools/plot_validation.py.

EVERY NUMBER IN IT IS MADE UP (seeded pseudo-random), not measured on any
hardware: it has the shape of a validation run (26 scenarios, fit and
holdout, capacity sweeps, prefetch entries, one failing row, one row without
a hardware value, one entry without series), nothing more.

    python3 tests/data/validation/make_sample.py > tests/data/validation/sample-validation.json
"""
import json
import math
import random

rng = random.Random(6)

METRICS = [
    {"name": "time_per_token_ns", "unit": "ns", "kind": "relative", "tolerance": 0.10, "floor": 10000, "gate": True, "applies": "all"},
    {"name": "stall_ns", "unit": "ns", "kind": "relative", "tolerance": 0.15, "floor": 100000, "gate": True, "applies": "all"},
    {"name": "simulated_ns", "unit": "ns", "kind": "relative", "tolerance": 0.10, "floor": 10000, "gate": True, "applies": "all"},
    {"name": "hit_ratio_by_access", "unit": "", "kind": "exact", "tolerance": 0, "floor": 0, "gate": True, "applies": "demand_only"},
    {"name": "hit_ratio_by_byte", "unit": "", "kind": "exact", "tolerance": 0, "floor": 0, "gate": True, "applies": "demand_only"},
    {"name": "bytes_fetched", "unit": "B", "kind": "exact", "tolerance": 0, "floor": 0, "gate": True, "applies": "demand_only"},
    {"name": "misses", "unit": "", "kind": "exact", "tolerance": 0, "floor": 0, "gate": True, "applies": "demand_only"},
    {"name": "latency_p50_ns", "unit": "ns", "kind": "relative", "tolerance": 0.20, "floor": 1000, "gate": False, "applies": "all"},
    {"name": "latency_p99_ns", "unit": "ns", "kind": "relative", "tolerance": 0.30, "floor": 1000, "gate": False, "applies": "all"},
    {"name": "prefetch_accuracy", "unit": "", "kind": "relative", "tolerance": 0.10, "floor": 0.01, "gate": False, "applies": "prefetch"},
    {"name": "prefetch_coverage", "unit": "", "kind": "relative", "tolerance": 0.10, "floor": 0.01, "gate": False, "applies": "prefetch"},
]
BY_NAME = {m["name"]: m for m in METRICS}

KiB, MiB = 1024, 1024 * 1024
# (group, block_bytes, footprint_bytes, policy, prefetch, capacity fractions)
SCENARIOS = [
    ("zipf-256B", 256, 1 * MiB, "lru", "", [0.1, 0.5, 0.9]),
    ("zipf-256B", 256, 1 * MiB, "arc", "", [0.1, 0.5, 0.9]),
    ("zipf-64KiB", 64 * KiB, 256 * MiB, "lru", "", [0.25, 0.75]),
    ("zipf-64KiB", 64 * KiB, 256 * MiB, "s3fifo", "", [0.25, 0.75]),
    ("seq-1MiB", 1 * MiB, 1024 * MiB, "mlru", "", [0.3, 0.6]),
    ("seq-1MiB", 1 * MiB, 1024 * MiB, "lru", "lookahead", [0.3, 0.6]),
    ("moe-experts-64MiB", 64 * MiB, 16384 * MiB, "lru", "", [0.2, 0.5, 0.8]),
    ("moe-experts-64MiB", 64 * MiB, 16384 * MiB, "hit-ratio-controller", "", [0.5]),
    ("concurrency-4-streams", 4 * KiB, 64 * MiB, "lru", "", [0.5]),
    ("concurrency-4-streams", 4 * KiB, 64 * MiB, "s3fifo", "", [0.5]),
    ("offload-recorded", 2 * MiB, 8192 * MiB, "lru", "", [0.5]),
    ("offload-recorded", 2 * MiB, 8192 * MiB, "s3fifo", "", [0.5]),
    ("offload-recorded", 2 * MiB, 8192 * MiB, "lru", "lookahead", [0.5]),
    ("zipf-4KiB", 4 * KiB, 32 * MiB, "arc", "", [0.5]),
]
QUANTILES = [0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]


def row(metric, sim, hw, spread):
    m = BY_NAME[metric]
    if m["unit"] in ("ns", "B") or metric == "misses":
        sim = int(round(sim))
        hw = None if hw is None else int(round(hw))
    else:
        sim = round(sim, 6)
        hw = None if hw is None else round(hw, 6)
    if hw is None:
        # as `flashsim validate` writes a row the baseline has no value for
        return {"metric": metric, "sim": sim, "hw": None, "hw_min": None, "hw_max": None, "hw_repeats": 0,
                "abs_error": 0.0, "rel_error": 0.0, "tolerance": m["tolerance"], "tolerance_effective": 0.0,
                "judged": False, "gated": False, "passed": True}
    hw_min, hw_max = round(hw * (1 - spread), 6), round(hw * (1 + spread), 6)
    abs_error = abs(sim - hw)
    rel_error = abs_error / max(abs(hw), m["floor"]) if m["kind"] == "relative" else (0.0 if sim == hw else abs_error / max(abs(hw), 1e-12))
    tolerance_effective = max(m["tolerance"], 3 * (hw_max - hw_min) / max(abs(hw), m["floor"])) if m["kind"] == "relative" else 0
    return {"metric": metric, "sim": sim, "hw": hw, "hw_min": hw_min, "hw_max": hw_max, "hw_repeats": 5,
            "abs_error": round(abs_error, 6), "rel_error": round(rel_error, 8), "tolerance": m["tolerance"],
            "tolerance_effective": round(tolerance_effective, 8), "judged": True, "gated": m["gate"],
            "passed": rel_error <= tolerance_effective + 1e-12}


def not_applied(r):
    """A row whose tolerance does not apply (an exact metric of a prefetching entry): not judged."""
    r["judged"] = False
    r["gated"] = False
    r["passed"] = True
    return r


def latency_series(p50):
    return [round(p50 * math.exp(1.1 * (q - 0.5) * 4) * (1 + 0.4 * (q > 0.9))) for q in QUANTILES]


def hit_series(hr, n):
    return [round(min(1.0, max(0.0, hr * (1 - math.exp(-(i + 1) / 3)) + rng.uniform(-0.02, 0.02))), 4) for i in range(n)]


entries = []
index = 0
for group, block, footprint, policy, prefetch, fractions in SCENARIOS:
    for fraction in fractions:
        index += 1
        demand_only = prefetch == ""
        name = f"{group}-{policy}{'-' + prefetch if prefetch else ''}-{int(round(fraction * 100))}"
        role = "holdout" if index % 3 == 0 else "fit"
        blocks = footprint // block
        accesses = int(min(blocks * 8, 40000 + 1000 * index))
        tokens = 8 if block < MiB else 32
        hit_ratio = round(min(0.97, fraction ** 0.6 * (0.95 if policy != "lru" else 0.9)), 6)
        misses = int(round(accesses * (1 - hit_ratio)))
        hit_ratio = round(1 - misses / accesses, 6)
        bytes_fetched = misses * block
        link_ns = bytes_fetched / 50.0  # ~50 GB/s H2D, made up
        stall = link_ns * 0.8 + 2000 * misses
        per_token = (stall + accesses * 120 + 5e5) / tokens
        spread = rng.uniform(0.005, 0.02)
        err = lambda s=0.05: 1 + rng.uniform(-s, s)
        rows = [row("time_per_token_ns", per_token * err(), per_token, spread)]
        stall_hw = stall
        stall_sim = stall * (1.32 if index == 17 else err(0.08))  # entry 17: the failing row
        rows.append(row("stall_ns", stall_sim, stall_hw, spread))
        rows.append(row("simulated_ns", per_token * tokens * err(), per_token * tokens, spread))
        sim_hr = hit_ratio if demand_only else round(hit_ratio * err(0.03), 6)
        exact = [("hit_ratio_by_access", sim_hr, hit_ratio), ("hit_ratio_by_byte", sim_hr, hit_ratio),
                 ("bytes_fetched", bytes_fetched if demand_only else int(bytes_fetched * err(0.05)), bytes_fetched),
                 ("misses", misses if demand_only else int(misses * err(0.05)), misses)]
        for metric, s, h in exact:
            r = row(metric, s, h, 0.0)
            rows.append(r if demand_only else not_applied(r))
        p50 = 800 + block / 50.0
        # entry 2: latency p50 over its tolerance, but the metric is not gated
        rows.append(row("latency_p50_ns", p50 * (1.35 if index == 2 else err(0.15)), p50, spread))
        p99_hw = None if index == 5 else p50 * 40  # entry 5: no hw value in the baseline
        rows.append(row("latency_p99_ns", p50 * 40 * err(0.25), p99_hw, spread))
        if not demand_only:
            acc, cov = 0.82 + 0.1 * fraction, 0.55 + 0.3 * fraction
            rows.append(row("prefetch_accuracy", acc * err(0.04), acc, spread))
            rows.append(row("prefetch_coverage", cov * err(0.06), cov, spread))
        entry = {"name": name, "group": group, "role": role, "policy": policy, "prefetch": prefetch,
                 "demand_only": demand_only, "block_bytes": block, "capacity_fraction": fraction,
                 "capacity_bytes": int(footprint * fraction), "footprint_bytes": footprint, "tokens": tokens,
                 "accesses": accesses,
                 "passed": not any(r["gated"] and r["judged"] and r["passed"] is False for r in rows), "rows": rows}
        if index != 9:  # entry 9: no series at all
            windows = 12 + index % 5
            hw_lat = latency_series(p50)
            entry["series"] = {
                "sim": {"latency_q": QUANTILES, "latency_ns": [round(v * err(0.1)) for v in hw_lat],
                        "window_ns": 1000000, "hit_ratio": hit_series(hit_ratio, windows)},
                "hw": {"latency_q": QUANTILES, "latency_ns": hw_lat, "window_ns": 1000000,
                       "hit_ratio": hit_series(hit_ratio, windows)},
            }
            if index == 11:  # partial: the hardware side recorded no windows
                del entry["series"]["hw"]["hit_ratio"]
        entries.append(entry)


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else 1.0


summary = []
for m in METRICS:
    for role in ("all", "fit", "holdout"):
        pairs = [(r["sim"], r["hw"], r["rel_error"]) for e in entries if role in ("all", e["role"])
                 for r in e["rows"] if r["metric"] == m["name"] and r["hw"] is not None and r["judged"]]
        if not pairs:
            continue
        sims, hws, errs = zip(*pairs)
        positive = min(sims + hws) > 0
        log = positive and max(hws) / min(hws) >= 100
        r = pearson([math.log10(v) for v in sims], [math.log10(v) for v in hws]) if log else pearson(sims, hws)
        summary.append({"metric": m["name"], "role": role, "n": len(pairs),
                        "mae_pct": round(100 * sum(errs) / len(errs), 4), "pearson_r": round(r, 6),
                        "pearson_on": "log10" if log else "linear",
                        "under_10pct": sum(1 for x in errs if x < 0.10), "max_rel_error": round(max(errs), 6)})

failures = [{"entry": e["name"], "metric": r["metric"], "sim": r["sim"], "hw": r["hw"], "rel_error": r["rel_error"],
             "tolerance_effective": r["tolerance_effective"]}
            for e in entries for r in e["rows"] if r["passed"] is False and r["gated"] and r["judged"]]

doc = {
    "schema": "flashsim-validation/1",
    "fixture_note": "TEST FIXTURE: every number is made up (tests/data/validation/make_sample.py), not measured",
    "suite": {"name": "sample-fixture", "file": "tests/data/validation/sample-suite.yaml",
              "profile": {"name": "h200-fitted", "fingerprint": "0" * 63 + "1"}},
    "baseline": {"file": "tests/data/validation/sample-baseline.json",
                 "provenance": {"commit": "0123456789abcdef0123456789abcdef01234567", "date_utc": "2026-11-29T21:14:05Z",
                                "tool_version": "0.1.0+fixture",
                                "device": {"name": "NVIDIA H200", "uuid": "GPU-00000000-0000-0000-0000-000000000000",
                                           "driver_version": "580.00.00", "cuda_driver_version": 13000,
                                           "sm_clock_mhz": 1980, "memory_clock_mhz": 3201, "sm_clock_max_mhz": 1980,
                                           "memory_clock_max_mhz": 3201, "sm_clock_application_mhz": 1980,
                                           "pci_bus_id": "00000000:19:00.0", "source": "nvml"},
                                "profile": {"name": "h200-calibrated", "file": "scenarios/hardware/h200-calibrated.yaml",
                                            "fingerprint": "0" * 63 + "2"},
                                "repeats": 5}},
    "hw_source": "recorded",
    "date_utc": "2026-11-30T09:00:00Z",
    "tool_version": "0.1.0+fixture",
    "passed": not failures,
    "metrics": METRICS,
    "entries": entries,
    "summary": summary,
    "failures": failures,
    "problems": [],
}
print(json.dumps(doc, indent=1))

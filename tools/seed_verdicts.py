#!/usr/bin/env python3
"""Regenerate docs/seed-verdicts.md: one row per quantitative claim of the two seed articles.

Runs the scenarios of scenarios/verdicts/ with flashsim (each once), reads their summary.json,
computes the arithmetic rows from the shipped model configs, reads the hardware rows from
committed measurement files, writes docs/seed-verdicts.json (temp file, then rename) and
rewrites the table between the markers of docs/seed-verdicts.md.

    python3 tools/seed_verdicts.py [--flashsim build/bin/flashsim] [--jobs 2] [--results DIR]

Standard library only. A claim is one function registered with @claim; it returns
a dict with test, measured and verdict (and optionally numbers, for the JSON).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCEN = "scenarios/verdicts"
DOC = os.path.join(ROOT, "docs", "seed-verdicts.md")
JSON_OUT = os.path.join(ROOT, "docs", "seed-verdicts.json")
BEGIN, END = "<!-- BEGIN generated -->", "<!-- END generated -->"

HOLDS, DIFFERENT, REFUTED = "holds", "holds with a different number", "refuted"


def untestable(why):
    return f"cannot be tested here ({why})"


# ---------------------------------------------------------------- helpers

class Runner:
    """Runs each scenario file once and caches its summary.json runs."""

    def __init__(self, flashsim, results, jobs, reuse=False):
        self.flashsim, self.results, self.jobs, self.reuse, self.cache = flashsim, results, jobs, reuse, {}

    def runs(self, name):
        out = os.path.join(self.results, name)
        if name not in self.cache and self.reuse and os.path.exists(os.path.join(out, "summary.json")):
            with open(os.path.join(out, "summary.json")) as f:
                self.cache[name] = json.load(f)["runs"]
        if name not in self.cache:
            cmd = [self.flashsim, "run", os.path.join(ROOT, SCEN, name + ".yaml"), "--out", out,
                   "--jobs", str(self.jobs), "--no-progress"]
            t0 = time.time()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
            print(f"  {name}: {time.time() - t0:.1f} s", file=sys.stderr)
            with open(os.path.join(out, "summary.json")) as f:
                self.cache[name] = json.load(f)["runs"]
        return self.cache[name]


def cmd(name):
    return f"`flashsim run {SCEN}/{name}.yaml`"


def label(run):
    """'key=value ...' of a run's sweep point as a dict."""
    parts = re.split(r" (?=[\w.]+=)", run["point_label"])
    return dict(kv.split("=", 1) for kv in parts if "=" in kv)


def select(runs, policy=None, **point):
    out = []
    for r in runs:
        lab = label(r)
        if policy is not None and r["policy_label"] != policy:
            continue
        if all(lab.get(k.replace("__", ".")) == str(v) for k, v in point.items()):
            out.append(r)
    return out


def spread(values, fmt="{:.1f}"):
    """median (min..max) of values; one value alone when they are all equal."""
    lo, hi, med = min(values), max(values), statistics.median(values)
    if lo == hi:
        return fmt.format(med)
    return f"{fmt.format(med)} ({fmt.format(lo)}..{fmt.format(hi)})"


def pct(x):
    return 100.0 * x


def model(name):
    with open(os.path.join(ROOT, "scenarios", "models", name + ".json")) as f:
        return json.load(f)


def git_commit(path, pickaxe=None):
    """Short hash of the commit that last changed path (or first added pickaxe to it)."""
    args = ["git", "-C", ROOT, "log", "--format=%h", "--", path]
    if pickaxe:
        args = ["git", "-C", ROOT, "log", "--format=%h", "-S", pickaxe, "--", path]
    try:
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return (out[-1] if pickaxe else out[0]) if out else "uncommitted"


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


CLAIMS = []


def claim(cid, text, where, kind):
    def register(fn):
        CLAIMS.append(dict(id=cid, claim=text, where=where, kind=kind, fn=fn))
        return fn
    return register


# ---------------------------------------------------------------- seed 000: policies (simulator)

@claim("mlru-lift", "MLRU lifts the fast tier's mean hit ratio from 71% to 79%", "000 §3.1", "simulator")
def mlru_lift(R):
    syn = R.runs("mlru-synthetic")
    rows, nearest = [], None
    for cap in ("10%", "15%", "20%", "30%"):
        lru = [pct(r["hit_ratio_by_access"]) for r in select(syn, "lru", cache__capacity=cap)]
        ml = [pct(r["hit_ratio_by_access"]) for r in select(syn, "mlru", cache__capacity=cap)]
        lit = [pct(r["hit_ratio_by_access"]) for r in select(syn, "mlru(reading=literal)", cache__capacity=cap)]
        lift = [m - l for m, l in zip(ml, lru)]
        rows.append(f"{cap}: LRU {spread(lru)}%, MLRU {spread(ml)}% (lift {spread(lift, '{:+.1f}')} pts), "
                    f"literal formula {spread(lit)}%")
        if nearest is None or abs(statistics.median(lru) - 71) < abs(nearest[0] - 71):
            nearest = (statistics.median(lru), statistics.median(ml), cap)
    mod = R.runs("mlru-models")
    mrows = []
    for m in ("llama-2-7b", "mixtral-8x7b"):
        parts = []
        for pol, short in (("lru", "LRU"), ("mlru", "MLRU"), ("mlru(reading=literal)", "literal")):
            parts.append(f"{short} {spread([pct(r['hit_ratio_by_access']) for r in select(mod, pol, workload__model=m)])}%")
        mrows.append(f"{m}: " + ", ".join(parts))
    l0, m0, cap0 = nearest
    return dict(
        test=f"{cmd('mlru-synthetic')} (scan with Zipf-hot blocks, 2 MiB, capacity 10-30%, 5 seeds); "
             f"{cmd('mlru-models')} (Llama-2-7B and Mixtral-8x7B, long preset, 50%, 3 seeds); LRU vs "
             "`mlru` (intent reading) vs `mlru reading: literal`",
        measured="hit ratio by access, median (min..max) over seeds. Synthetic: " + "; ".join(rows)
                 + ". Serving: " + "; ".join(mrows) + ".",
        verdict=DIFFERENT,
        note=f"Where LRU is nearest the seed's 71% on the synthetic workload ({cap0}: {l0:.1f}%), MLRU reaches "
             f"{m0:.1f}%: a lift of the seed's direction and roughly its size (+{m0 - l0:.1f} vs +8 points), "
             "shrinking to nothing at larger capacity; the formula as written (literal) collapses the hit ratio. "
             "Workload-dependent: on Mixtral long, the one serving workload where LRU sits near 71%, MLRU *loses* "
             "~10 points; on dense Llama it gains ~2 points (KV pages only). The 71% baseline is the seed's "
             "workload, which we do not have.",
        numbers=dict(nearest_capacity=cap0, lru=l0, mlru=m0))


@claim("mlru-formula", "T_age = T_last + (1 − h)·500 ms, so a block with h = 0.6 ages 4× faster than one with h = 0.9",
       "000 §3.1", "arithmetic")
def mlru_formula(R):
    exp = {h: (1 - h) * 500 for h in (0.6, 0.9)}
    return dict(
        test="the formula evaluated; both readings are `mlru` options (docs/policies.md)",
        measured=f"h = 0.6 expires {exp[0.6]:.0f} ms after its last access, h = 0.9 after {exp[0.9]:.0f} ms: "
                 f"the block that hits more expires {exp[0.6] / exp[0.9]:.0f}× sooner",
        verdict=REFUTED,
        note="the formula contradicts the sentence (the 4× is the ratio of miss ratios, in the opposite direction); "
             "row mlru-lift shows the literal formula collapsing the hit ratio",
        numbers=dict(expiry_ms=exp))


@claim("block-size", "block_size = hidden·intermediate·2 // 1024 gives Llama-2's 384 KB attention / 1.2 MB FFN blocks",
       "000 §3.1", "arithmetic")
def block_size(R):
    c = model("llama-2-7b")
    h, i = c["hidden_size"], c["intermediate_size"]
    seed_b = h * i * 2 // 1024
    attn, mlp = 4 * h * h * 2, 3 * h * i * 2
    return dict(
        test="scenarios/models/llama-2-7b.json through the formula (granularity `seed` in the workload generator)",
        measured=f"{h}·{i}·2 // 1024 = {seed_b:,} B (86 KiB), one value for every layer; Llama-2-7B's fp16 tensors: "
                 f"attention {attn / 2**20:.0f} MiB (4 of {h * h * 2 / 2**20:.0f} MiB), MLP {mlp / 2**20:.0f} MiB per layer",
        verdict=REFUTED,
        numbers=dict(seed_block_bytes=seed_b))


@claim("controller", "windowed hit ratio < 0.75 → pre-warm the next 10 tokens' blocks; > 0.88 → evict blocks idle 300 ms: "
       "the core of their gains", "000 §1", "simulator")
def controller(R):
    runs = R.runs("controller")
    rows = []
    for m in ("llama-2-7b", "phi-3-mini", "mixtral-8x7b"):
        sel = lambda i: [r for r in select(runs, workload__model=m) if r["policy_index"] == i]
        h = [spread([pct(r["hit_ratio_by_access"]) for r in sel(i)]) for i in range(3)]
        tp = [spread([r["tpot_mean_ns"] / 1e6 for r in sel(i)]) for i in range(3)]
        tt = [spread([r["ttft_p50_ns"] / 1e6 for r in sel(i)]) for i in range(3)]
        acc = spread([pct(r["prefetch_accuracy"]) for r in sel(1)], "{:.0f}")
        rows.append(f"{m}: hit LRU {h[0]}% / +controller {h[1]}% / +controller at half the tier {h[2]}%; "
                    f"TPOT {tp[0]} / {tp[1]} / {tp[2]} ms; TTFT p50 {tt[0]} / {tt[1]} / {tt[2]} ms; "
                    f"prefetch accuracy (seed's numbers) {acc}%")
    return dict(
        test=f"{cmd('controller')}: short preset, 50% of the footprint, event engine, h200 profile; LRU, LRU + "
             "`hit_ratio_controller` (0.75 / 0.88 / 10 tokens / 300 ms), and the same with `prewarm_fraction: 0.5`; 3 seeds",
        measured="; ".join(rows),
        verdict=REFUTED,
        note="with the seed's numbers the controller never raises the hit ratio and adds ~50% to TTFT; bounded to half "
             "the tier its pre-warm raises the hit ratio on Llama but TPOT stays the same (a link-bound scan moves "
             "the same bytes)")


@claim("markov", "Markov pre-warm: a sliding-window transition matrix, pre-warm the likely successors (62% / 28% / 10%)",
       "000 §3.1", "simulator")
def markov(R):
    runs = R.runs("markov")
    rows = []
    for rt in ("markov", "skewed"):
        s = lambda p, key, f=pct: [f(r[key]) for r in select(runs, p, workload__routing=rt)]
        rows.append(f"{rt} routing: hit LRU {spread(s('lru', 'hit_ratio_by_access'))}% → LRU+markov "
                    f"{spread(s('lru+markov', 'hit_ratio_by_access'))}% (accuracy {spread(s('lru+markov', 'prefetch_accuracy'), '{:.0f}')}%, "
                    f"coverage {spread(s('lru+markov', 'prefetch_coverage'), '{:.0f}')}%); TPOT "
                    f"{spread(s('lru', 'tpot_mean_ns', lambda v: v / 1e6), '{:.0f}')} → "
                    f"{spread(s('lru+markov', 'tpot_mean_ns', lambda v: v / 1e6), '{:.0f}')} ms")
    return dict(
        test=f"{cmd('markov')}: Mixtral-8x7B short, 50%, event engine, h200; routing drawn from the seed's example "
             "chain (scenarios/verdicts/markov-transitions.csv) and the default skewed routing; LRU vs LRU + `markov` "
             "(state expert, top 3 above 10%); 3 seeds",
        measured="; ".join(rows),
        verdict=HOLDS,
        note="for the hit ratio: the predictor is accurate and lifts it by 16-18 points (the seed gives no number); but "
             "many prefetches arrive late and the link carries more bytes, so time per token gets 3-6% worse")


@claim("cuda-graph", "CUDA Graph fixes the access pattern: 76.3% hit vs 84.1% with dynamic execution and prefetch "
       "(Flash misses +22% with Graph)", "000 §2", "simulator")
def cuda_graph(R):
    runs = R.runs("markov")
    s = lambda p: spread([pct(r["hit_ratio_by_access"]) for r in select(runs, p, workload__routing="markov")])
    return dict(
        test=f"proxy in {cmd('markov')}: a fixed schedule (`lookahead` along the operator order, blind to routing) vs the "
             "same plus a predictor learned online (`lookahead` + `markov`), Mixtral-8x7B short, 50%, 3 seeds",
        measured=f"hit ratio fixed schedule {s('lru+lookahead')}%, with the learned predictor {s('lru+lookahead+markov')}% "
                 f"(LRU alone {s('lru')}%)",
        verdict=untestable("flashsim models no CUDA graphs and a graph does not change which bytes a kernel reads; "
                           "the proxy agrees in direction only, at very different levels; the seed's own setup, the "
                           "same prompt 1000 times, has one fixed access path, where a fixed schedule is exact"))


@claim("locality", "over 63% of weight accesses have strong spatio-temporal locality (FPGA probe of millions of "
       "KV-cache reads/writes)", "000 §1", "simulator")
def locality(R):
    runs = R.runs("mlru-models")
    lru = spread([pct(r["hit_ratio_by_byte"]) for r in select(runs, "lru", workload__model="llama-2-7b")])
    return dict(
        test=f"proxy: LRU's hit ratio by byte on a generated Llama-2-7B trace ({cmd('mlru-models')}, 50% of the footprint)",
        measured=f"{lru}% of bytes hit (KV pages only): each decode step reads every weight once, in the same order, "
                 "so a weight's reuse distance is the whole model",
        verdict=untestable("'local' is not defined and the probe data are not available; in a decode step every weight "
                           "block is read once per token, which no definition of locality at the block level can put at 63%"))


@claim("packing", "packing 3 adjacent layers into one slice: +19% fast-tier space, −34% mean latency, slices 63% used",
       "000 §2", "simulator")
def packing(R):
    un, pk = R.runs("packing-unpacked"), R.runs("packing-packed")
    rows = []
    for prof in ("h200", "seed-defaults"):
        for cap in ("16GiB", "24GiB"):
            u = select(un, hardware__profile=prof, cache__capacity=cap)[0]
            p = select(pk, hardware__profile=prof, cache__capacity=cap)[0]
            d = 100 * (p["simulated_ns"] / u["simulated_ns"] - 1)
            rows.append(f"{prof}, {cap}: per token {u['simulated_ns'] / 8e6:.1f} → {p['simulated_ns'] / 8e6:.1f} ms "
                        f"({d:+.1f}%), hits {pct(u['hit_ratio_by_byte']):.1f}% → {pct(p['hit_ratio_by_byte']):.1f}%")
    u24, p24 = (select(x, hardware__profile="h200", cache__capacity="24GiB")[0] for x in (un, pk))
    space = 100 * (p24["slot_reserved_peak_bytes"] / u24["slot_reserved_peak_bytes"] - 1)
    c = model("llama-2-7b")
    h, i = c["hidden_size"], c["intermediate_size"]
    layer = (4 * h * h + 3 * h * i + 2 * h) * 2
    util = 3 * layer / 2**31
    cp = model("phi-3-mini")
    hp, ip = cp["hidden_size"], cp["intermediate_size"]
    layer_p = (hp * 3 * hp + hp * hp + hp * 2 * ip + ip * hp + 2 * hp) * 2
    util_p = 3 * layer_p / 2**30
    return dict(
        test=f"{cmd('packing-unpacked')} and {cmd('packing-packed')}: 30 Llama-2-7B layers as 30 one-layer or 10 "
             "three-layer blocks in power-of-two slots, 8 decode tokens, fast tier 16 / 24 GiB, h200 and seed-defaults "
             "(142 ns miss, 4.3 ns/MiB); slot use from the configs",
        measured="; ".join(rows) + f". Reserved space packed vs unpacked {space:+.0f}%. A 3-layer slice uses "
                 f"{pct(util):.1f}% of its 2 GiB slot (Llama-2-7B), {pct(util_p):.1f}% of 1 GiB (Phi-3-mini); a slice 63% "
                 f"used costs {100 / 0.63 - 100:+.0f}% space over a tight fit, not +19%",
        verdict=REFUTED,
        note="when both layouts fit, packing saves two copy set-ups per three layers: ≤ 0.2% on the H200 (a few % only "
             "under the seed's own 4.3 ns/MiB); when the extra space does not fit, packing loses every hit. "
             "docs/models.md has `pack_layers`'s per-model numbers (C++ only)",
        numbers=dict(space_pct=space, util_llama=util, util_phi3=util_p))


@claim("granularity", "PagedAttention's fixed 4 KB block is inefficient: the fast tier's optimal access granularity is 256 B",
       "000 §1", "simulator + hardware")
def granularity(R):
    runs = R.runs("granularity")
    rows = []
    for prof in ("h200", "seed-defaults"):
        t = {g: spread([r["simulated_ns"] / 1e6 for r in select(runs, hardware__profile=prof, cache__granularity=g)], "{:.0f}")
             for g in ("256B", "4KiB", "whole")}
        rows.append(f"{prof}: 256 B {t['256B']} ms, 4 KiB {t['4KiB']} ms, 64 KiB blocks {t['whole']} ms")
    hits = spread([pct(r["hit_ratio_by_access"]) for r in select(runs, hardware__profile="h200", cache__granularity="4KiB")])
    base = json.loads(read("validate/baselines/h200/h200.json"))
    tpt = {e["name"]: e["metrics"]["time_per_token_ns"] for e in base["entries"]}
    hw = {n: tpt[f"zipf-{n}-lru-50"] for n in ("256B", "4KiB")}
    hwtxt = "; ".join(f"{n}: {m['median'] / 1e6:.1f} ms ({m['min'] / 1e6:.1f}..{m['max'] / 1e6:.1f})" for n, m in hw.items())
    return dict(
        test=f"{cmd('granularity')}: the same 64 MiB workload moved at 256 B, 4 KiB and 64 KiB (`cache.granularity`), "
             "25% fast tier, 3 seeds. H200: the validation baseline's replays of `zipf-256B-lru-50` and `zipf-4KiB-lru-50` "
             f"(validate/baselines/h200/h200.json, commit {git_commit('validate/baselines/h200/h200.json')}, measured at "
             f"{base['provenance']['commit'][:7]}, 5 repeats)",
        measured=f"simulated time, median (min..max): {'; '.join(rows)}; hit ratio equal at every granularity ({hits}%). "
                 f"H200 replay, time per token for the same access count: {hwtxt} — a 4 KiB copy costs what a 256 B "
                 "copy does (4.53 µs each, h200-calibrated.yaml) and moves 16× the bytes",
        verdict=REFUTED,
        numbers=dict(hw_time_per_token_ns={k: v["median"] for k, v in hw.items()}))


@claim("cross-attention", "reserve a minimum 35% of bandwidth for the cross-attention segment (12% of the model, accessed "
       "very often)", "000 §3.2", "simulator + arithmetic")
def cross_attention(R):
    runs = R.runs("cross-attention")
    rows = []
    for preset in ("medium", "long"):
        for pol, label_ in (("lru", "lru"), ("lru+lookahead", "lru+lookahead(depth=4)")):
            a = select(runs, label_, workload__preset=preset, bandwidth__segment_shares="{}")[0]
            b = [r for r in select(runs, label_, workload__preset=preset) if r is not a][0]
            d = 100 * (b["tpot_mean_ns"] / a["tpot_mean_ns"] - 1)
            rows.append(f"{preset}, {pol}: TPOT {a['tpot_mean_ns'] / 1e6:.1f} → {b['tpot_mean_ns'] / 1e6:.1f} ms ({d:+.0f}%)")
    c = model("t5-base")
    d, inner, L = c["d_model"], c["num_heads"] * c["d_kv"], c.get("num_decoder_layers", c["num_layers"])
    xattn = L * (4 * d * inner + d)
    total = 222_903_552  # t5-base parameters, counted by weight_tensors (docs/models.md)
    return dict(
        test=f"{cmd('cross-attention')}: T5-base medium and long presets, 50%, event engine, h200; LRU and LRU + "
             "`lookahead` without and with `bandwidth.segment_shares: {cross_attention: 35%}`; share of the model from "
             "t5-base.json",
        measured="; ".join(rows) + f". Cross-attention (q, k, v, o and its layer norm, 12 decoder layers): "
                 f"{xattn:,} of {total:,} parameters = {pct(xattn / total):.1f}% of the model",
        verdict=HOLDS,
        note="the reservation shortens TPOT when prefetches compete with cross-attention's demand misses on the link, "
             "and changes nothing with demand misses alone; the seed gives no size for the gain. Deterministic workload: "
             "one run per point",
        numbers=dict(cross_attention_share=xattn / total))


@claim("semantic", "semantic prefetch (top-5 similar concepts) lifts the following text generation's hit ratio by 22%",
       "000 §3.3", "simulator")
def semantic(R):
    runs = R.runs("semantic")
    rows = []
    for cap in ("50%", "75%"):
        l = [r["hit_ratio_by_access"] for r in select(runs, "lru", cache__capacity=cap)]
        s = [r["hit_ratio_by_access"] for r in select(runs, "lru+semantic", cache__capacity=cap)]
        lm = [r["misses"] for r in select(runs, "lru", cache__capacity=cap)]
        sm = [r["misses"] for r in select(runs, "lru+semantic", cache__capacity=cap)]
        rel = [100 * (b / a - 1) for a, b in zip(l, s)]
        acc = spread([pct(r["prefetch_accuracy"]) for r in select(runs, "lru+semantic", cache__capacity=cap)], "{:.0f}")
        rows.append(f"{cap}: hit ratio LRU {spread([pct(x) for x in l], '{:.2f}')}% → +semantic "
                    f"{spread([pct(x) for x in s], '{:.2f}')}% (relative {spread(rel, '{:+.2f}')}%), misses "
                    f"{spread(lm, '{:.0f}')} → {spread(sm, '{:.0f}')}, prefetch accuracy {acc}%")
    return dict(
        test=f"{cmd('semantic')}: LLaVA-1.5-7B, 40 one-image requests (10 in flight, 32/128 tokens), 64 concepts in "
             "8 clusters, fast tier 50% and 75%, event engine, h200; LRU vs LRU + `semantic` (top 5); 3 seeds",
        measured="; ".join(rows),
        verdict=REFUTED,
        note="image features are a sliver of the bytes a request reads; prefetching neighbours' features changes the "
             "hit ratio by well under 1%. The seed's ViT concept extractor is stood in for by the accessed concept")


# ---------------------------------------------------------------- seed 000: hardware and tools

HW_DOC = "docs/hardware.md"
HW_PROFILE = "scenarios/hardware/h200-calibrated.yaml"


def chase(prof, kib):
    m = re.search(rf"#\s+{kib} KiB: median ([\d.]+) ns, min ([\d.]+), max ([\d.]+)", prof)
    return tuple(float(x) for x in m.groups())


@claim("miss-142ns", "on Hopper one Flash miss costs 142 ns", "000 §2", "hardware")
def miss_142(R):
    prof = read(HW_PROFILE)
    hit, l2end, hbm = chase(prof, 4096), chase(prof, 65536), chase(prof, 2097152)
    return dict(
        test=f"`flashsim calibrate` on the H200 (device call 4 of 2026-11-30, {HW_DOC}), committed as {HW_PROFILE} "
             f"in {git_commit(HW_PROFILE, '141.3 ns')}: dependent-load latency against working set",
        measured=f"L2-resident (4 MiB) {hit[0]} ns ({hit[1]}..{hit[2]}), 64 MiB {l2end[0]} ns, HBM (2 GiB) {hbm[0]} ns "
                 f"({hbm[1]}..{hbm[2]}); a PCIe fetch ≥ 4.5 µs (a 256 B H2D copy)",
        verdict=DIFFERENT,
        note="142 ns is the H200's L2 *hit*; an L2 miss to HBM costs ~349 ns, 2.5× the seed's figure",
        numbers=dict(l2_hit_ns=hit[0], hbm_ns=hbm[0]))


@claim("contention", "one more MB of Flash costs only 4.3 ns of bandwidth contention (a miss is 33× that)", "000 §2",
       "hardware")
def contention(R):
    prof = read(HW_PROFILE)
    m = re.search(r"slope per repeat: median (\d+\.\d+) ns/MiB, min (\d+\.\d+), max (\d+\.\d+)", prof)
    med, lo, hi = (float(x) for x in m.groups())
    return dict(
        test=f"`flashsim calibrate` contention probe (device call 4, {HW_DOC}; {HW_PROFILE}, commit "
             f"{git_commit(HW_PROFILE, '0.00642')}): a hot set's load latency after N MiB of other blocks, N = 0..16 GiB",
        measured=f"slope {med} ns/MiB (repeats {lo}..{hi}), {4.3 / med:.0f}× below 4.3; not linear: saturates at the "
                 "HBM latency once the hot set's L2 lines are evicted",
        verdict=REFUTED,
        numbers=dict(ns_per_mib=med))


@claim("l2-hot", "keeping hot weights pinned in the L2 pays", "000 §1, §3.3", "hardware")
def l2_hot(R):
    f = "validate/baselines/h200/seed-verdicts/l2-window-repeats.txt"
    rows = [l.split() for l in read(f).splitlines() if l and not l.startswith("#")]
    stall = {w: [int(r[2]) / 1e6 for r in rows if r[0] == w] for w in ("window", "nowindow")}
    return dict(
        test="`flashsim replay --l2-mode` (the fast tier is the persisting L2 carve-out: a stream access-policy window "
             "over the staging region) with and without the window, cloudPhysics first 20,000 accesses, LRU, 32 MiB, "
             f"5 alternating repeats each (`tools/device/seed_hw_h200.sh`, 2026-12-02; {f}, committed in {git_commit(f)}); "
             "earlier single runs: the window probe of ../shared/hw/H200.md",
        measured=f"stall with the window {spread(stall['window'])} ms, without {spread(stall['nowindow'])} ms "
                 f"(same decisions: hit ratio by access {pct(float(rows[0][4])):.1f}% in every run); the single runs' "
                 "0-12% (hot read) and -27% (this replay) were within the run-to-run spread",
        verdict=REFUTED + ": no gain measurable on the H200 for this replay; the run-to-run spread (about ±15%) is "
                          "larger than any effect of the window")


@claim("cuda-graph-h200", "CUDA Graph fixes the access pattern: Flash misses +22%, hit 76.3% with Graph vs 84.1% "
       "dynamic (so their serving path left weight loads out of graphs)", "000 §2", "hardware")
def cuda_graph_h200(R):
    d = "validate/baselines/h200/seed-verdicts"
    out = []
    for size, what in (("small", "2 layers, 49 MiB of weights (fits in L2)"), ("large", "8 layers, 784 MiB (streamed)")):
        cells = []
        for mode in ("eager", "graph"):
            n = json.loads(read(f"{d}/graph-{size}-{mode}.diagnose.json"))["ncu"]
            t = json.loads(read(f"{d}/graph-{size}-{mode}.timing.json"))
            looked = (n["sector_lookup_hits"] + n["sector_lookup_misses"]) * 32 / n["weight_kernel_launches"]
            cells.append(f"{mode}: step {spread([x / 1e3 for x in t['step_ns']])} µs, L2 hit {pct(n['l2_hit_rate']):.1f}% "
                         f"({looked / 2**20:.2f} MiB of lookups per kernel)")
        out.append(f"{what}: " + "; ".join(cells))
    return dict(
        test="`validate/programs/graph_vs_eager.py` (a Llama-shaped stack of bf16 linear layers, batch 1, weights on the "
             "GPU) eager vs one CUDA graph replay per step, timed (200 steps) and under `flashsim diagnose --counters` "
             f"(ncu, SM sector lookups of the GEMV/GEMM kernels, caches not flushed; one run each; "
             f"`tools/device/seed_hw_h200.sh`, 2026-12-02; {d}, committed in {git_commit(d + '/graph-small-eager.diagnose.json')})",
        measured="; ".join(out),
        verdict=untestable("as a hit rate: in the streamed case the counted lookups cover a few percent of the weight "
                           "bytes (the large GEMVs load through a path ncu's srcunit_tex lookups do not count), and ncu "
                           "serialises kernels; where they are complete (weights in L2) graph and eager hit alike. What "
                           "was measured contradicts the conclusion: the graph made each decode step 2.3-2.4x faster"))


@claim("dmon", "`nvidia-smi dmon -s u` shows the L2 cache hit ratio (error < 0.8%); column 5 of `-s p` is PCIe "
       "bandwidth use; SUPPORTED_CLOCKS gives the true hit ratio", "000 §4.1", "hardware")
def dmon(R):
    txt = read("docs/seed-verdicts/h200-tools.txt")
    hdr = lambda s: re.search(rf"dmon -s {s} -d 1 -c 1\n(# gpu.*)\n", txt).group(1).split()[1:]
    return dict(
        test="on the H200: `nvidia-smi dmon -s u|p|t -d 1 -c 1`, `nvidia-smi -q -d SUPPORTED_CLOCKS` "
             "(docs/seed-verdicts/h200-tools.txt, device run of 2026-12-02 at a9e6116, driver 580.159.04)",
        measured=f"`-s u` columns {' '.join(hdr('u'))} (SM and memory-controller %, no L2); `-s p` "
                 f"{' '.join(hdr('p'))} (power and temperatures; the seed's `awk '{{print $5}}' | tail -n +2` prints the "
                 f"units row's 'C'); PCIe is `-s t`: {' '.join(hdr('t'))}; SUPPORTED_CLOCKS lists clock frequencies",
        verdict=REFUTED)


@claim("perf", "`perf stat -e gpu/lts__t_sectors_srcunit_tex_op_read/` (and mem__inst_executed_*) reads Hopper's L2 "
       "counters", "000 §4.3", "hardware")
def perf(R):
    txt = read("docs/seed-verdicts/h200-tools.txt")
    pmus = re.search(r"event_source/devices\n((?:\w+\n)+)", txt).group(1).split()
    return dict(
        test="on the H200: `command -v perf`, `ls /sys/bus/event_source/devices`, `ncu --query-metrics --chip gh100` "
             "(docs/seed-verdicts/h200-tools.txt)",
        measured=f"perf not installed; kernel PMUs: {', '.join(pmus)} (no gpu PMU); the lts__ metrics exist in Nsight "
                 "Compute (`ncu --metrics lts__t_sectors_srcunit_tex_op_read`)",
        verdict=REFUTED)


@claim("vllm-4kb", "vLLM's (and TGI's) PagedAttention block is a fixed 4 KB", "000 §1", "arithmetic")
def vllm_block(R):
    c = model("llama-2-7b")
    per_token_layer = 2 * c["num_key_value_heads"] * (c["hidden_size"] // c["num_attention_heads"]) * 2
    return dict(
        test="vLLM's documented `block_size` (tokens, default 16) times the KV bytes of a token; the serving generator's "
             "`page_tokens` (docs/workloads.md)",
        measured=f"a 16-token block of one Llama-2-7B layer is 16 × {per_token_layer:,} B = {16 * per_token_layer:,} B "
                 f"({16 * per_token_layer // 1024} KiB); it scales with the model",
        verdict=REFUTED)


@claim("t5-layernorm", "T5 shares one set of LayerNorm gamma/beta across all layers", "000 §3.2", "arithmetic")
def t5_layernorm(R):
    c = model("t5-base")
    enc, dec = c["num_layers"], c.get("num_decoder_layers", c["num_layers"])
    n = 2 * enc + 3 * dec + 2
    return dict(
        test="T5's architecture (transformers' T5Block), counted in `weight_tensors` (tests/model, docs/models.md)",
        measured=f"t5-base has {n} distinct layer-norm vectors (2 per encoder block, 3 per decoder block, one final per "
                 "stack); the only shared tensor is the tied embedding",
        verdict=REFUTED)


UNSOURCED_000 = [
    ("single-card QPS 38 → 62, P99 −41%, peak memory −27% (DeepSeek v2.5 on A100)", "000 §1"),
    ("PCIe utilisation 58% → 92% from three lines of prefetch code", "000 §1"),
    ("Prometheus memory use correlates < 0.3 with contention; 17× more alerts for Qwen than Phi-3", "000 §1"),
    ("X-Flash-Hit-Ratio: 0.83 header in DeepSeek-R1's API", "000 §1"),
    ("H100 instead of A100 raised request timeouts by 12%", "000 §1"),
    ("Rust cache manager: −41% CPU, +8.7 ms P99; Python fix: 99.92% → 99.997% availability, +11% memory", "000 §2"),
    ("CUDA Graph's 7.8-point hit gap saves 2.3 TB of Flash bandwidth a day at ten million requests", "000 §2"),
    ("decoder-only hit-ratio curve saw-tooths with peak-valley > 0.4", "000 §3.1"),
    ("ViT of 12M parameters < 8 ms; CLIP text encoder 210 ms; 1.3% accuracy loss, 27× faster", "000 §3.3"),
    ("fused dequantisation saves 17 cycles per GEMM; RoPE fusion 3.2 → 2.1 ms per token on A100, −5% on H100", "000 §3.4"),
]


def make_unsourced(n, text, where):
    @claim(f"000-unsourced-{n}", text, where, "none")
    def fn(R):
        return dict(test="—", measured="—",
                    verdict=untestable("a measurement of the author's systems, services or kernels, with no method, "
                                       "workload or data given; not reproduced here"))
    return fn


for _n, (_t, _w) in enumerate(UNSOURCED_000, 1):
    make_unsourced(_n, _t, _w)


@claim("bw-reservation", "bandwidth reservation: BW_req = (L_in·0.8 + L_out·1.2)·base_bw, base_bw 1.2 GB/s on an A100; "
       "requests that do not fit wait", "000 §3.2", "none")
def bw_reservation(R):
    return dict(test="implemented as `bandwidth.reservation` (docs/scenarios.md); not run for this table", measured="—",
                verdict=untestable("a design rule with no measured outcome to check; its 1.2 GB/s is an A100 "
                                   "figure the seed does not derive"))


# ---------------------------------------------------------------- seed 002

@claim("kv-formula", "KV bytes = 2·num_layers·hidden·2·seq_len·batch; Qwen3.8 (hidden 5120, 40 layers), seq 2048, "
       "batch 2 needs ~1.5 GB", "002 §4", "simulator + arithmetic")
def kv_formula(R):
    runs = R.runs("kv-formula")
    rows, nums = [], {}
    for m in ("llama-2-7b", "qwen2-7b"):
        c = model(m)
        formula = 2 * c["num_hidden_layers"] * c["hidden_size"] * 2 * 2048 * 2
        sim = select(runs, workload__model=m)[0]["peak_kv_bytes"]
        rows.append(f"{m} ({c.get('num_key_value_heads', c['num_attention_heads'])} KV heads): formula {formula:,} B, "
                    f"simulator {sim:,} B ({formula / sim:.2f}×)")
        nums[m] = dict(formula=formula, simulated=sim)
    example = 2 * 40 * 5120 * 2 * 2048 * 2
    return dict(
        test=f"{cmd('kv-formula')}: 2 requests × 2048 tokens of KV in 16-token pages, peak live KV (`peak_kv_bytes`); "
             "the seed's example through its own formula",
        measured="; ".join(rows) + f". The seed's example: {example:,} B = {example / 2**30:.3f} GiB, not ~1.5 GB",
        verdict=DIFFERENT,
        note="exact for multi-head attention; grouped-query models store kv_heads·head_dim, not hidden (7× less for "
             "Qwen2-7B); the seed's own example is off by 2×",
        numbers=nums)


@claim("batch-formula", "max_batch ≈ (84 − spike peak) / 2.5 GB (error < 0.3 on an RTX 4090)", "002 §5",
       "simulator")
def batch_formula(R):
    runs = R.runs("batch")
    ok = [int(label(r)["workload.concurrency"]) for r in runs if not r["oom_reached"]]
    oom = [r for r in runs if r["oom_reached"]]
    first = min(oom, key=lambda r: int(label(r)["workload.concurrency"])) if oom else None
    per_req = select(runs, workload__concurrency=1)[0]["peak_kv_bytes"]
    w = select(runs, workload__concurrency=1)[0]["pinned_bytes"]
    head = 18.5e9 - w
    return dict(
        test=f"{cmd('batch')}: Llama-2-7B, long preset per request, weights pinned, KV never evicted, fast tier 18.5 GB; "
             "concurrency 1..5, out-of-memory point (`oom_reached`)",
        measured=f"weights {w / 1e9:.2f} GB, headroom {head / 1e9:.2f} GB; KV of one request {per_req / 1e9:.2f} GB; "
                 f"runs without OOM at concurrency {', '.join(map(str, ok))}"
                 + (f"; concurrency {label(first)['workload.concurrency']} runs out at token "
                    f"{first['oom_token_index']} with {first['oom_kv_bytes'] / 1e9:.2f} GB of KV" if first else "")
                 + f". The seed's formula gives {head / 2.5e9:.1f}; headroom / KV per request gives {head / per_req:.1f}",
        verdict=DIFFERENT,
        note="the form (headroom over a per-sequence cost) holds; the 2.5 GB constant is one model and length's KV "
             "(here 1.61 GB), and the seed's 84 GB card does not exist (row rtx4090)",
        numbers=dict(max_ok=max(ok) if ok else 0, per_request_kv=per_req))


@claim("spike", "every model shows a sharp memory spike in prefill (78.2% / 410 ms ...); spike height predicts "
       "long-text throughput (R² = 0.93)", "002 §5", "simulator")
def spike(R):
    runs = R.runs("batch")
    r = select(runs, workload__concurrency=2)[0]
    return dict(
        test=f"where the simulator's fast-tier peak falls ({cmd('batch')}, concurrency 2)",
        measured=f"peak {r['peak_total_bytes'] / 1e9:.2f} GB at {r['peak_total_at_ns'] / 1e9:.2f} s of "
                 f"{r['simulated_ns'] / 1e9:.2f} s: at the end of decode, where the KV is largest",
        verdict=untestable("the spike's claimed causes (JIT compilation, temporary buffers, allocator defragmentation) are "
                           "not modelled: the simulator holds weights, KV pages and I/O blocks only, so its peak is the "
                           "last decode step's KV, never a prefill transient"))


@claim("longrun", "100k-token generation: Qwen3.8 completes at 76.3% memory, DeepSeek V4 runs out at token 82,341 from "
       "a linear leak of 1.8 MB per 1000 tokens", "002 §6", "simulator + arithmetic")
def longrun(R):
    runs = R.runs("longrun")
    rows = []
    for m in ("llama-2-7b", "qwen2-7b"):
        r = select(runs, workload__model=m)[0]
        c = model(m)
        kvt = 2 * c["num_hidden_layers"] * c.get("num_key_value_heads", c["num_attention_heads"]) \
            * (c["hidden_size"] // c["num_attention_heads"]) * 2
        pred = (24e9 - r["pinned_bytes"]) / kvt
        if r["oom_reached"]:
            rows.append(f"{m}: out of memory at token {r['oom_token_index']:,} (predicted (24 GB − weights) / "
                        f"{kvt:,} B = {pred:,.0f}, to a 1024-token page)")
        else:
            rows.append(f"{m}: completes 100,000 tokens, peak {r['peak_total_bytes'] / 1e9:.2f} GB "
                        f"({pct(r['peak_total_bytes'] / 24e9):.1f}% of 24 GB)")
    leak = 82.341 * 1.8e6
    seed_kv = 2 * 40 * 5120 * 2 * 101_000
    return dict(
        test=f"{cmd('longrun')}: 1,000 + 100,000 tokens, weights pinned, KV never evicted, a 24 GB fast tier (an RTX "
             "4090); the seed's leak and model through arithmetic",
        measured="; ".join(rows) + f". The seed's leak adds {leak / 1e6:.0f} MB by token 82,341, not the ~27% of the "
                 f"card its table needs (72% → 99%); its own Qwen3.8 shape needs {seed_kv / 1e9:.1f} GB of KV at 101k tokens",
        verdict=untestable("the seed's models are fictional; what is testable holds: KV grows linearly and a run stops "
                           "where weights plus KV pass the memory, predicted to a page; the seed's own leak and shape "
                           "cannot produce its reported crash points or its 76.3%"))


@claim("pages-2048", "a 2048-token prompt needs 128 pages of 16 tokens", "002 §4", "arithmetic")
def pages(R):
    return dict(test="2048 / 16", measured=f"{2048 // 16} pages per layer per request (the serving generator's layout)",
                verdict=HOLDS)


@claim("qwen-weights", "Qwen3.8 (120B parameters, 4-bit) weights take about 2.8 GB", "002 §4", "arithmetic")
def qwen_weights(R):
    return dict(test="120e9 parameters × 4 bits", measured=f"{120e9 * 0.5 / 1e9:.0f} GB, before scales",
                verdict=REFUTED)


@claim("rtx4090", "an RTX 4090 has 84 GB (the spike 83.6% 'approaches its 84 GB')", "002 §5", "arithmetic")
def rtx4090(R):
    return dict(test="NVIDIA's datasheet", measured="24 GB GDDR6X", verdict=REFUTED)


@claim("repos", "the models are on the Hub as deepseek-ai/deepseek-v2-flash, Qwen/Qwen3.8-Flash, ZhipuAI/glm-5.3-flash, "
       "google/gemini-3.8-flash", "002 §2", "none")
def repos(R):
    return dict(test="—", measured="—",
                verdict=untestable("no network here; none of these repositories is known to exist, and Gemini's "
                                   "weights are not published"))


@claim("unsourced-002", "cold/warm start times, llmperf throughput at the three presets, first-token 82 ms, OOM at "
       "tokens 892-903, 27 variants tested", "002 §1, §3-§6", "none")
def unsourced_002(R):
    return dict(test="the presets exist as workloads (docs/workloads.md, scenarios/experiments)", measured="—",
                verdict=untestable("measurements of fictional models on a consumer GPU we do not have"))


# ---------------------------------------------------------------- output

def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def table(rows):
    out = ["| # | claim | seed | kind | how it was tested | measured | verdict |", "|---|---|---|---|---|---|---|"]
    for n, r in enumerate(rows, 1):
        verdict = f"**{r['verdict']}**" + (f": {r['note']}" if r.get("note") else "")
        out.append("| " + " | ".join(cell(x) for x in (
            f"{n} `{r['id']}`", r["claim"], r["where"], r["kind"], r["test"], r["measured"], verdict)) + " |")
    return "\n".join(out)


def write_atomic(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flashsim", default=os.path.join(ROOT, "build", "bin", "flashsim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--results", help="folder for the runs' results (default: a temporary folder)")
    ap.add_argument("--reuse", action="store_true", help="with --results: read results already there instead of running")
    a = ap.parse_args()
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="seed-verdicts-") as tmp:
        R = Runner(os.path.abspath(a.flashsim), a.results or tmp, a.jobs, a.reuse and bool(a.results))
        rows = []
        for c in CLAIMS:
            r = c["fn"](R)
            rows.append(dict(id=c["id"], claim=c["claim"], where=c["where"], kind=c["kind"], **r))
    version = subprocess.run([a.flashsim, "--version"], capture_output=True, text=True).stdout.strip()
    wall = time.time() - t0
    write_atomic(JSON_OUT, json.dumps(dict(tool_version=version, wall_seconds=round(wall, 1), rows=rows),
                                      indent=1, ensure_ascii=False) + "\n")
    doc = read("docs/seed-verdicts.md")
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    timing = "the runs of an earlier call reused" if a.reuse and a.results else f"{wall:.0f} s"
    gen = f"{BEGIN}\n_Generated by `tools/seed_verdicts.py` ({version}, {timing})._\n\n{table(rows)}\n{END}"
    write_atomic(DOC, head + gen + tail)
    print(f"{len(rows)} rows, {wall:.0f} s: {os.path.relpath(DOC, ROOT)}, {os.path.relpath(JSON_OUT, ROOT)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()

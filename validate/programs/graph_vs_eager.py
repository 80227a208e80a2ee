#!/usr/bin/env python3
"""Seed 000 §2's CUDA Graph claim on the H200: does capturing a decode step in
a CUDA graph change how often the weight-reading kernels hit in L2? A
Llama-shaped stack of bf16 linear layers (attention projections and a gated
MLP, no attention itself), random weights resident on the GPU, batch 1; each
step (an NVTX mark "flashsim.step") runs the stack once, eagerly or as one
CUDA graph replay. Run it under `flashsim diagnose --counters` for the L2 hit
rate of the GEMV/GEMM kernels; it prints its own step times (median, min..max)."""
import argparse
import json
import os
import statistics
import time

import torch
import torch.nn.functional as F


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["eager", "graph"], required=True)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--intermediate", type=int, default=2816)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out", default=None, help="write the step times as JSON here")
    a = ap.parse_args()
    torch.manual_seed(0)
    dev, dt = torch.device("cuda"), torch.bfloat16
    h, m = a.hidden, a.intermediate
    layers = [dict(q=torch.randn(h, h, device=dev, dtype=dt) * 0.02, k=torch.randn(h, h, device=dev, dtype=dt) * 0.02,
                   v=torch.randn(h, h, device=dev, dtype=dt) * 0.02, o=torch.randn(h, h, device=dev, dtype=dt) * 0.02,
                   gate=torch.randn(m, h, device=dev, dtype=dt) * 0.02, up=torch.randn(m, h, device=dev, dtype=dt) * 0.02,
                   down=torch.randn(h, m, device=dev, dtype=dt) * 0.02) for _ in range(a.layers)]
    weight_bytes = sum(w.numel() * w.element_size() for l in layers for w in l.values())
    x = torch.randn(1, h, device=dev, dtype=dt)
    # Each step copies its input in from the host (a decode step's new token), outside any graph.
    x_host = torch.randn(1, h, dtype=dt).pin_memory()

    def step():
        y = x
        for l in layers:
            q, k, v = F.linear(y, l["q"]), F.linear(y, l["k"]), F.linear(y, l["v"])
            y = y + F.linear(q + k + v, l["o"])
            y = y + F.linear(F.silu(F.linear(y, l["gate"])) * F.linear(y, l["up"]), l["down"])
        return y

    run = step
    if a.mode == "graph":
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                step()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            step()
        run = g.replay
    times = []
    for i in range(a.warmup + a.steps):
        torch.cuda.nvtx.mark("flashsim.step")
        t0 = time.perf_counter_ns()
        x.copy_(x_host, non_blocking=True)
        run()
        torch.cuda.synchronize()
        if i >= a.warmup:
            times.append(time.perf_counter_ns() - t0)
    torch.cuda.nvtx.mark("flashsim.step")
    med = statistics.median(times)
    print(f"graph_vs_eager {a.mode}: {a.layers} layers, {weight_bytes / 2**20:.1f} MiB of weights; "
          f"median step {med / 1e3:.1f} us ({min(times) / 1e3:.1f}..{max(times) / 1e3:.1f}), {a.steps} steps")
    if a.out:
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(dict(mode=a.mode, layers=a.layers, hidden=h, intermediate=m, weight_bytes=weight_bytes,
                           step_ns=times, median_step_ns=med, torch=torch.__version__), f, indent=1)
        os.replace(tmp, a.out)


if __name__ == "__main__":
    main()

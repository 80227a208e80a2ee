#!/usr/bin/env python3
"""Double-buffered layer prefetch, the pattern of DeepSpeed's / vLLM's prefetching
weight offloaders, written directly in PyTorch: L layers of bf16 weights (default
16 x 4096x4096 = 32 MiB each) in host memory (pinned; --pageable for pageable), two
device buffers. While the compute stream runs layer i from buffer i%2, a side stream
copies layer i+1 (cyclically: after the last layer, the next token's layer 0) into
the other buffer (buf.copy_(w, non_blocking=True) under torch.cuda.stream(side)).
Cross-stream order with torch.cuda.Event both ways: the compute stream waits for the
copy into its buffer to finish (copy_done), and the side stream waits until the
layer that last read the buffer it is about to overwrite has run (compute_done).
Layer = x <- tanh(x @ W) with x of --rows x hidden (default 8192 rows, so a layer's
matmul, ~0.5 ms, is comparable to its 32 MiB copy, ~0.6 ms at ~54 GB/s).
One step = one "token": all L layers, then a small device->host read of the
output (x[0], 8 KiB, blocking .cpu()) -- the step's natural sync."""
import argparse
import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from common import Harness, add_common_args, check_args  # noqa: E402

NAME = "double_buffer_prefetch"


class _NoEvent:
    def record(self, stream=None):
        pass


def main() -> None:
    ap = add_common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]), steps=8)
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=4096, help="weights are hidden x hidden bf16 (default 4096: 32 MiB)")
    ap.add_argument("--rows", type=int, default=8192, help="activation rows (default 8192)")
    ap.add_argument("--pageable", action="store_true", help="weights in pageable (not pinned) host memory")
    args = ap.parse_args()
    dev = check_args(args)
    if args.layers < 2 or args.layers % 2:
        raise SystemExit("need an even --layers >= 2 (layer i uses buffer i % 2, cyclically)")
    cuda = dev.type == "cuda"
    gen = torch.Generator().manual_seed(args.seed)
    scale = args.hidden ** -0.5
    # one random pool, per-layer weights are shifted views of it copied out (fast on CPU)
    pool = (torch.randn(args.hidden * args.hidden + args.layers * 4096, generator=gen) * scale).to(torch.bfloat16)
    weights = []
    for i in range(args.layers):
        w = pool[i * 4096:i * 4096 + args.hidden * args.hidden].view(args.hidden, args.hidden).clone()
        weights.append(w if (args.pageable or not cuda) else w.pin_memory())
    del pool
    bufs = [torch.empty(args.hidden, args.hidden, dtype=torch.bfloat16, device=dev) for _ in range(2)]
    x = (torch.randn(args.rows, args.hidden, generator=gen)).to(torch.bfloat16).to(dev)
    if cuda:
        compute = torch.cuda.current_stream(dev)
        side = torch.cuda.Stream(dev)
        copy_done = [torch.cuda.Event(), torch.cuda.Event()]
        compute_done = [torch.cuda.Event(), torch.cuda.Event()]
    else:
        compute = side = None
        copy_done = [_NoEvent(), _NoEvent()]
        compute_done = [_NoEvent(), _NoEvent()]

    def issue_copy(layer: int) -> None:
        b = layer % 2
        if cuda:
            side.wait_event(compute_done[b])      # the layer that last read bufs[b] has run
        with torch.cuda.stream(side) if cuda else contextlib.nullcontext():
            bufs[b].copy_(weights[layer], non_blocking=True)
            copy_done[b].record(side)

    state = {"x": x, "out": None}
    L = args.layers

    def step() -> None:
        x = state["x"]
        for i in range(L):
            b = i % 2
            issue_copy((i + 1) % L)   # prefetch the next layer (after the last: next token's layer 0)
            if cuda:
                compute.wait_event(copy_done[b])  # bufs[b] holds layer i
            x = torch.tanh(x @ bufs[b])
            compute_done[b].record(compute)
        state["x"] = x
        state["out"] = x[0].cpu()   # D2H of the token's output: the step's sync

    issue_copy(0)  # prologue: layer 0 of the first token
    h = Harness(NAME, __doc__.strip(), args, dev)
    h.run(step)
    if cuda:
        torch.cuda.synchronize(dev)
    wbytes = args.hidden * args.hidden * 2
    config = {"layers": L, "hidden": args.hidden, "rows": args.rows, "dtype": "bfloat16",
              "weight_bytes": wbytes, "bytes_offloaded": wbytes * L, "bytes_h2d_per_step": wbytes * L,
              "bytes_d2h_per_step": args.hidden * 2, "device_buffers": 2,
              "host_memory": "pageable" if args.pageable else "pinned",
              "flops_per_layer": 2 * args.rows * args.hidden * args.hidden}
    h.finish(config, {"output_abs_mean": float(state["out"].float().abs().mean())})


if __name__ == "__main__":
    main()

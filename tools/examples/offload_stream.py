#!/usr/bin/env python3
"""A PyTorch program that streams its weights from host memory, for the
worked example of `flashsim capture` (docs/capture.md).

A stack of `--layers` square bf16 weights lives in host memory (pinned by
default, pageable with --pageable). Each decode step ("token") copies every
weight host->device into one of two rotating device buffers, just before the
layer that uses it (as offloading runtimes do), multiplies the activation by
it, and finally reads the token's output back to the host (device->host), as
autoregressive generation must. The program does not know it is captured.

Prints one JSON line: per-token times (CUDA events), their median, and the
steady-state wall time of the timed tokens, so that runs with and without
capture can be compared.
"""
import argparse
import json
import statistics
import time

import torch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--tokens", type=int, default=16)
    ap.add_argument("--warmup", type=int, default=2, help="untimed tokens first")
    ap.add_argument("--pageable", action="store_true", help="weights in pageable (not pinned) memory")
    args = ap.parse_args()

    if not torch.cuda.is_available():
        raise SystemExit("offload_stream.py: no CUDA device")
    dev = torch.device("cuda")
    gen = torch.Generator().manual_seed(0)
    scale = args.hidden ** -0.5
    weights = [
        (torch.randn(args.hidden, args.hidden, generator=gen) * scale).to(torch.bfloat16)
        for _ in range(args.layers)
    ]
    if not args.pageable:
        weights = [w.pin_memory() for w in weights]
    buffers = [torch.empty(args.hidden, args.hidden, dtype=torch.bfloat16, device=dev) for _ in range(2)]
    x0 = torch.randn(1, args.hidden, generator=gen).to(torch.bfloat16).to(dev)

    def token(x: torch.Tensor) -> torch.Tensor:
        for i, w in enumerate(weights):
            buf = buffers[i % 2]
            buf.copy_(w, non_blocking=True)  # H2D of the layer's weight
            x = torch.tanh(x @ buf)
        return x

    x = x0
    for _ in range(args.warmup):
        x = token(x)
        x.float().cpu()
    torch.cuda.synchronize()

    per_token_ms = []
    t0 = time.perf_counter()
    for _ in range(args.tokens):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        x = token(x)
        out = x.float().cpu()  # D2H: the token's output (synchronizes)
        end.record()
        end.synchronize()
        per_token_ms.append(start.elapsed_time(end))
    wall_s = time.perf_counter() - t0
    bytes_per_token = sum(w.numel() * w.element_size() for w in weights)
    print(json.dumps({
        "layers": args.layers, "hidden": args.hidden, "tokens": args.tokens, "warmup": args.warmup,
        "pinned": not args.pageable, "weight_bytes_per_token": bytes_per_token,
        "per_token_ms_median": statistics.median(per_token_ms),
        "per_token_ms": [round(t, 4) for t in per_token_ms],
        "timed_wall_s": wall_s, "checksum": float(out.abs().sum()),
    }))


if __name__ == "__main__":
    main()

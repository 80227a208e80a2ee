#!/usr/bin/env python3
"""accelerate.cpu_offload of a random-initialised Llama (bf16): every weight lives
in host memory (the model's CPU state dict, pageable) and accelerate's
AlignDevicesHooks copy each module's weights to the GPU just before its forward
and drop them after. Manual greedy decode loop with the KV cache (on the GPU);
one step = one generated token; the step ends with the token read back to the
host (`.item()`, the natural sync of a decode loop)."""
import argparse
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from common import Harness, add_common_args, check_args  # noqa: E402
from hf_decode import GreedyDecoder, add_llama_args, build_llama, model_config_dict, state_bytes  # noqa: E402

NAME = "accel_cpu_offload_llama"


def main() -> None:
    ap = add_common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    add_llama_args(ap, layers=8)
    ap.add_argument("--pin-memory", action="store_true",
                    help="hand cpu_offload a pinned copy of the state dict (flashsim diagnose's `pinned` lever)")
    args = ap.parse_args()
    dev = check_args(args)
    import accelerate

    model, cfg = build_llama(args)
    offloaded = state_bytes(model)
    # Without a state_dict, cpu_offload keeps `p.to("cpu")` of every tensor (pageable).
    state = {n: p.to("cpu").pin_memory() for n, p in model.state_dict().items()} if args.pin_memory else None
    accelerate.cpu_offload(model, execution_device=dev, state_dict=state)
    dec = GreedyDecoder(model, dev, dev, cfg.vocab_size, args.prompt, args.seed)
    h = Harness(NAME, __doc__.strip(), args, dev)
    h.run(dec.step, dec.prepare)
    config = model_config_dict(cfg, model)
    config.update({"offload": "accelerate.cpu_offload(model, execution_device)", "host_memory": "pinned" if args.pin_memory else "pageable",
                   "bytes_offloaded": offloaded, "bytes_h2d_per_step": offloaded, "prompt_tokens": args.prompt,
                   "kv_cache": "DynamicCache on the execution device"})
    h.finish(config, {"tokens_tail": dec.tokens[-8:]})


if __name__ == "__main__":
    main()

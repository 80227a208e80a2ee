#!/usr/bin/env python3
"""accelerate.cpu_offload of a random-initialised Mixtral (bf16, 8 experts, top-2):
every weight lives in host memory (pageable CPU state dict); accelerate copies each
module's weights to the GPU just before its forward. In transformers 5 the experts
of a layer are one module (MixtralExperts: 3-D gate_up_proj and down_proj tensors),
so all 8 experts of a layer are copied each token, not only the routed two. Manual
greedy decode loop with the KV cache; one step = one generated token; the step ends
with the token read back to the host (`.item()`)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from common import Harness, add_common_args, build_empty, check_args, random_fill_  # noqa: E402
from hf_decode import GreedyDecoder, model_config_dict, state_bytes  # noqa: E402

NAME = "accel_cpu_offload_mixtral"


def main() -> None:
    ap = add_common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--intermediate", type=int, default=3584)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--experts", type=int, default=8)
    ap.add_argument("--top-k", type=int, default=2)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--prompt", type=int, default=16)
    args = ap.parse_args()
    dev = check_args(args)
    import accelerate
    from transformers import MixtralConfig, MixtralForCausalLM

    cfg = MixtralConfig(hidden_size=args.hidden, intermediate_size=args.intermediate,
                        num_hidden_layers=args.layers, num_attention_heads=args.heads,
                        num_key_value_heads=args.kv_heads, num_local_experts=args.experts,
                        num_experts_per_tok=args.top_k, vocab_size=args.vocab,
                        max_position_embeddings=4096, tie_word_embeddings=False,
                        attn_implementation="sdpa")
    model = random_fill_(build_empty(MixtralForCausalLM, cfg), seed=args.seed).eval()
    offloaded = state_bytes(model)
    experts = sum(p.numel() * p.element_size() for n, p in model.named_parameters() if ".experts." in n)
    accelerate.cpu_offload(model, execution_device=dev)
    dec = GreedyDecoder(model, dev, dev, cfg.vocab_size, args.prompt, args.seed)
    h = Harness(NAME, __doc__.strip(), args, dev)
    h.run(dec.step, dec.prepare)
    config = model_config_dict(cfg, model)
    config.update({"offload": "accelerate.cpu_offload(model, execution_device)", "host_memory": "pageable",
                   "bytes_offloaded": offloaded, "bytes_h2d_per_step": offloaded, "expert_bytes": experts,
                   "experts_implementation": getattr(cfg, "_experts_implementation", None),
                   "prompt_tokens": args.prompt})
    h.finish(config, {"tokens_tail": dec.tokens[-8:]})


if __name__ == "__main__":
    main()

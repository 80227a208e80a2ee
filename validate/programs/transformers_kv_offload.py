#!/usr/bin/env python3
"""transformers' offloaded KV cache: a random-initialised Llama (bf16) entirely on
the GPU, model.generate(..., cache_implementation="offloaded", do_sample=False) after
a long prompt (default 4096 tokens; transformers_kv_offload_16k.py: 16384).
transformers 5.17 maps "offloaded" to
DynamicCache(offloading=True): at each layer's cache update the next layer's K/V
are prefetched host->device on a side stream (.to(cuda, non_blocking=True)) and the
current layer's K/V, new token included, are sent back device->host
(.to("cpu", non_blocking=True), into pinned memory) -- the whole cache crosses PCIe
both ways every token. Steps = generated tokens, marked and timed from inside
generate by a LogitsProcessor (called once per token, right after that token's
forward was issued): a step runs from one call to the next, i.e. one decode
forward plus greedy selection; generate syncs every token itself (its stopping
check reads a GPU flag), so no sync is added. Each phase (warm-up, each repeat) is
one generate call of steps+1 new tokens (min_new_tokens = max_new_tokens, so a
random model's EOS cannot stop it early); the prompt's prefill precedes the
phase's first marked step."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from common import Harness, add_common_args, build_empty, check_args, random_fill_  # noqa: E402
from hf_decode import add_llama_args, llama_config, model_config_dict, state_bytes  # noqa: E402

NAME = "transformers_kv_offload"


class StepMarker:
    """LogitsProcessor: calls 1..n of a phase start steps; call n+1 closes the phase."""

    def __init__(self, harness: Harness):
        self.h = harness
        self.n = 0
        self.calls = 0

    def start_phase(self, n: int) -> None:
        self.n = n
        self.calls = 0
        self.h.open_phase()

    def __call__(self, input_ids, scores):
        self.calls += 1
        if self.calls <= self.n:
            self.h.mark_step()
        elif self.calls == self.n + 1:
            self.h.close_phase()
        return scores


def main(name: str = NAME, prompt: int = 4096) -> None:
    """name: the program name in the JSON; prompt: the default of --prompt (thin wrappers set both)."""
    ap = add_common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]), steps=8)
    add_llama_args(ap, layers=8)
    ap.set_defaults(prompt=prompt)
    ap.add_argument("--cache", default="offloaded",
                    help="cache_implementation (default offloaded; dynamic for the no-offload reference)")
    args = ap.parse_args()
    dev = check_args(args)
    from transformers import LlamaForCausalLM, LogitsProcessorList

    cfg = llama_config(args)
    model = random_fill_(build_empty(LlamaForCausalLM, cfg), seed=args.seed, device=dev).to(dev).eval()
    weights = state_bytes(model)
    h = Harness(name, __doc__.strip(), args, dev)
    marker = StepMarker(h)
    gen = torch.Generator().manual_seed(args.seed)
    tail = []
    for n in h.phase_steps():
        ids = torch.randint(3, cfg.vocab_size, (1, args.prompt), generator=gen).to(dev)
        marker.start_phase(n)
        with torch.inference_mode():
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                                 cache_implementation=args.cache, max_new_tokens=n + 1, min_new_tokens=n + 1,
                                 do_sample=False, pad_token_id=0, logits_processor=LogitsProcessorList([marker]))
        if marker.calls != n + 1:
            raise SystemExit(f"{name}: LogitsProcessor called {marker.calls} times, expected {n + 1}")
        tail = out[0, -4:].tolist()
    head_dim = cfg.hidden_size // cfg.num_attention_heads
    kv_per_token = 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * head_dim * 2
    config = model_config_dict(cfg, model)
    config.update({"offload": f"model.generate(cache_implementation={args.cache!r})",
                   "weights_on_gpu_bytes": weights, "prompt_tokens": args.prompt,
                   "kv_bytes_per_token": kv_per_token,
                   "kv_bytes_at_first_step": kv_per_token * args.prompt,
                   "bytes_offloaded": kv_per_token * args.prompt,
                   "host_memory": "pinned (torch allocates the destination of a non_blocking D2H .to('cpu') pinned)",
                   "new_tokens_per_phase": "steps + 1 (warm-up: warmup + 1)"})
    h.finish(config, {"tokens_tail": tail})


if __name__ == "__main__":
    main()

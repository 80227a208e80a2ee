"""Shared pieces of the transformers programs: small Llama/Mixtral configs,
random-initialised bf16 models on CPU, and a manual greedy decode loop with the
KV cache (one step = one generated token)."""
from __future__ import annotations

import argparse

import torch

from common import build_empty, random_fill_, tensor_bytes


def add_llama_args(ap: argparse.ArgumentParser, layers: int = 8) -> None:
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--intermediate", type=int, default=5632)
    ap.add_argument("--layers", type=int, default=layers)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--kv-heads", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--prompt", type=int, default=16, help="prompt tokens (prefilled before each phase)")


def llama_config(args):
    from transformers import LlamaConfig

    return LlamaConfig(hidden_size=args.hidden, intermediate_size=args.intermediate,
                       num_hidden_layers=args.layers, num_attention_heads=args.heads,
                       num_key_value_heads=args.kv_heads, vocab_size=args.vocab,
                       max_position_embeddings=max(4096, 2 * getattr(args, "prompt", 16) + 512),
                       tie_word_embeddings=False, attn_implementation="sdpa")


def build_llama(args):
    from transformers import LlamaForCausalLM

    cfg = llama_config(args)
    model = random_fill_(build_empty(LlamaForCausalLM, cfg), seed=args.seed)
    return model.eval(), cfg


def model_config_dict(cfg, model) -> dict:
    keys = ["model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "vocab_size", "num_local_experts", "num_experts_per_tok",
            "head_dim", "tie_word_embeddings"]
    d = {k: getattr(cfg, k) for k in keys if hasattr(cfg, k)}
    params = {id(p): p for p in model.parameters()}
    d["parameters"] = int(sum(p.numel() for p in params.values()))
    d["dtype"] = "bfloat16"
    return d


def state_bytes(model) -> int:
    """Bytes of the model's parameters (what an offloader keeps on the host), deduplicated."""
    return tensor_bytes({id(p): p for p in model.parameters()}.values())


class GreedyDecoder:
    """prepare(): a fresh random prompt, prefilled (untimed) into a new DynamicCache;
    step(): one forward of the last token with the cache, greedy next token; the
    token is read back to the host (`.item()`), the natural per-token sync of a
    decode loop (it needs the token to decide whether to stop / to stream it)."""

    def __init__(self, model, dev: torch.device, input_dev: torch.device, vocab: int, prompt: int, seed: int = 0):
        self.model = model
        self.dev = dev
        self.input_dev = input_dev
        self.vocab = vocab
        self.prompt = prompt
        self.gen = torch.Generator().manual_seed(seed)
        self.cache = None
        self.next_tok = None
        self.tokens: list[int] = []

    @torch.inference_mode()
    def prepare(self) -> None:
        from transformers import DynamicCache

        ids = torch.randint(0, self.vocab, (1, self.prompt), generator=self.gen).to(self.input_dev)
        self.cache = DynamicCache(config=self.model.config)
        out = self.model(input_ids=ids, past_key_values=self.cache, use_cache=True)
        self.cache = out.past_key_values
        self.next_tok = out.logits[:, -1:].argmax(-1)
        self.tokens.append(int(self.next_tok.item()))

    @torch.inference_mode()
    def step(self) -> None:
        out = self.model(input_ids=self.next_tok.to(self.input_dev), past_key_values=self.cache, use_cache=True)
        self.cache = out.past_key_values
        self.next_tok = out.logits[:, -1:].argmax(-1)
        self.tokens.append(int(self.next_tok.item()))  # D2H of the token: the step's sync

#!/usr/bin/env python3
"""Training with activations saved to host memory: torch.autograd.graph.save_on_cpu
around the forward pass of a random-initialised Llama (bf16; the layer shape of
accel_cpu_offload_llama with 4 layers, one sequence of 1024 tokens: about 0.81 GB of
activations and 0.54 GB of saved weights leave the GPU per step; weights, gradients
and optimizer state stay on the GPU). Every tensor that autograd saves for the
backward pass (norm inputs/outputs, some float32, projection outputs, q/k/v and
attention outputs, MLP intermediates, the float32 logits of the loss, and the
weights the matmuls save, which save_on_cpu does not skip) is packed by
`tensor.cpu()` during the forward: a blocking device-to-host copy into a new
pageable host tensor, one per saved tensor per op (a norm output saved by the q, k
and v projections is copied three times); the backward unpacks each with
`.to(cuda)`, a blocking pageable host-to-device copy, just before the op that needs
it. `--pin-memory`: save_on_cpu(pin_memory=True) (the `pinned` what-if): pinned host
tensors from torch's caching host allocator; in torch 2.11 the pack is
`packed.copy_(tensor)` (still a blocking D2H, into pinned memory) and the unpack a
non-blocking H2D. One step = one training step on a fixed random batch: zero_grad,
forward + loss (labels = inputs), backward, optimizer step (AdamW by default); the
step ends with `loss.item()` (the training loop's loss read-back, in stream order
after the optimizer's kernels)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from common import Harness, add_common_args, build_empty, check_args, random_fill_  # noqa: E402
from hf_decode import add_llama_args, llama_config, model_config_dict, state_bytes  # noqa: E402

NAME = "train_save_on_cpu"


def count_saved(model, ids, dev) -> dict:
    """One untimed, unmarked forward + backward under counting saved-tensor hooks (no copies):
    the number and bytes of tensors save_on_cpu packs (D2H) and unpacks (H2D) per step."""
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    c = {"saved_tensors": 0, "bytes_d2h_per_step": 0, "bytes_weights_saved": 0,
         "unpacked_tensors": 0, "bytes_h2d_per_step": 0}

    def pack(t):
        if t.device == dev:
            c["saved_tensors"] += 1
            c["bytes_d2h_per_step"] += t.numel() * t.element_size()
            if t.untyped_storage().data_ptr() in weights:
                c["bytes_weights_saved"] += t.numel() * t.element_size()
        return t

    def unpack(t):
        if t.device == dev:
            c["unpacked_tensors"] += 1
            c["bytes_h2d_per_step"] += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    loss.backward()
    model.zero_grad(set_to_none=True)
    return c


def main() -> None:
    ap = add_common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    add_llama_args(ap, layers=4)
    ap.add_argument("--batch", type=int, default=1, help="sequences per step (default 1)")
    ap.add_argument("--seq", type=int, default=1024, help="tokens per sequence (default 1024)")
    ap.add_argument("--optimizer", choices=("adamw", "sgd"), default="adamw")
    ap.add_argument("--pin-memory", action="store_true",
                    help="save_on_cpu(pin_memory=True): pinned host tensors, non-blocking copies")
    args = ap.parse_args()
    args.prompt = args.seq  # llama_config sizes max_position_embeddings from it
    dev = check_args(args)
    from transformers import LlamaForCausalLM

    cfg = llama_config(args)
    # filled on the execution device: no weight copies in the capture
    model = random_fill_(build_empty(LlamaForCausalLM, cfg), seed=args.seed, device=dev).to(dev).train()
    weights = state_bytes(model)
    gen = torch.Generator().manual_seed(args.seed)
    ids = torch.randint(3, cfg.vocab_size, (args.batch, args.seq), generator=gen).to(dev)
    counts = count_saved(model, ids, dev)
    params = [p for p in model.parameters() if p.requires_grad]
    if args.optimizer == "adamw":
        opt = torch.optim.AdamW(params, lr=1e-5, weight_decay=0.0)
    else:
        opt = torch.optim.SGD(params, lr=1e-5)
    losses = []

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autograd.graph.save_on_cpu(pin_memory=args.pin_memory):
            loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))  # the step's sync (after the optimizer's kernels)

    h = Harness(NAME, __doc__.strip(), args, dev)
    h.run(step)
    config = model_config_dict(cfg, model)
    config.update({"offload": f"torch.autograd.graph.save_on_cpu(pin_memory={args.pin_memory})",
                   "host_memory": "pinned" if args.pin_memory else "pageable",
                   "weights_on_gpu_bytes": weights, "batch": args.batch, "seq": args.seq,
                   "optimizer": args.optimizer, **counts,
                   "bytes_offloaded": counts["bytes_d2h_per_step"]})
    h.finish(config, {"losses_tail": losses[-4:]})


if __name__ == "__main__":
    main()

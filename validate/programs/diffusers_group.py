#!/usr/bin/env python3
"""diffusers group offloading (diffusers.hooks.apply_group_offloading) of a
random-initialised SD3 transformer (diffusers.SD3Transformer2DModel, small config,
bf16). Modes (--mode):

* block:        offload_type="block_level", num_blocks_per_group=1, no stream:
                each group's weights are copied (pageable, blocking .to()) to the GPU
                when the group's forward starts and copied back to the host after it
                (module.to("cpu"): blocking device->host copies into new pageable tensors);
* block_stream: the same with use_stream=True (record_stream and
                low_cpu_mem_usage left False): weights pre-pinned on the host, the next
                group prefetched on a side stream while the current one computes;
* leaf:         offload_type="leaf_level" with use_stream=True (the common use of
                leaf level: diffusers' own enable_group_offload example), every leaf
                module (Linear, Conv2d, ...) is a group, prefetched on a side stream;
* leaf_nostream: offload_type="leaf_level" with use_stream=False: every leaf module
                (Linear, Conv2d; plus the parameters/buffers of non-leaf modules, e.g.
                the pos_embed buffer) is a group of its own, copied to the GPU
                (param.data.to(cuda), pageable, blocking) when its forward starts and
                back to the host (module.to("cpu"), blocking D2H into new pageable
                tensors) when it ends: per forward, a pair of small copies per weight
                and bias, no overlap with compute;
* disk:         block level (no stream) with offload_to_disk_path=<temp dir>: each
                group lives in a safetensors file (a third tier), loaded to the GPU
                at the group's forward (safetensors.torch.load_file(device="cuda")).

One step = one denoising forward pass of the transformer (fixed random latent,
text embeddings and timestep, as in a sampler loop), then torch.cuda.synchronize()
(a forward pass has no natural sync; the capture records the sync too)."""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from common import Harness, add_common_args, check_args, random_fill_, sync, tensor_bytes  # noqa: E402

MODES = ("block", "block_stream", "leaf", "leaf_nostream", "disk")
NAMES = {"block": "diffusers_group_block", "block_stream": "diffusers_group_block_stream",
         "leaf": "diffusers_group_leaf", "leaf_nostream": "diffusers_group_leaf_nostream",
         "disk": "diffusers_group_disk"}


def build_sd3(args):
    import accelerate
    from diffusers import SD3Transformer2DModel

    kw = dict(sample_size=args.latent, patch_size=2, in_channels=16, num_layers=args.layers,
              attention_head_dim=64, num_attention_heads=args.heads, joint_attention_dim=args.joint_dim,
              caption_projection_dim=args.heads * 64, pooled_projection_dim=args.pooled_dim,
              out_channels=16, pos_embed_max_size=max(96, args.latent // 2))
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with accelerate.init_empty_weights(include_buffers=False):
            model = SD3Transformer2DModel(**kw)
    finally:
        torch.set_default_dtype(old)
    random_fill_(model, seed=args.seed)
    return model.eval(), kw


def offload_groups(model) -> dict:
    """Count diffusers' module groups (one GroupOffloadingHook each) and the tensors they move:
    each tensor is one copy per direction per forward."""
    n_groups = n_tensors = 0
    for m in model.modules():
        reg = getattr(m, "_diffusers_hook", None)
        hook = reg.get_hook("group_offloading") if reg is not None else None
        if hook is None or hook.group.offload_leader is not m:
            continue
        g = hook.group
        tensors = {id(t): t for mod in g.modules for t in (*mod.parameters(), *mod.buffers())}
        tensors.update({id(t): t for t in (*g.parameters, *g.buffers)})
        n_groups += 1
        n_tensors += len(tensors)
    return {"offload_groups": n_groups, "offload_group_tensors": n_tensors}


def main(default_mode=None) -> None:
    ap = add_common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    ap.add_argument("--mode", choices=MODES, default=default_mode, required=default_mode is None)
    ap.add_argument("--layers", type=int, default=4, help="SD3 joint transformer blocks (default 4)")
    ap.add_argument("--heads", type=int, default=24, help="attention heads of 64 (default 24: inner dim 1536)")
    ap.add_argument("--joint-dim", type=int, default=4096)
    ap.add_argument("--pooled-dim", type=int, default=2048)
    ap.add_argument("--latent", type=int, default=64, help="latent height = width (default 64: 1024 image tokens)")
    ap.add_argument("--text", type=int, default=154, help="text tokens (default 154)")
    ap.add_argument("--disk-dir", default=None, help="disk mode: the offload folder (default: a new temp dir, removed)")
    args = ap.parse_args()
    dev = check_args(args)
    mode = args.mode
    name = NAMES[mode]
    use_stream = mode in ("block_stream", "leaf")
    if use_stream and dev.type == "cpu":
        raise SystemExit(f"{name}: use_stream=True needs a CUDA device (diffusers refuses streams on cpu)")
    import diffusers
    from diffusers.hooks import apply_group_offloading

    model, kw = build_sd3(args)
    total = tensor_bytes(model.parameters())
    buffers = tensor_bytes(model.buffers())  # e.g. the pos_embed table (float32): group-offloaded too
    opts = dict(onload_device=dev, offload_device=torch.device("cpu"),
                offload_type="leaf_level" if mode.startswith("leaf") else "block_level",
                num_blocks_per_group=None if mode.startswith("leaf") else 1,
                use_stream=use_stream)
    tmp = None
    if mode == "disk":
        tmp = args.disk_dir or tempfile.mkdtemp(prefix="flashsim-diffusers-disk-")
        opts["offload_to_disk_path"] = tmp
    try:
        apply_group_offloading(model, **opts)
        groups = offload_groups(model)
        g = torch.Generator().manual_seed(args.seed)
        x = torch.randn(1, 16, args.latent, args.latent, generator=g).to(torch.bfloat16).to(dev)
        ctx = torch.randn(1, args.text, args.joint_dim, generator=g).to(torch.bfloat16).to(dev)
        pooled = torch.randn(1, args.pooled_dim, generator=g).to(torch.bfloat16).to(dev)
        t = torch.tensor([500.0], device=dev)
        outs = []

        @torch.inference_mode()
        def step():
            out = model(hidden_states=x, encoder_hidden_states=ctx, pooled_projections=pooled, timestep=t,
                        return_dict=False)[0]
            outs.append(out)
            if len(outs) > 2:
                outs.pop(0)
            sync(dev)  # a forward pass has no natural sync: end the step with one

        h = Harness(name, __doc__.strip(), args, dev)
        h.run(step)
        disk_bytes = None
        if tmp is not None:
            disk_bytes = sum(os.path.getsize(os.path.join(tmp, f)) for f in os.listdir(tmp))
        config = {"model": "diffusers.SD3Transformer2DModel", **kw, "dtype": "bfloat16",
                  "parameters": int(sum(p.numel() for p in model.parameters())),
                  "bytes_offloaded": total, "bytes_h2d_per_step": total,
                  # without a stream, offload_() is module.to("cpu"): the weights come back D2H
                  # (disk: replaced by empty tensors; streams: swapped for the pinned copies)
                  "bytes_d2h_per_step": total if mode in ("block", "leaf_nostream") else 0,
                  "bytes_buffers": buffers, **groups,
                  "offload": "diffusers.hooks.apply_group_offloading",
                  "group_offloading": {k: (str(v) if isinstance(v, torch.device) else v) for k, v in opts.items()},
                  "host_memory": "pinned (cpu_param_dict, pre-pinned)" if use_stream else
                                 ("safetensors files (page cache), loaded to the GPU per group" if mode == "disk"
                                  else "pageable (the parameters' own CPU tensors)"),
                  "disk_bytes": disk_bytes, "text_tokens": args.text,
                  "image_tokens": (args.latent // 2) ** 2}
        h.finish(config, {"mode": mode, "output_abs_mean": float(outs[-1].float().abs().mean())})
    finally:
        if tmp is not None and args.disk_dir is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

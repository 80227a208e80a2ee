#!/usr/bin/env python3
"""accelerate.infer_auto_device_map + accelerate.dispatch_model of the Llama of
accel_cpu_offload_llama under a GPU memory budget of about half the model
(max_memory={0: budget, "cpu": "64GiB"}, no_split_module_classes=["LlamaDecoderLayer"]):
static placement, the first modules resident on the GPU, the rest kept in host
memory (pageable) and copied to the GPU by accelerate's hooks at each forward.
`--gpu-layers N` instead places the embeddings and the first N decoder layers on the
GPU and the rest (later layers, final norm, lm_head) on the CPU through an explicit
device_map. Manual greedy decode loop with the KV cache; one step = one generated
token; the step ends with the token read back to the host (`.item()`)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from common import Harness, add_common_args, check_args  # noqa: E402
from hf_decode import GreedyDecoder, add_llama_args, build_llama, model_config_dict, state_bytes  # noqa: E402

NAME = "accel_dispatch_budget"


def explicit_map(n_layers: int, gpu_layers: int, gpu) -> dict:
    m = {"model.embed_tokens": gpu, "model.rotary_emb": gpu}
    for i in range(n_layers):
        m[f"model.layers.{i}"] = gpu if i < gpu_layers else "cpu"
    m["model.norm"] = gpu if gpu_layers >= n_layers else "cpu"
    m["lm_head"] = gpu if gpu_layers >= n_layers else "cpu"
    return m


def module_bytes(model, prefix: str) -> int:
    mod = model.get_submodule(prefix) if prefix else model
    return int(sum(p.numel() * p.element_size() for p in mod.parameters()))


def main() -> None:
    ap = add_common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    add_llama_args(ap, layers=8)
    ap.add_argument("--budget", default=None,
                    help="GPU memory budget for infer_auto_device_map (bytes or e.g. '600MiB'); default: half the model")
    ap.add_argument("--gpu-layers", type=int, default=None,
                    help="explicit device_map: embeddings + the first N decoder layers on the GPU, the rest on the CPU")
    args = ap.parse_args()
    dev = check_args(args)
    import accelerate

    model, cfg = build_llama(args)
    total = state_bytes(model)
    gpu_key = 0 if dev.type == "cpu" else (dev.index or 0)
    if args.gpu_layers is not None:
        if not 0 <= args.gpu_layers <= cfg.num_hidden_layers:
            raise SystemExit(f"--gpu-layers must be in 0..{cfg.num_hidden_layers}")
        device_map = explicit_map(cfg.num_hidden_layers, args.gpu_layers, gpu_key)
        budget = None
        placement = f"explicit: embeddings + {args.gpu_layers} decoder layers on the GPU"
    else:
        budget = args.budget if args.budget is not None else total // 2
        device_map = accelerate.infer_auto_device_map(
            model, max_memory={gpu_key: budget, "cpu": "64GiB"}, no_split_module_classes=["LlamaDecoderLayer"])
        placement = "infer_auto_device_map(max_memory={0: budget, 'cpu': '64GiB'})"
    device_map = {k: v for k, v in device_map.items()}
    on_cpu = sum(module_bytes(model, k) for k, v in device_map.items() if v == "cpu")
    on_gpu = sum(module_bytes(model, k) for k, v in device_map.items() if v != "cpu" and v != "disk")
    if any(v == "disk" for v in device_map.values()):
        raise SystemExit(f"device_map puts modules on disk: {device_map}")
    # --device cpu (dry check): the GPU entries run on the CPU too
    run_map = device_map if dev.type == "cuda" else {k: ("cpu" if v != "cpu" else v) for k, v in device_map.items()}
    accelerate.dispatch_model(model, device_map=run_map, main_device=dev)
    dec = GreedyDecoder(model, dev, dev, cfg.vocab_size, args.prompt, args.seed)
    h = Harness(NAME, __doc__.strip(), args, dev)
    h.run(dec.step, dec.prepare)
    config = model_config_dict(cfg, model)
    config.update({"offload": "accelerate.dispatch_model(model, device_map)", "placement": placement,
                   "budget": budget, "gpu_layers": args.gpu_layers,
                   "device_map": {k: (v if isinstance(v, str) else int(v)) for k, v in device_map.items()},
                   "host_memory": "pageable", "bytes_total": total, "bytes_on_gpu": on_gpu,
                   "bytes_offloaded": on_cpu, "bytes_h2d_per_step": on_cpu, "prompt_tokens": args.prompt})
    h.finish(config, {"tokens_tail": dec.tokens[-8:]})


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""accelerate.disk_offload of the random-initialised Llama of accel_cpu_offload_llama
(bf16): the state dict is written once to an offload folder (a new temp dir, removed
at exit; accelerate's offload_state_dict: one raw `NAME.dat` file per tensor plus
index.json) and the model's own weights are dropped (meta). At each module's forward,
accelerate's AlignDevicesHook reads every weight of the module from its file through
a numpy memmap (OffloadedWeightsLoader / load_offloaded_weight: `torch.tensor(memmap)`,
a host copy from the page cache into a new pageable tensor) and copies it to the GPU
(set_module_tensor_to_device: blocking pageable host-to-device `.to(cuda)`), then
sets it back to meta after the forward: every weight read from the folder and copied
H2D every token. Manual greedy decode loop with the KV cache (on the GPU); one step =
one generated token; the step ends with the token read back to the host (`.item()`)."""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from common import Harness, add_common_args, check_args  # noqa: E402
from hf_decode import GreedyDecoder, add_llama_args, build_llama, model_config_dict, state_bytes  # noqa: E402

NAME = "accel_disk_offload"


def main() -> None:
    ap = add_common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    add_llama_args(ap, layers=8)
    ap.add_argument("--offload-dir", default=None,
                    help="the offload folder (default: a new temp dir, removed at exit); must not hold an "
                         "index.json of another model (disk_offload would reuse it)")
    args = ap.parse_args()
    dev = check_args(args)
    import accelerate

    model, cfg = build_llama(args)
    offloaded = state_bytes(model)
    n_tensors = len({id(p) for p in model.parameters()})
    tmp = args.offload_dir or tempfile.mkdtemp(prefix="flashsim-accel-disk-")
    try:
        accelerate.disk_offload(model, offload_dir=tmp, execution_device=dev)
        files = [f for f in os.listdir(tmp) if f.endswith(".dat")]
        disk_bytes = sum(os.path.getsize(os.path.join(tmp, f)) for f in files)
        dec = GreedyDecoder(model, dev, dev, cfg.vocab_size, args.prompt, args.seed)
        h = Harness(NAME, __doc__.strip(), args, dev)
        h.run(dec.step, dec.prepare)
        config = model_config_dict(cfg, model)
        config.update({"offload": "accelerate.disk_offload(model, offload_dir, execution_device)",
                       "host_memory": "pageable (torch.tensor of a numpy memmap of the offload folder's files)",
                       "bytes_offloaded": offloaded, "bytes_h2d_per_step": offloaded,
                       "tensors_h2d_per_step": n_tensors, "disk_files": len(files), "disk_bytes": disk_bytes,
                       "prompt_tokens": args.prompt, "kv_cache": "DynamicCache on the execution device"})
        h.finish(config, {"tokens_tail": dec.tokens[-8:]})
    finally:
        if args.offload_dir is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

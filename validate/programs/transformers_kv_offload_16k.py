#!/usr/bin/env python3
"""Thin wrapper: transformers_kv_offload.py with a 16384-token prompt (see that file):
the offloaded KV cache is 4x that of the 4096-token program (8 layers x 16384
tokens x 64 KiB = 1 GiB at the first step), all of it prefetched host->device
and sent back device->host (pinned) every generated token."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from transformers_kv_offload import main  # noqa: E402

if __name__ == "__main__":
    main(name="transformers_kv_offload_16k", prompt=16384)

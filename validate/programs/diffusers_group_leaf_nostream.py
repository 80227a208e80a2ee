#!/usr/bin/env python3
"""Thin wrapper: diffusers_group.py --mode leaf_nostream (see that file)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diffusers_group import main  # noqa: E402

if __name__ == "__main__":
    main(default_mode="leaf_nostream")

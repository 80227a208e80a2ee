#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine and builds flashsim into ./build:
# Debian packages (tools/install-deps.sh), CMake configure, build, and a
# check that the Python tools (tools/plot_mrc.py) find matplotlib and h5py.
# CUDA parts (hw/, kernels/) build when the toolkit is present; nvcc is found
# even when PATH lacks it (cmake/FindCudaCompiler.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --parallel "$(nproc)"
# The Python tools' matplotlib and h5py come from Debian packages
# (install-deps.sh), which Debian's /usr/bin/python3 sees. A python3 on PATH
# that is not Debian's (pyenv, conda) does not: install them for it with pip.
if ! python3 -c 'import matplotlib, h5py' 2>/dev/null; then
  if [ "$(command -v python3)" != /usr/bin/python3 ] && /usr/bin/python3 -c 'import matplotlib, h5py' 2>/dev/null; then
    python3 -m pip install --user --quiet matplotlib h5py ||
      echo "setup.sh: note: run tools/*.py with /usr/bin/python3 (the python3 on PATH lacks matplotlib/h5py)" >&2
  else
    echo "setup.sh: warning: matplotlib/h5py not importable; tools/plot_mrc.py will not run" >&2
  fi
fi

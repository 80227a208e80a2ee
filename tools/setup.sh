#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine and builds flashsim into ./build:
# Debian packages (tools/install-deps.sh), CMake configure, build, and a
# check that the Python tools (tools/plot_mrc.py) find matplotlib and h5py.
# CUDA parts (hw/, kernels/) build when the toolkit is present; nvcc is found
# even when PATH lacks it (cmake/FindCudaCompiler.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
# The project's Python environment: Debian's python3 and its packages
# (--system-site-packages) plus the few PyPI ones in
# tools/python-requirements.txt. pip never touches the system python.
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r tools/python-requirements.txt
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --parallel "$(nproc)"
# `import flashsim` in .venv/bin/python finds the package built into
# build/python (docs/python.md; `pip install .` is the other way).
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$PWD/build/python" > "$site/flashsim-build.pth"
# The Python tools' matplotlib and h5py come from Debian packages
# (install-deps.sh), which Debian's /usr/bin/python3 sees. Nothing is
# pip-installed: a user-site matplotlib built for another numpy breaks
# Debian's python3 (seen here); run the tools with `/usr/bin/python3 -s`.
if ! /usr/bin/python3 -s -c 'import matplotlib, h5py' 2>/dev/null; then
  echo "setup.sh: warning: /usr/bin/python3 cannot import matplotlib/h5py; tools/plot_mrc.py will not run" >&2
fi

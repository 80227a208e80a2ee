#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine and builds flashsim into ./build:
# Debian packages (tools/install-deps.sh), CMake configure, build.
# CUDA parts (hw/, kernels/) build when the toolkit is present; nvcc is found
# even when PATH lacks it (cmake/FindCudaCompiler.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --parallel "$(nproc)"

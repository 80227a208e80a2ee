#!/usr/bin/env bash
# Installs what flashsim needs on Debian 12 from Debian packages. Idempotent.
# The CUDA toolkit is NOT installed here: the machine image carries it
# (/usr/local/cuda); CMake finds it without nvcc on PATH.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config
  libyaml-cpp-dev libhdf5-dev zlib1g-dev
  libzstd-dev                                     # .zst traces, decompressed as read
  libxxhash-dev                                   # ids: hash (string ids of csv/txt traces)
  libcli11-dev libboost-graph-dev libeigen3-dev
  nlohmann-json3-dev libabsl-dev libsqlite3-dev
  liblemon-dev                                    # min-cost flow: flashsim trace bound
  libglpk-dev                                     # linear programs: flashsim place
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-matplotlib python3-h5py   # tools/plot_mrc.py
  parallel slurm-wlm                        # sweeps as shards (docs/sweeps.md; tests run both)
  pybind11-dev python3-dev python3-pandas python3-pytest   # the Python package (python/) and its tests
  python3-venv                              # the project environment .venv (tools/setup.sh)
  python3-jsonschema chromium libjs-webcomponentsjs-custom-element-v0   # timeline check: schema, Chrome's trace viewer headless (tests/app/timeline_check_test.py)
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

#!/usr/bin/env bash
# Issue 13 on the H200, one device call: components written in Python in the
# GPU replay (flashsim.replay in-process). Runs the ctest python_replay_gpu
# (a Python LRU makes the C++ LRU's decisions on the GPU) and the package's
# own tests, then tools/device/python_replay_h200.py: the mini Mixtral
# replayed with C++ and Python LRU and lookahead, 5 repeats each after a
# warm-up, host decision cost and GPU times per run into $OUT.
# The image's python3 (3.12) lacks some of the package's needs: the wheels
# carried in .whl (docs/python.md says which) are installed when missing.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/python-replay-h200}; mkdir -p "$out"; start=$(date +%s)
mkdir -p /tmp/site
for w in .whl/*.whl; do
  name=$(basename "$w" | cut -d- -f1)
  mod=$(case $name in python_dateutil) echo dateutil ;; *) echo "$name" ;; esac)
  python3 -c "import $mod" 2>/dev/null && continue
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$w" && echo "installed $name"
done
export PYTHONPATH=/tmp/site
python3 -c 'import sys, numpy, pandas, h5py, pytest, pybind11; print(sys.version.split()[0], "numpy", numpy.__version__, "pandas", pandas.__version__, "h5py", h5py.__version__)'
py=$(command -v python3)
export FLASHSIM_CMAKE_ARGS="-DPython3_EXECUTABLE=$py -DFLASHSIM_PYTHON=$py -Dpybind11_DIR=$(python3 -m pybind11 --cmakedir)"
source tools/device/build_dev.sh flashsim_python flashsim
echo "module exports: $(nm -D --defined-only build-dev/python/flashsim/_core*.so | wc -l) symbol(s)"
export PYTHONPATH=$PWD/build-dev/python:/tmp/site
FLASHSIM_TEST_REPORT="$out/host_cost_lru.csv" timeout 200 ctest --test-dir build-dev -R 'python_replay_gpu|python_package' \
  --output-on-failure > "$out/ctest.log" 2>&1
echo "ctest rc=$? at $(( $(date +%s) - start )) s"; tail -15 "$out/ctest.log"
PYTHONUNBUFFERED=1 timeout 300 python3 -s tools/device/python_replay_h200.py "$out" > "$out/bench.log" 2>&1
echo "bench rc=$? at $(( $(date +%s) - start )) s"; tail -25 "$out/bench.log"

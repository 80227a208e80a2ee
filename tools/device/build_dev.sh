# Sourced by the device scripts: configures and builds build-dev (the given
# targets, or everything) with its log in $out/build.log, exits on failure,
# and records the commit and the device. Needs $out and $start;
# FLASHSIM_CMAKE_ARGS adds configure options.
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${FLASHSIM_CMAKE_ARGS:-} > "$out/build.log" 2>&1 &&
  cmake --build build-dev -j16 ${*:+--target "$@"} >> "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
git rev-parse HEAD > "$out/commit.txt" 2>/dev/null
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv > "$out/device.txt" 2>&1

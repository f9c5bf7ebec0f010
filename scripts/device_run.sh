#!/usr/bin/env bash
# Runs on the lent GPU machine (no apt, no internet): registers NVIDIA's
# OpenCL driver, runs every test binary of a build carried from a Debian
# machine on both platforms (NVIDIA and PoCL), then the benchmark commands
# given as arguments. Logs go to $OUT (default /tmp/out).
#   scripts/device_run.sh [tests] [bench-command ...]
set -u
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH="$PWD/.devlibs:${LD_LIBRARY_PATH:-}"
export POCL_CACHE_DIR=/tmp/pocl-cache CLQ_CACHE_DIR=/tmp/clq-cache
BUILD="${BUILD:-build}"
export CLQ_BINARY="$PWD/$BUILD/clq" CLQ_TEST_DATA="$PWD/tests"
# PoCL sizes its device from MemTotal, which starts small on these machines.
export POCL_MEMORY_LIMIT="${POCL_MEMORY_LIMIT:-64}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/gpu.txt"
"./$BUILD/clq" devices | tee "$OUT/devices.txt"
status=0
if [ "${1:-}" = tests ]; then
  shift
  for t in "$BUILD"/tests/*_tests; do
    name=$(basename "$t")
    if "$t" --gtest_brief=1 >"$OUT/$name.log" 2>&1; then
      echo "PASS $name $(tail -1 "$OUT/$name.log")"
    else
      status=1
      echo "FAIL $name"; grep -E "FAILED|Failure|error" "$OUT/$name.log" | head -20
    fi
  done
fi
for command in "$@"; do
  echo "== $command"
  bash -c "$command" 2>&1 | tee -a "$OUT/bench.log"
done
exit $status

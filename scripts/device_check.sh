#!/usr/bin/env bash
# Runs the carried test binaries (scripts/pack_device.sh) on the lent GPU
# machine's NVIDIA device, each log appended to OUTDIR/tests.log, a line per
# binary on standard output. Usage: scripts/device_check.sh OUTDIR
set -uo pipefail
out="$1"
export LD_LIBRARY_PATH="$PWD/.devlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# What tests/CMakeLists.txt gives each test through ctest.
export CLQ_BINARY="$PWD/.devbuild/clq" CLQ_TEST_DATA="$PWD/tests" CLQ_CACHE_DIR=/tmp/clq-cache
nvidia="$(.devbuild/clq devices | awk '/NVIDIA/ {print $2; exit}')"
for t in .devbuild/tests/*_tests; do
  log="$(mktemp)"
  CLQ_TEST_DEVICES="$nvidia" timeout "${CLQ_TEST_TIMEOUT:-450}" "$t" --gtest_brief=1 > "$log" 2>&1
  rc=$?
  echo "$(basename "$t"): rc=$rc $(grep -E '^\[  (PASSED|FAILED) ' "$log" | tr '\n' ' ')"
  { echo "== $(basename "$t") rc=$rc"; cat "$log"; } >> "$out/tests.log"
  rm -f "$log"
done

#!/usr/bin/env bash
# Copies the binaries of build/ (clq, test and benchmark executables) into
# .devbuild/, small enough to carry to the lent GPU machine, plus the Debian
# libraries that machine lacks into .devlibs/.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .devbuild && mkdir -p .devbuild/tests .devbuild/bench .devlibs
cp build/clq .devbuild/
cp build/tests/*_tests .devbuild/tests/
find build/bench -maxdepth 1 -type f -name '*_bench' -exec cp {} .devbuild/bench/ \;
strip .devbuild/clq .devbuild/tests/* .devbuild/bench/* 2>/dev/null || true
cp -L /usr/lib/x86_64-linux-gnu/libbenchmark.so.1debian .devlibs/
du -sh .devbuild .devlibs

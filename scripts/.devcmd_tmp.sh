set -u
export LD_LIBRARY_PATH=$PWD/.devlibs POCL_MEMORY_LIMIT=64 CLQ_CACHE_DIR=/tmp/clq-cache POCL_CACHE_DIR=/tmp/pocl-cache
B=.devbuild/bench/operators_bench
run() { # device options filter
  echo "== $1 $2" | tee -a $OUT/bench.txt
  CLQ_DEVICE=$1 CLQ_BUILD_OPTIONS="$2" CLQ_BENCH_ROWS=100000000 timeout 150 $B --benchmark_filter="$3" --benchmark_repetitions=10 --benchmark_report_aggregates_only=true 2>&1 | grep -E "median|copy bandwidth" | cut -c1-150 | tee -a $OUT/bench.txt
}
BUILD=.devbuild timeout 330 scripts/device_run.sh tests > $OUT/tests.txt 2>&1; echo "tests rc=$?"; grep -E "PASS|FAIL" $OUT/tests.txt
run nvidia "" .
run pocl "" .

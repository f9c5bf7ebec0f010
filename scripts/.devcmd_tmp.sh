set -u
export LD_LIBRARY_PATH=$PWD/.devlibs POCL_MEMORY_LIMIT=64 CLQ_CACHE_DIR=/tmp/clq-cache POCL_CACHE_DIR=/tmp/pocl-cache
B=.devbuild/bench/operators_bench
run() { # device options
  echo "== $1 $2" | tee -a $OUT/bench.txt
  CLQ_DEVICE=$1 CLQ_BUILD_OPTIONS="$2" CLQ_BENCH_ROWS=100000000 timeout 250 $B --benchmark_filter="$3" --benchmark_repetitions=10 --benchmark_report_aggregates_only=true 2>&1 | grep -E "median|copy bandwidth" | awk '{print $1, $2}' | tee -a $OUT/bench.txt
}
for i in 1 2 3; do
run pocl "-DVM_DEFER_LOADS=0" "(Projection|Max|FloatMax)_Machine"
run pocl "" "(Projection|Max|FloatMax)_Machine"
done

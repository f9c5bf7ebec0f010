#!/usr/bin/env bash
# One-step set-up of clq on Debian 12 (or Ubuntu): installs the Debian packages
# that are missing, builds Release in build/, then
#   demo  runs the main job on the default device (a GPU if there is one, else PoCL)
#   test  runs the test suite, again on Mesa's rusticl (llvmpipe: a device
#         without fp64 or 64-bit atomics), then again under ASan + UBSan
#         (build-asan/), then runs each libFuzzer target of fuzz/ for 60 s
#         (build-fuzz/)
#   build only builds
# Run as root, or as a user with sudo (only apt-get is run through sudo).
set -euo pipefail

mode="${1:-demo}"
case "$mode" in demo|test|build) ;; *) echo "usage: $0 demo|test|build" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
jobs="$(nproc 2>/dev/null || echo 2)"

packages=(cmake ninja-build g++ pkg-config ocl-icd-opencl-dev opencl-clhpp-headers
          pocl-opencl-icd libboost-dev libcli11-dev libsqlite3-dev libgtest-dev
          libbenchmark-dev)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
# Installs the packages of "$@" that are missing.
install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"
  fi
}
# test: clang and its sanitizer runtimes build the libFuzzer targets.
if [ "$mode" = test ]; then packages+=(clang-14 libclang-rt-14-dev python3-venv python3-dev); fi
install_missing "${packages[@]}"

# Mesa's rusticl on llvmpipe, a device without fp64 and 64-bit atomics, for
# the tests. Its package would register Mesa's drivers in
# /etc/OpenCL/vendors, where every OpenCL program of the machine then loads
# them (and LeakSanitizer reports what they never free): so its dependencies
# are installed, the package itself unpacked into build/mesa-opencl, and
# rusticl listed beside PoCL in a vendors directory of our own. Sets
# `rusticl` to the library's path; empty where the distribution has none.
find_rusticl() {
  local dir="$PWD/build/mesa-opencl" deps
  rusticl=$(find "$dir" -name libRusticlOpenCL.so.1 2>/dev/null | head -n1 || true)
  [ -z "$rusticl" ] || return 0
  apt-cache show mesa-opencl-icd >/dev/null 2>&1 || return 0
  mapfile -t deps < <(apt-cache depends --no-recommends --no-suggests mesa-opencl-icd |
    awk '$1 == "Depends:" && $2 !~ /^</ {print $2}' | sort -u)
  install_missing "${deps[@]}"
  rm -rf "$dir" && mkdir -p "$dir"
  if ! (cd "$dir" && apt-get download mesa-opencl-icd >/dev/null 2>&1); then
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    (cd "$dir" && apt-get download mesa-opencl-icd >/dev/null)
  fi
  dpkg -x "$dir"/mesa-opencl-icd_*.deb "$dir"
  rusticl=$(find "$dir" -name libRusticlOpenCL.so.1 | head -n1)
}

# Runs libFuzzer target $1 of build-fuzz/ for 60 s on a scratch copy of the
# seeds in fuzz/corpus/$2 (the run adds its new inputs there), with the flags
# that follow; a finding prints the end of its log and fails.
run_fuzzer() {
  local target=$1 seeds=$2 corpus log
  shift 2
  corpus="$(mktemp -d)"
  cp fuzz/corpus/"$seeds"/* "$corpus"/
  log=build-fuzz/$target.log
  if ! build-fuzz/fuzz/"$target" -max_total_time=60 "$@" "$corpus" >"$log" 2>&1; then
    tail -80 "$log"
    exit 1
  fi
  tail -2 "$log"
  rm -rf "$corpus"
}

cmake_extra=()
if [ "$mode" = test ]; then
  # The Python module and its tests (ctest's "python"): its packages in a
  # private virtual environment, the module built in build/ with the engine.
  echo "== Python packages for the Python package's tests (build/pyenv)"
  [ -x build/pyenv/bin/python ] || python3 -m venv build/pyenv
  build/pyenv/bin/pip install -q --disable-pip-version-check nanobind pyarrow pandas duckdb pytest \
    "dask[dataframe,distributed]"
  cmake_extra=(-DCLQ_PYTHON=ON "-DPython_EXECUTABLE=$PWD/build/pyenv/bin/python")
fi

echo "== building Release in build/"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${cmake_extra[@]}" >/dev/null
cmake --build build -j "$jobs"

case "$mode" in
  build) ;;
  demo)
    ./scripts/demo.sh build/clq
    ;;
  test)
    echo "== tests (Release)"
    ctest --test-dir build -j "$jobs" --output-on-failure
    # rusticl lacks fp64 and 64-bit atomics and caps each work-item's loops:
    # the paths clq takes for such devices run there. It offers llvmpipe
    # only when RUSTICL_ENABLE says so.
    find_rusticl
    if [ -n "$rusticl" ]; then
      echo "== tests on rusticl (llvmpipe: no fp64, no 64-bit atomics)"
      vendors="$PWD/build/ocl-vendors"
      mkdir -p "$vendors"
      echo "$rusticl" > "$vendors/rusticl.icd"
      if [ -f /etc/OpenCL/vendors/pocl.icd ]; then cp /etc/OpenCL/vendors/pocl.icd "$vendors/"; fi
      OCL_ICD_VENDORS="$vendors" RUSTICL_ENABLE=llvmpipe CLQ_TEST_DEVICES=rusticl \
        ctest --test-dir build -j "$jobs" --output-on-failure
    else
      echo "== no rusticl in this distribution (mesa-opencl-icd): its tests skipped"
    fi
    echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer"
    # -O0 -g1: the sanitized build takes well under half as long as at
    # -O1 -g, which outweighs its tests' slower run.
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCLQ_SANITIZE=ON \
      -DCLQ_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
      -DCLQ_TEST_CACHE_DIR="$PWD/build/cache" >/dev/null
    cmake --build build-asan -j "$jobs"
    # Mesa's OpenCL drivers, where the system registers them, leak at load
    # (LeakSanitizer cannot always name them): the sanitized tests see every
    # other registered driver.
    asan_vendors="$PWD/build-asan/ocl-vendors"
    rm -rf "$asan_vendors" && mkdir -p "$asan_vendors"
    for icd in /etc/OpenCL/vendors/*.icd; do
      if [ -f "$icd" ] && ! grep -qE 'lib(Rusticl|Mesa)OpenCL' "$icd"; then cp "$icd" "$asan_vendors/"; fi
    done
    export OCL_ICD_VENDORS="$asan_vendors"
    log=build-asan/ctest-output.log
    if ! CLQ_TEST_SANITIZED=1 ctest --test-dir build-asan -j "$jobs" --output-on-failure 2>&1 |
        tee "$log"; then
      # LeakSanitizer's own stop-the-world tracer sometimes crashes at process
      # exit after every test has passed ("Tracer caught signal 11",
      # google/sanitizers#1353; seen in this project's tests).
      # Only when each failed test shows that crash are they run once more.
      failed=$(grep -cE '^[[:space:]]+[0-9]+ - .*\(.*\)$' "$log" || true)
      crashes=$(grep -c 'LeakSanitizer has encountered a fatal error' "$log" || true)
      if [ "$failed" -gt 0 ] && [ "$crashes" -ge "$failed" ]; then
        echo "== LeakSanitizer's tracer crashed in $failed test(s); running them once more"
        CLQ_TEST_SANITIZED=1 ctest --test-dir build-asan --rerun-failed --output-on-failure
      else
        exit 1
      fi
    fi
    echo "== libFuzzer targets under ASan + UBSan, 60 s each (fuzz/)"
    cmake -S . -B build-fuzz -G Ninja -DCLQ_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DCLQ_BUILD_BENCH=OFF >/dev/null
    cmake --build build-fuzz -j "$jobs" --target sql_fuzzer csv_fuzzer table_file_fuzzer \
      arrow_fuzzer
    run_fuzzer sql_fuzzer sql -dict=fuzz/sql.dict
    # An input of these three runs in well under a millisecond: 10 s or 2 GB
    # is a hang or a size taken from the input unchecked.
    run_fuzzer csv_fuzzer csv -dict=fuzz/csv.dict -timeout=10 -rss_limit_mb=2048
    run_fuzzer table_file_fuzzer table_file -timeout=10 -rss_limit_mb=2048
    run_fuzzer arrow_fuzzer arrow -timeout=10 -rss_limit_mb=2048
    echo "== all tests passed"
    ;;
esac

#!/usr/bin/env bash
# One-step set-up of clq on Debian 12 (or Ubuntu): installs the Debian packages
# that are missing, builds Release in build/, then
#   demo  runs the main job on the default device (a GPU if there is one, else PoCL)
#   test  runs the test suite, again on Mesa's rusticl (llvmpipe: a device
#         without fp64 or 64-bit atomics), again on Intel's CPU runtime for
#         OpenCL (from PyPI, into build/intel-opencl), the operator tests
#         under Oclgrind's checks, then again under ASan + UBSan in a clang
#         build (build-san/), whose libFuzzer targets of fuzz/ then run for
#         30 s each, two at a time
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
# test: clang and its sanitizer runtimes build the libFuzzer targets; a
# virtual environment holds the Python tests' packages and Intel's CPU
# runtime; Oclgrind checks the kernels.
if [ "$mode" = test ]; then
  packages+=(clang-14 libclang-rt-14-dev python3-venv python3-dev oclgrind)
fi
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

# Runs libFuzzer target $1 of build-san/ for 30 s on a scratch copy of the
# seeds in fuzz/corpus/$2 (the run adds its new inputs there), with the flags
# that follow; a finding prints the end of its log and returns 1.
run_fuzzer() {
  local target=$1 seeds=$2 corpus log
  shift 2
  corpus="$(mktemp -d)"
  cp fuzz/corpus/"$seeds"/* "$corpus"/
  log=build-san/$target.log
  if ! build-san/fuzz/"$target" -max_total_time=30 "$@" "$corpus" >"$log" 2>&1; then
    tail -80 "$log"
    return 1
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
    "dask[dataframe,distributed]" polars tpchgen-cli==4.0.0
  cmake_extra=(-DCLQ_PYTHON=ON "-DPython_EXECUTABLE=$PWD/build/pyenv/bin/python")
fi

# Intel's CPU runtime for OpenCL (PyPI: intel-opencl-rt with tbb and the
# compiler runtime intel-cmplr-lib-rt), for the tests: its licence lets us
# install it, not commit it, so pip installs it into build/intel-opencl
# (the virtual environment's pip; where a prefix install lands varies, hence the find). Its
# own .icd holds a placeholder path; the test step writes one. Sets
# `intel_ocl` to libintelocl.so's path; empty when pip cannot install it.
intel_versions=(intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 tbb==2023.2.0)
find_intel_ocl() {
  local dir="$PWD/build/intel-opencl"
  intel_ocl=$(find "$dir" -name libintelocl.so 2>/dev/null | head -n1 || true)
  [ -z "$intel_ocl" ] || return 0
  rm -rf "$dir"
  if ! build/pyenv/bin/python -m pip install --quiet --disable-pip-version-check \
      --no-warn-script-location --prefix "$dir" "${intel_versions[@]}"; then
    rm -rf "$dir"
    return 0
  fi
  intel_ocl=$(find "$dir" -name libintelocl.so | head -n1)
}

echo "== building Release in build/"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLQ_UNITY=ON "${cmake_extra[@]}" >/dev/null
cmake --build build -j "$jobs"

case "$mode" in
  build) ;;
  demo)
    ./scripts/demo.sh build/clq
    ;;
  test)
    echo "== tests (Release)"
    ctest --test-dir build -j "$jobs" --output-on-failure
    # The drivers the tests install are listed in build/ocl-vendors, a
    # vendors directory of our own (OCL_ICD_VENDORS), beside PoCL: the
    # system's /etc/OpenCL/vendors is left as it was.
    vendors="$PWD/build/ocl-vendors"
    rm -rf "$vendors" && mkdir -p "$vendors"
    if [ -f /etc/OpenCL/vendors/pocl.icd ]; then cp /etc/OpenCL/vendors/pocl.icd "$vendors/"; fi
    # rusticl lacks fp64 and 64-bit atomics and caps each work-item's loops:
    # the paths clq takes for such devices run there. It offers llvmpipe
    # only when RUSTICL_ENABLE says so.
    find_rusticl
    if [ -n "$rusticl" ]; then
      echo "== tests on rusticl (llvmpipe: no fp64, no 64-bit atomics)"
      echo "$rusticl" > "$vendors/rusticl.icd"
      OCL_ICD_VENDORS="$vendors" RUSTICL_ENABLE=llvmpipe CLQ_TEST_DEVICES=rusticl \
        ctest --test-dir build -j "$jobs" --output-on-failure -E '^python$'
    else
      echo "== no rusticl in this distribution (mesa-opencl-icd): its tests skipped"
    fi
    # Intel's runtime compiles the whole program when it is built (15-30 s
    # on 2 cores for each set of build options; the tests' program cache in
    # build/cache/clq keeps the binaries for later runs). EngineCacheTest
    # builds into fresh caches three times and is left out here, and so is
    # the query fuzzer, whose random queries each build a program of their
    # own (minutes here, where PoCL and rusticl run it). The Python
    # package's tests, which test the module rather than the device, run on
    # PoCL only.
    find_intel_ocl
    if [ -n "$intel_ocl" ]; then
      echo "== tests on Intel's CPU runtime for OpenCL"
      echo "$intel_ocl" > "$vendors/intel-cpu.icd"
      OCL_ICD_VENDORS="$vendors" CLQ_TEST_DEVICES='intel(r) opencl' \
        GTEST_FILTER='-*EngineCacheTest.*' ctest --test-dir build -j "$jobs" --output-on-failure \
        -E '^(python|query_fuzzer)$'
    else
      echo "== pip could not install ${intel_versions[*]}: Intel's tests skipped"
    fi
    # Oclgrind simulates each work-item and checks its accesses: API calls
    # (OCLGRIND_CHECK_API), data races (OCLGRIND_DATA_RACES) and, always,
    # accesses outside buffers. It calls itself a GPU, so the GPU kernels
    # run, at 32 x 2 items (the tests size their tables by the tile), and
    # only the operator tests (the join and sort tests take hours there).
    # Its LLVM 14 lacks llvm.abs and llvm.usub.sat, which its -O2 build
    # emits: -O0. OCLGRIND_UNINITIALIZED is off: Oclgrind 21.10 replaces a
    # buffer's record of written bytes at each host write with one the size
    # of that write (a fill writes one pattern at a time), so every read
    # after a clEnqueueFillBuffer was reported (docs/DECISIONS.md). It has
    # a vendors directory of its own, so that no other step picks it.
    oclgrind_icd=/usr/lib/oclgrind/liboclgrind-rt-icd.so
    if [ -f "$oclgrind_icd" ]; then
      echo "== operator tests under Oclgrind (API checks, data races; 32 x 2)"
      oclgrind_vendors="$PWD/build/oclgrind-vendors"
      rm -rf "$oclgrind_vendors" && mkdir -p "$oclgrind_vendors"
      echo "$oclgrind_icd" > "$oclgrind_vendors/oclgrind.icd"
      log=build/oclgrind-operators.log
      # Every report names its kernel (or, for an API error, says so):
      # any report fails the run, as a failed test does.
      if ! OCL_ICD_VENDORS="$oclgrind_vendors" CLQ_TEST_DEVICES=oclgrind CLQ_WG_SIZE=32 \
          CLQ_IPT=2 OCLGRIND_BUILD_OPTIONS=-O0 OCLGRIND_CHECK_API=1 OCLGRIND_DATA_RACES=1 \
          ctest --test-dir build -R '^operators$' --output-on-failure -V >"$log" 2>&1 ||
          grep -qE 'Kernel: |OpenCL runtime error detected|OCLGRIND FATAL ERROR' "$log"; then
        { grep -E -B1 -A10 'Kernel: |OpenCL runtime error detected|OCLGRIND FATAL ERROR' "$log" ||
            true; } | head -80
        tail -20 "$log"
        exit 1
      fi
      tail -3 "$log"
    else
      echo "== no Oclgrind ($oclgrind_icd): its checks skipped"
    fi
    echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang; build-san/)"
    # One clang build serves the sanitized tests and the libFuzzer targets:
    # CLQ_FUZZ instruments every layer for libFuzzer besides ASan + UBSan,
    # which the tests run with too. At -O1 the build takes about as long as
    # a -O0 one, and the tests run in half the time.
    cmake -S . -B build-san -G Ninja -DCLQ_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DCLQ_BUILD_BENCH=OFF -DCLQ_TEST_CACHE_DIR="$PWD/build/cache" >/dev/null
    cmake --build build-san -j "$jobs"
    # Mesa's OpenCL drivers, where the system registers them, leak at load
    # (LeakSanitizer cannot always name them): the sanitized tests see every
    # other registered driver.
    san_vendors="$PWD/build-san/ocl-vendors"
    rm -rf "$san_vendors" && mkdir -p "$san_vendors"
    for icd in /etc/OpenCL/vendors/*.icd; do
      if [ -f "$icd" ] && ! grep -qE 'lib(Rusticl|Mesa)OpenCL' "$icd"; then cp "$icd" "$san_vendors/"; fi
    done
    export OCL_ICD_VENDORS="$san_vendors"
    log=build-san/ctest-output.log
    if ! CLQ_TEST_SANITIZED=1 ctest --test-dir build-san -j "$jobs" --output-on-failure 2>&1 |
        tee "$log"; then
      # LeakSanitizer's own stop-the-world tracer sometimes crashes at process
      # exit after every test has passed ("Tracer caught signal 11",
      # google/sanitizers#1353; seen in this project's tests).
      # Only when each failed test shows that crash are they run once more.
      failed=$(grep -cE '^[[:space:]]+[0-9]+ - .*\(.*\)$' "$log" || true)
      crashes=$(grep -c 'LeakSanitizer has encountered a fatal error' "$log" || true)
      if [ "$failed" -gt 0 ] && [ "$crashes" -ge "$failed" ]; then
        echo "== LeakSanitizer's tracer crashed in $failed test(s); running them once more"
        CLQ_TEST_SANITIZED=1 ctest --test-dir build-san --rerun-failed --output-on-failure
      else
        exit 1
      fi
    fi
    # Each fuzzer runs on one core: two at a time on CI's two.
    echo "== libFuzzer targets under ASan + UBSan, 30 s each, two at a time (fuzz/)"
    fuzz_failed=0
    run_fuzzer sql_fuzzer sql -dict=fuzz/sql.dict &
    first=$!
    # An input of these three runs in well under a millisecond: 10 s or 2 GB
    # is a hang or a size taken from the input unchecked.
    run_fuzzer csv_fuzzer csv -dict=fuzz/csv.dict -timeout=10 -rss_limit_mb=2048 &
    second=$!
    wait "$first" || fuzz_failed=1
    wait "$second" || fuzz_failed=1
    run_fuzzer table_file_fuzzer table_file -timeout=10 -rss_limit_mb=2048 &
    first=$!
    run_fuzzer arrow_fuzzer arrow -timeout=10 -rss_limit_mb=2048 &
    second=$!
    wait "$first" || fuzz_failed=1
    wait "$second" || fuzz_failed=1
    [ "$fuzz_failed" = 0 ] || exit 1
    echo "== all tests passed"
    ;;
esac

#!/usr/bin/env bash
# Instructions per row that each PoCL kernel executes for the thesis's
# single-table queries, counted by callgrind: deterministic, unlike timings on
# a small shared machine, so kernel changes for CPUs can be compared there
# before they are timed on a larger one.
#   scripts/pocl_instructions.sh [build/clq] [rows, default 256K] [query name]
# CLQ_KEEP_CALLGRIND=DIR keeps the callgrind files (for callgrind_annotate).
set -euo pipefail
clq="${1:-build/clq}"
rows="${2:-256K}"
only="${3:-}"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-/tmp/pocl-cache}" CLQ_CACHE_DIR="${CLQ_CACHE_DIR:-/tmp/clq-cache}"
"$clq" query --device pocl --rows "$rows" "SELECT COUNT(*) FROM tenktup1" >/dev/null  # warm caches
n=$("$clq" query --device pocl --rows "$rows" --format csv "SELECT COUNT(*) FROM tenktup1" | tail -1)
queries=(
  "L2_projection|SELECT unique1 + unique2 AS summation FROM tenktup1"
  "L7_avg|SELECT AVG(unique1) AS average FROM tenktup1"
  "L8_selection|SELECT * FROM tenktup1 WHERE unique1 > 1000 AND unique1 < 6000 AND unique2 % 2 = 0 AND two = 0"
  "L14_max|SELECT MAX(unique1 * tenpercent / 100) AS max_value FROM tenktup1"
  "L14_max_real|SELECT MAX(unique1 / (0.173 + onepercent)) FROM tenktup1"
)
out="${CLQ_KEEP_CALLGRIND:-$(mktemp -d)}"
mkdir -p "$out"
for entry in "${queries[@]}"; do
  name="${entry%%|*}"
  sql="${entry#*|}"
  if [ -n "$only" ] && [ "$only" != "$name" ]; then continue; fi
  valgrind --tool=callgrind --callgrind-out-file="$out/$name.cg" --toggle-collect='_pocl_kernel_*' --dump-instr=yes \
    "$clq" query --device pocl --rows "$rows" --format csv --out /dev/null "$sql" >/dev/null 2>&1
  # Inclusive: helpers a kernel calls (PoCL does not inline them all) count.
  callgrind_annotate --inclusive=yes "$out/$name.cg" 2>/dev/null |
    sed -nE 's/^ *([0-9,]+) .*_pocl_kernel_([A-Za-z0-9_]+)_workgroup.*/\1 \2/p' |
    awk -v q="$name" -v n="$n" '{ gsub(",", "", $1); total += $1
      printf "%-14s %-34s %7.2f\n", q, $2, $1 / n }
      END { printf "%-14s %-34s %7.2f\n", q, "(all kernels)", total / n }'
done
[ -n "${CLQ_KEEP_CALLGRIND:-}" ] || rm -rf "$out"

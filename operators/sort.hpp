// ORDER BY permutations and k-th element selection on the device (top-k:
// operators/top_k.hpp).
//
// SortPermutation is a stable LSD radix sort of row positions by 4-bit digits
// of order-preserving unsigned 64-bit images of the keys (kernels_cl/sort.cl),
// from the last key's least significant digit to the first key's most
// significant. Per key (per 8-byte chunk of a CHAR key, last chunk first):
// sort_key_bits ORs and ANDs the images, so only digits some row varies in
// get a pass; sort_load_keys writes the images in the current order; each
// pass is sort_count_keys (digit counts per tile), ExclusiveScan of the
// digit-major counts, sort_scatter_keys (moves image and position). A key
// with NULLs then gets a pass by its NULL flag (sort_count_nulls,
// sort_scatter_nulls). 4-bit digits keep a work-item's counters in registers
// and a work-group's (16 x WG_SIZE) in local memory on every device.
//
// SelectKth is a radix select (Govindaraju et al. 2004): a histogram of one
// digit of the candidates per pass (sort_select_histogram), keeping the bucket
// that holds rank k; digits no value varies in need no pass.
//
// Results are owned by the caller (pool buffers). The keys' buffers must live
// until the call returns. Every function blocks (it reads small counts back).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"

namespace clq {

// One ORDER BY key: INT32, INT64, DOUBLE or CHAR(n), `rows` values.
struct SortKey {
  VectorView values;
  bool descending = false;
};

// REQUIRES: every key has at least `rows` values; rows < 2^32.
// Positions 0..rows-1 in ORDER BY order, ties in position order. NULL sorts as
// the smallest value (first in ASC, last in DESC) as in SQLite; doubles in
// numeric order with -0.0 equal to 0.0 (no NaN); CHAR(n) bytewise.
RowIds SortPermutation(QueryContext& context, const std::vector<SortKey>& keys, RowCount rows);

// A numeric SQL value: INTEGER (int64) or REAL (double).
struct NumericValue {
  bool is_real = false;
  std::int64_t integer = 0;
  double real = 0;
};

// REQUIRES: `values` is INT32, INT64 or DOUBLE with at least `rows` values.
// The value of rank k (0-based) among the sorted non-NULL values of rows
// 0..rows-1; nullopt when there are k or fewer of them. For MEDIAN/QUANTILE
// (rank floor(q * (n - 1))). A -0.0 result comes back as 0.0.
std::optional<NumericValue> SelectKth(QueryContext& context, const VectorView& values,
                                      RowCount rows, RowCount k);

// MEDIAN (q = 0.5) and QUANTILE(q): the value of rank floor(q * (n - 1))
// among the n sorted non-NULL values (q clamped to [0, 1]), as the CPU
// reference; nullopt when n is 0. One radix select: n is known after its
// first pass.
std::optional<NumericValue> SelectQuantile(QueryContext& context, const VectorView& values,
                                           RowCount rows, double q);

// Internal key description shared with group_by.cpp; `type` is SORT_TYPE_*
// (kernels_cl/sort_shared.h), which includes unsigned 32-bit positions.
struct RadixKey {
  cl::Buffer values;
  cl::Buffer nulls;  // null buffer: no NULLs
  std::uint32_t type = 0;
  std::uint32_t width = 4;
  bool descending = false;
};

// SortPermutation over RadixKeys. `identity`, where given, is set when the
// rows were found in order already (one numeric key without NULLs): the
// permutation is then 0, 1, 2, ... and a caller may skip gathering by it.
RowIds RadixSortPermutation(Engine& engine, const std::vector<RadixKey>& keys, RowCount rows,
                            bool* identity = nullptr);

}  // namespace clq

namespace clq {

// The kernels SortPermutation launches over `rows` rows (at most that many
// unless `exact`), keys with NULLs or not (a pass needs no launch when no
// row varies in its digit).
KernelSet SortPermutationKernels(const Engine& engine, const std::vector<bool>& nullable_keys,
                                 RowCount rows, bool exact);
// The kernels SelectQuantile launches over at most `rows` values.
KernelSet SelectQuantileKernels(const Engine& engine, RowCount rows, bool exact);

}  // namespace clq

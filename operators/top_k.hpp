// ORDER BY ... LIMIT k: the first k positions of the stable sort without
// sorting every row (kernels_cl/top_k.cl).
//
// Each row gets a 64-bit composite image: the first 64 bits of its keys'
// order-preserving images one after another (per key a not-NULL bit when it
// may be NULL, except DOUBLE, whose NULL takes the unused image 0; then the
// value; complemented for DESC). When every key fits (`exact`: one INT32,
// INT64, DOUBLE or CHAR(n <= 8) key, two INT32 keys, ...), (image, position)
// is the ORDER BY order with ties in position order.
//
// top_k_groups: each work-group keeps the k smallest (image, position) of a
// range of rows (on CPUs a heap, each block of rows first tested against its
// root in one vectorised pass; on GPUs a local-memory buffer of the rows
// below a threshold, reduced by a bitonic sort when full); passes of the same
// kernel over the groups' results merge them into one sorted list. Exact
// images: its first k positions are the answer. Otherwise its k-th image is
// a limit: every row of the answer has an image at most it. Each group
// reports a floor below which it dropped no image; when the limit is below
// every floor those rows are the k selected, sorted by every key
// (SortPermutation); otherwise one more pass finds them (top_k_ties, a
// selection's bitmap; ExclusiveScan of its tile counts; selection_scatter)
// before that sort.
//
// Which strategy runs is decided by PlanTopK from what is known before the
// rows exist; TopK executes a plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operators/sort.hpp"

namespace clq {

// One ORDER BY key as known at plan time.
struct TopKKey {
  ColumnType type = ColumnType::Int32();
  bool nullable = false;  // the key may have a NULL map
  bool descending = false;
};

enum class TopKStrategy {
  kSort,            // SortPermutation of every row, the first k
  kGroups,          // top_k_groups passes; exact images
  kGroupsThenTies,  // top_k_groups passes give a limit; the rows up to it are sorted
};

struct TopKOptions {
  // Largest k that takes top_k_groups (0: the device's default); on GPUs at
  // most what a work-group's local memory holds.
  RowCount max_group_k = 0;
  // Work-groups of the first pass at most (0: the device's default).
  std::uint32_t max_groups = 0;
};

struct TopKPlan {
  TopKStrategy strategy = TopKStrategy::kSort;
  RowCount k = 0;
  RowCount max_rows = 0;
  RowCount max_group_k = 0;      // largest k that takes top_k_groups
  bool cpu_kernels = false;      // top_k_groups' CPU variant (heap per group)
  std::uint32_t max_groups = 1;  // work-groups of a pass at most
  RowCount granule = 1;          // a group's rows are a multiple of this
  // Rows of a group at most, whatever max_groups says; 0: no cap (devices
  // that cap a work-item's loop iterations, whose CPU heaps take all of a
  // group's rows in one work-item).
  RowCount max_group_rows = 0;
  // Descriptor words of the keys in the image (kernels_cl/sort_shared.h,
  // TOP_K_*) without TOP_K_NULLS, which the data decides; `image_keys` of
  // them (1 or 2).
  std::uint32_t key_words[2] = {0, 0};
  std::size_t image_keys = 0;
  std::uint32_t image_bits = 0;  // bits of the image the keys fill
  bool nullable = false;         // some key may have NULLs (the full sort's NULL passes)

  // Kernels TopK launches with this plan over rows of `max_rows` (at most
  // that many unless `exact`): the ties pass only when the data needs it.
  KernelSet Kernels(const Engine& engine, bool exact) const;
  // "top-10 of at most 10000000 rows: per-group top-k (CPU heaps, up to 2
  // groups of 256-row multiples), 32-bit image of 1 key"
  std::string Describe() const;
};

// The strategy for the first k rows of ORDER BY `keys` over at most
// `max_rows` rows on a device.
TopKPlan PlanTopK(const DeviceInfo& info, const DeviceTuning& tuning,
                  const std::vector<TopKKey>& keys, RowCount max_rows, RowCount k,
                  const TopKOptions& options = {});

// The TopKKeys of SortKeys (nullable where a key has a NULL map).
std::vector<TopKKey> TopKKeysOf(const std::vector<SortKey>& keys);

struct TopKResult {
  // The first min(k, rows) positions of SortPermutation(keys, rows).
  RowIds positions;
  // kGroupsThenTies, when a pass dropped a row whose image equals the limit
  // (the data decides): the rows the extra pass (top_k_ties) found and the
  // full sort ordered. 0 otherwise.
  RowCount tie_rows = 0;
};

// REQUIRES: `keys` match plan's TopKKeys (types, directions; a NULL map only
// where nullable), rows <= plan.max_rows, every key has at least `rows` values.
TopKResult TopK(QueryContext& context, const TopKPlan& plan, const std::vector<SortKey>& keys,
                RowCount rows);

}  // namespace clq

#include "operators/sort.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <utility>

#include "common/errors.hpp"
#include "kernels_cl/sort_shared.h"
#include "operators/scan.hpp"

namespace clq {
namespace {

static_assert(SORT_TYPE_INT32 == static_cast<int>(DataType::kInt32));
static_assert(SORT_TYPE_INT64 == static_cast<int>(DataType::kInt64));
static_assert(SORT_TYPE_DOUBLE == static_cast<int>(DataType::kDouble));
static_assert(SORT_TYPE_CHAR == static_cast<int>(DataType::kChar));

constexpr std::uint32_t kBuckets = SORT_BUCKETS;

RowCount QuantileRank(double q, RowCount count) {
  q = std::clamp(q, 0.0, 1.0);
  return std::min(count - 1, static_cast<RowCount>(std::floor(q * static_cast<double>(count - 1))));
}

// Radix select packs the candidates once they are at most rows / this.
constexpr RowCount kSelectCompactFraction = 16;

RadixKey ToRadixKey(const SortKey& key) {
  return {key.values.values, key.values.nulls, static_cast<std::uint32_t>(key.values.type.type),
          key.values.type.width, key.descending};
}

// Number of 4-bit digits of a key's image (one 8-byte chunk for CHAR).
std::uint32_t DigitCount(const RadixKey& key) {
  if (key.type == SORT_TYPE_CHAR) return 64 / SORT_RADIX_BITS;
  return key.width * 8 / SORT_RADIX_BITS;
}

// OR and AND of the non-NULL numeric keys' images (sort_key_bits), and with
// `check_order` whether some row's image is above (descent) or below
// (ascent) the next one's.
struct KeyBitsResult {
  std::uint64_t any = 0;
  std::uint64_t all = ~std::uint64_t{0};
  bool descent = true;
  bool ascent = true;
  std::uint64_t varying() const { return any & ~all; }
};

// `offset`: the first byte of the 8-byte chunk of a CHAR key.
KeyBitsResult KeyBits(Engine& engine, const RadixKey& key, RowCount rows, std::uint32_t offset = 0,
                      bool check_order = false) {
  const bool has_nulls = key.nulls() != nullptr;
  DeviceBuffer bits = engine.pool().Acquire(6 * sizeof(cl_uint), "sort key bits");
  const std::array<cl_uint, 6> initial = {0, 0, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0};
  engine.Upload(bits.get(), 0, sizeof(initial), initial.data(), "sort key bits");
  cl::Kernel& kernel = engine.kernel("sort_key_bits");
  kernel.setArg(0, key.values);
  kernel.setArg(1, has_nulls ? key.nulls : key.values);
  kernel.setArg(2, static_cast<cl_uint>(has_nulls ? 1 : 0));
  kernel.setArg(3, static_cast<cl_uint>(key.type));
  kernel.setArg(4, static_cast<cl_uint>(key.width));
  kernel.setArg(5, static_cast<cl_uint>(offset));
  kernel.setArg(6, static_cast<cl_ulong>(rows));
  kernel.setArg(7, static_cast<cl_uint>(check_order ? 1 : 0));
  kernel.setArg(8, bits.get());
  engine.Launch(kernel, engine.TilesFor(rows), "sort key bits");
  std::array<cl_uint, 6> words{};
  engine.Download(bits.get(), 0, sizeof(words), words.data(), "sort key bits");
  KeyBitsResult result;
  result.any = words[0] | static_cast<std::uint64_t>(words[1]) << 32;
  result.all = words[2] | static_cast<std::uint64_t>(words[3]) << 32;
  if (check_order) {
    result.descent = words[4] != 0;
    result.ascent = words[5] != 0;
  }
  return result;
}

class RadixSorter {
 public:
  RadixSorter(Engine& engine, RowCount rows)
      : engine_(engine),
        rows_(rows),
        tiles_(engine.TilesFor(rows)),
        current_(AllocateRowIds(engine, rows, "sort permutation")),
        other_(AllocateRowIds(engine, rows, "sort permutation")),
        counts_(engine.pool().Acquire(kBuckets * tiles_ * sizeof(cl_uint), "sort digit counts")),
        varies_(engine.pool().Acquire(sizeof(cl_uint), "sort pass flag")) {
    cl::Kernel& iota = engine.kernel("gather_iota");
    iota.setArg(0, current_.ids.get());
    iota.setArg(1, static_cast<cl_ulong>(rows));
    iota.setArg(2, static_cast<cl_uint>(0));
    engine.Launch(iota, tiles_, "sort positions");
  }

  // The stable pass by the NULL flag of `key` (sort_count_nulls,
  // sort_scatter_nulls); skipped when all rows or none are NULL.
  void NullPass(const RadixKey& key) {
    const auto descending = static_cast<cl_uint>(key.descending ? 1 : 0);
    engine_.Fill(varies_.get(), 0, 0, sizeof(cl_uint), "sort pass flag");
    cl::Kernel& count = engine_.kernel("sort_count_nulls");
    count.setArg(0, current_.ids.get());
    count.setArg(1, static_cast<cl_ulong>(rows_));
    count.setArg(2, key.nulls);
    count.setArg(3, descending);
    count.setArg(4, counts_.get());
    count.setArg(5, static_cast<cl_ulong>(tiles_));
    count.setArg(6, varies_.get());
    engine_.Launch(count, tiles_, "sort count");
    cl_uint varies = 0;
    engine_.Download(varies_.get(), 0, sizeof(varies), &varies, "sort pass flag");
    if (varies == 0) return;  // every row has the same flag: a stable pass moves nothing
    ExclusiveScan(engine_, counts_.get(), kBuckets * tiles_, counts_.get(), nullptr);
    cl::Kernel& scatter = engine_.kernel("sort_scatter_nulls");
    scatter.setArg(0, current_.ids.get());
    scatter.setArg(1, static_cast<cl_ulong>(rows_));
    scatter.setArg(2, key.nulls);
    scatter.setArg(3, descending);
    scatter.setArg(4, counts_.get());
    scatter.setArg(5, static_cast<cl_ulong>(tiles_));
    scatter.setArg(6, other_.ids.get());
    engine_.Launch(scatter, tiles_, "sort pass");
    std::swap(current_, other_);
  }

  // Stable passes by the digits of `key`'s image (for CHAR the 8-byte chunk
  // at `offset`) that some row varies in, with the images carried along (sort_load_keys,
  // sort_count_keys, sort_scatter_keys): no host round trip between passes.
  // `only_key`: the permutation is still the identity and this key is the
  // sort's one; a numeric key without NULLs already in order then needs
  // no pass (first positions of groups over clustered rows often are), and
  // identity() says so.
  void ImagePasses(const RadixKey& key, std::uint32_t offset, bool only_key = false) {
    const bool check_order =
        only_key && key.type != SORT_TYPE_CHAR && key.nulls() == nullptr && rows_ > 1;
    const KeyBitsResult bits = KeyBits(engine_, key, rows_, offset, check_order);
    if (check_order && !(key.descending ? bits.ascent : bits.descent)) {
      identity_ = true;
      return;
    }
    const std::uint64_t varying = bits.varying();
    const std::uint32_t digits = DigitCount(key);
    bool any = false;
    for (std::uint32_t digit = 0; digit < digits; ++digit)
      any |= ((varying >> (digit * SORT_RADIX_BITS)) & (kBuckets - 1)) != 0;
    if (!any) return;
    const bool has_nulls = key.nulls() != nullptr;
    const std::uint64_t all =
        key.type != SORT_TYPE_CHAR && key.width == 4 ? 0xFFFFFFFFull : ~std::uint64_t{0};
    DeviceBuffer keys = engine_.pool().Acquire(rows_ * sizeof(cl_ulong), "sort keys");
    DeviceBuffer keys_out = engine_.pool().Acquire(rows_ * sizeof(cl_ulong), "sort keys");
    cl::Kernel& load = engine_.kernel("sort_load_keys");
    load.setArg(0, current_.ids.get());
    load.setArg(1, static_cast<cl_ulong>(rows_));
    load.setArg(2, key.values);
    load.setArg(3, has_nulls ? key.nulls : key.values);
    load.setArg(4, static_cast<cl_uint>(has_nulls ? 1 : 0));
    load.setArg(5, static_cast<cl_uint>(key.type));
    load.setArg(6, static_cast<cl_uint>(key.width));
    load.setArg(7, static_cast<cl_uint>(offset));
    load.setArg(8, static_cast<cl_ulong>(key.descending ? all : 0));
    load.setArg(9, keys.get());
    engine_.Launch(load, tiles_, "sort keys");
    cl::Kernel& count = engine_.kernel("sort_count_keys");
    cl::Kernel& scatter = engine_.kernel("sort_scatter_keys");
    for (std::uint32_t digit = 0; digit < digits; ++digit) {
      if (((varying >> (digit * SORT_RADIX_BITS)) & (kBuckets - 1)) == 0) continue;
      const auto shift = static_cast<cl_uint>(digit * SORT_RADIX_BITS);
      count.setArg(0, keys.get());
      count.setArg(1, static_cast<cl_ulong>(rows_));
      count.setArg(2, shift);
      count.setArg(3, counts_.get());
      count.setArg(4, static_cast<cl_ulong>(tiles_));
      engine_.Launch(count, tiles_, "sort count");
      ExclusiveScan(engine_, counts_.get(), kBuckets * tiles_, counts_.get(), nullptr);
      scatter.setArg(0, keys.get());
      scatter.setArg(1, current_.ids.get());
      scatter.setArg(2, static_cast<cl_ulong>(rows_));
      scatter.setArg(3, shift);
      scatter.setArg(4, counts_.get());
      scatter.setArg(5, static_cast<cl_ulong>(tiles_));
      scatter.setArg(6, keys_out.get());
      scatter.setArg(7, other_.ids.get());
      engine_.Launch(scatter, tiles_, "sort pass");
      std::swap(current_, other_);
      std::swap(keys, keys_out);
    }
  }

  RowIds Take() { return std::move(current_); }
  bool identity() const { return identity_; }

 private:
  Engine& engine_;
  RowCount rows_;
  std::uint64_t tiles_;
  RowIds current_;
  RowIds other_;
  DeviceBuffer counts_;
  DeviceBuffer varies_;
  bool identity_ = false;
};

// Inverse of sort_numeric_key.
NumericValue FromKey(std::uint32_t type, std::uint64_t key) {
  NumericValue value;
  switch (type) {
    case SORT_TYPE_INT32:
      value.integer = static_cast<std::int32_t>(static_cast<std::uint32_t>(key) ^ 0x80000000u);
      break;
    case SORT_TYPE_INT64:
      value.integer = static_cast<std::int64_t>(key ^ 0x8000000000000000ull);
      break;
    case SORT_TYPE_DOUBLE: {
      const std::uint64_t bits = (key >> 63) != 0 ? key ^ 0x8000000000000000ull : ~key;
      value.is_real = true;
      value.real = std::bit_cast<double>(bits);
      break;
    }
    default:
      throw InternalError("SelectKth of a non-numeric type");
  }
  return value;
}

}  // namespace

RowIds RadixSortPermutation(Engine& engine, const std::vector<RadixKey>& keys, RowCount rows,
                            bool* identity) {
  if (identity != nullptr) *identity = false;
  if (rows > kMaxTableRows) throw DeviceLimitError("sort: too many rows");
  if (rows == 0) return AllocateRowIds(engine, 0, "sort permutation");
  RadixSorter sorter(engine, rows);
  for (auto key = keys.rbegin(); key != keys.rend(); ++key) {
    CLQ_CHECK(key->type <= SORT_TYPE_UINT32, "sort key of an unknown type");
    // One reduction per image finds the digits that vary; only those get
    // passes. CHAR(n): 8-byte chunks, the last first.
    if (key->type == SORT_TYPE_CHAR) {
      for (std::uint32_t chunk = (key->width + 7) / 8; chunk-- > 0;)
        sorter.ImagePasses(*key, chunk * 8);
    } else {
      sorter.ImagePasses(*key, 0, keys.size() == 1);
    }
    if (key->nulls() != nullptr) sorter.NullPass(*key);
  }
  if (identity != nullptr) *identity = sorter.identity();
  return sorter.Take();
}

RowIds SortPermutation(QueryContext& context, const std::vector<SortKey>& keys, RowCount rows) {
  std::vector<RadixKey> radix_keys;
  radix_keys.reserve(keys.size());
  for (const SortKey& key : keys) {
    CLQ_CHECK(key.values.size >= rows, "sort key shorter than the rows to sort");
    radix_keys.push_back(ToRadixKey(key));
  }
  return RadixSortPermutation(context.engine(), radix_keys, rows);
}

namespace {

// Radix select over the non-NULL keys XOR `flip`: the key of rank `rank`, or
// nullopt when there are `rank` or fewer; *non_null gets their count. With
// `quantile`, the rank is floor(quantile * (count - 1)), known after the
// first pass.
// The images (XOR flip) of the `count` non-NULL keys matching `prefix`
// under `mask`, packed (sort_select_flags, ExclusiveScan,
// sort_select_compact).
DeviceBuffer CompactCandidates(Engine& engine, const RadixKey& key, RowCount rows,
                               std::uint64_t flip, std::uint64_t prefix, std::uint64_t mask,
                               RowCount count) {
  const bool has_nulls = key.nulls() != nullptr;
  DeviceBuffer flags = engine.pool().Acquire(rows * sizeof(cl_uint), "select flags");
  DeviceBuffer offsets = engine.pool().Acquire(rows * sizeof(cl_uint), "select offsets");
  DeviceBuffer images =
      engine.pool().Acquire(std::max<RowCount>(count, 1) * sizeof(cl_ulong), "select candidates");
  cl::Kernel& mark = engine.kernel("sort_select_flags");
  mark.setArg(0, key.values);
  mark.setArg(1, has_nulls ? key.nulls : key.values);
  mark.setArg(2, static_cast<cl_uint>(has_nulls ? 1 : 0));
  mark.setArg(3, static_cast<cl_uint>(key.type));
  mark.setArg(4, static_cast<cl_ulong>(rows));
  mark.setArg(5, static_cast<cl_ulong>(flip));
  mark.setArg(6, static_cast<cl_ulong>(prefix));
  mark.setArg(7, static_cast<cl_ulong>(mask));
  mark.setArg(8, flags.get());
  engine.Launch(mark, engine.TilesFor(rows), "select compact");
  ExclusiveScan(engine, flags.get(), rows, offsets.get(), nullptr);
  cl::Kernel& compact = engine.kernel("sort_select_compact");
  compact.setArg(0, key.values);
  compact.setArg(1, static_cast<cl_uint>(key.type));
  compact.setArg(2, static_cast<cl_ulong>(rows));
  compact.setArg(3, static_cast<cl_ulong>(flip));
  compact.setArg(4, flags.get());
  compact.setArg(5, offsets.get());
  compact.setArg(6, images.get());
  engine.Launch(compact, engine.TilesFor(rows), "select compact");
  return images;
}

std::optional<std::uint64_t> RadixSelect(Engine& engine, const RadixKey& key, RowCount rows,
                                         std::uint64_t flip, RowCount rank, RowCount* non_null,
                                         std::optional<double> quantile = std::nullopt) {
  const bool has_nulls = key.nulls() != nullptr;
  DeviceBuffer histogram = engine.pool().Acquire(kBuckets * sizeof(cl_uint), "select histogram");
  // The values the passes read: the key, or once few candidates are left
  // their images, compacted (Govindaraju et al.: recurse on the bucket).
  DeviceBuffer images;
  RowCount candidates = rows;
  cl::Kernel& kernel = engine.kernel("sort_select_histogram");
  kernel.setArg(0, key.values);
  kernel.setArg(1, has_nulls ? key.nulls : key.values);
  kernel.setArg(2, static_cast<cl_uint>(has_nulls ? 1 : 0));
  kernel.setArg(3, static_cast<cl_uint>(key.type));
  kernel.setArg(4, static_cast<cl_ulong>(rows));
  kernel.setArg(5, static_cast<cl_ulong>(flip));
  // Digits that no non-NULL key varies in are known without a pass; the
  // first pass run (at the latest the last digit's) counts the candidates.
  const KeyBitsResult bits = KeyBits(engine, key, rows);
  const std::uint64_t varying = bits.varying();
  const std::uint64_t constant = bits.all ^ flip;
  std::uint64_t prefix = 0;
  std::uint64_t mask = 0;
  bool counted = false;
  for (std::uint32_t shift = key.width * 8; shift > 0;) {
    shift -= SORT_RADIX_BITS;
    const std::uint64_t digit_mask = static_cast<std::uint64_t>(kBuckets - 1) << shift;
    if ((varying & digit_mask) == 0 && (counted || shift != 0)) {
      prefix |= constant & digit_mask;
      mask |= digit_mask;
      continue;
    }
    engine.Fill(histogram.get(), 0, 0, kBuckets * sizeof(cl_uint), "select histogram");
    kernel.setArg(6, static_cast<cl_ulong>(prefix));
    kernel.setArg(7, static_cast<cl_ulong>(mask));
    kernel.setArg(8, static_cast<cl_uint>(shift));
    kernel.setArg(9, histogram.get());
    engine.Launch(kernel, engine.TilesFor(candidates), "select histogram");
    std::array<cl_uint, kBuckets> counts{};
    engine.Download(histogram.get(), 0, sizeof(counts), counts.data(), "select histogram");
    if (!counted) {
      counted = true;
      RowCount count = 0;
      for (cl_uint c : counts)
        count += c;
      if (non_null != nullptr) *non_null = count;
      if (quantile) {
        if (count == 0) return std::nullopt;
        rank = QuantileRank(*quantile, count);
      }
    }
    std::uint32_t bucket = 0;
    while (bucket < kBuckets && rank >= counts[bucket])
      rank -= counts[bucket++];
    if (bucket == kBuckets) return std::nullopt;  // only in the first pass: too few values
    prefix |= static_cast<std::uint64_t>(bucket) << shift;
    mask |= static_cast<std::uint64_t>(kBuckets - 1) << shift;
    if (!images.empty() || shift == 0 || counts[bucket] * kSelectCompactFraction > rows) continue;
    candidates = counts[bucket];
    images = CompactCandidates(engine, key, rows, flip, prefix, mask, candidates);
    kernel.setArg(0, images.get());
    kernel.setArg(1, images.get());
    kernel.setArg(2, static_cast<cl_uint>(0));
    kernel.setArg(3, static_cast<cl_uint>(SORT_TYPE_IMAGE));
    kernel.setArg(4, static_cast<cl_ulong>(candidates));
    kernel.setArg(5, static_cast<cl_ulong>(0));
  }
  return prefix;
}

}  // namespace

std::optional<NumericValue> SelectKth(QueryContext& context, const VectorView& values,
                                      RowCount rows, RowCount k) {
  CLQ_CHECK(values.type.is_numeric(), "SelectKth of CHAR values");
  CLQ_CHECK(values.size >= rows, "SelectKth over more rows than values");
  if (rows == 0) return std::nullopt;
  const RadixKey key = ToRadixKey({values, false});
  const std::optional<std::uint64_t> found =
      RadixSelect(context.engine(), key, rows, 0, k, nullptr);
  if (!found) return std::nullopt;
  return FromKey(key.type, *found);
}

std::optional<NumericValue> SelectQuantile(QueryContext& context, const VectorView& values,
                                           RowCount rows, double q) {
  CLQ_CHECK(values.type.is_numeric(), "SelectQuantile of CHAR values");
  CLQ_CHECK(values.size >= rows, "SelectQuantile over more rows than values");
  if (rows == 0) return std::nullopt;
  const RadixKey key = ToRadixKey({values, false});
  const std::optional<std::uint64_t> found =
      RadixSelect(context.engine(), key, rows, 0, 0, nullptr, q);
  if (!found) return std::nullopt;
  return FromKey(key.type, *found);
}

}  // namespace clq

namespace clq {

KernelSet SortPermutationKernels(const Engine& engine, const std::vector<bool>& nullable_keys,
                                 RowCount rows, bool exact) {
  KernelSet kernels;
  if (rows == 0 || nullable_keys.empty()) return kernels;
  kernels = {"gather_iota", "sort_key_bits", "sort_load_keys", "sort_count_keys"};
  kernels.Add(ExclusiveScanKernels(engine, kBuckets * engine.TilesFor(rows), exact));
  kernels.Add("sort_scatter_keys");
  if (std::find(nullable_keys.begin(), nullable_keys.end(), true) != nullable_keys.end()) {
    // A NULL pass moves rows only when some but not all keys are NULL.
    kernels.Add("sort_count_nulls");
    kernels.AddWhenNeeded("sort_scatter_nulls");
  }
  return kernels;
}

KernelSet SelectQuantileKernels(const Engine& engine, RowCount rows, bool exact) {
  KernelSet kernels;
  if (rows == 0) return kernels;
  kernels = {"sort_key_bits", "sort_select_histogram"};
  // Once few candidates are left, they are packed.
  KernelSet compaction{"sort_select_flags"};
  compaction.Add(ExclusiveScanKernels(engine, rows, exact));
  compaction.Add("sort_select_compact");
  kernels.Add(compaction, true);
  return kernels;
}

}  // namespace clq

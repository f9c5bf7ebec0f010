#include "operators/sort.hpp"

#include <array>
#include <bit>
#include <utility>

#include "kernels_cl/sort_shared.h"
#include "operators/scan.hpp"
#include "runtime/errors.hpp"

namespace clq {
namespace {

static_assert(SORT_TYPE_INT32 == static_cast<int>(DataType::kInt32));
static_assert(SORT_TYPE_INT64 == static_cast<int>(DataType::kInt64));
static_assert(SORT_TYPE_DOUBLE == static_cast<int>(DataType::kDouble));
static_assert(SORT_TYPE_CHAR == static_cast<int>(DataType::kChar));

constexpr std::uint32_t kBuckets = SORT_BUCKETS;

RadixKey ToRadixKey(const SortKey& key) {
  return {key.values.values, key.values.nulls, static_cast<std::uint32_t>(key.values.type.type),
          key.values.type.width, key.descending};
}

// Number of 4-bit digits of a key's value.
std::uint32_t DigitCount(const RadixKey& key) {
  if (key.type == SORT_TYPE_CHAR) return key.width * 2;
  return key.width * 8 / SORT_RADIX_BITS;
}

// Sets the arguments sort_count and sort_scatter share (0..9).
void SetPassArgs(cl::Kernel& kernel, const cl::Buffer& perm, RowCount rows, const RadixKey& key,
                 std::uint32_t mode, std::uint32_t digit) {
  const bool has_nulls = key.nulls() != nullptr;
  kernel.setArg(0, perm);
  kernel.setArg(1, static_cast<cl_ulong>(rows));
  kernel.setArg(2, key.values);
  kernel.setArg(3, has_nulls ? key.nulls : key.values);
  kernel.setArg(4, static_cast<cl_uint>(has_nulls ? 1 : 0));
  kernel.setArg(5, static_cast<cl_uint>(key.type));
  kernel.setArg(6, static_cast<cl_uint>(key.width));
  kernel.setArg(7, static_cast<cl_uint>(mode));
  kernel.setArg(8, static_cast<cl_uint>(digit));
  kernel.setArg(9, static_cast<cl_uint>(key.descending ? 1 : 0));
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
        varies_(engine.pool().Acquire(sizeof(cl_uint), "sort pass flag")),
        bits_(engine.pool().Acquire(4 * sizeof(cl_uint), "sort key bits")) {
    cl::Kernel& iota = engine.kernel("gather_iota");
    iota.setArg(0, current_.ids.get());
    iota.setArg(1, static_cast<cl_ulong>(rows));
    iota.setArg(2, static_cast<cl_uint>(0));
    engine.Launch(iota, tiles_, "sort positions");
  }

  // Bits that differ between the key's non-NULL values (numeric keys).
  std::uint64_t VaryingBits(const RadixKey& key) {
    const bool has_nulls = key.nulls() != nullptr;
    const std::array<cl_uint, 4> initial = {0, 0, 0xFFFFFFFFu, 0xFFFFFFFFu};
    engine_.Upload(bits_.get(), 0, sizeof(initial), initial.data(), "sort key bits");
    cl::Kernel& kernel = engine_.kernel("sort_key_bits");
    kernel.setArg(0, key.values);
    kernel.setArg(1, has_nulls ? key.nulls : key.values);
    kernel.setArg(2, static_cast<cl_uint>(has_nulls ? 1 : 0));
    kernel.setArg(3, static_cast<cl_uint>(key.type));
    kernel.setArg(4, static_cast<cl_ulong>(rows_));
    kernel.setArg(5, bits_.get());
    engine_.Launch(kernel, tiles_, "sort key bits");
    std::array<cl_uint, 4> words{};
    engine_.Download(bits_.get(), 0, sizeof(words), words.data(), "sort key bits");
    const std::uint64_t any = words[0] | static_cast<std::uint64_t>(words[1]) << 32;
    const std::uint64_t all = words[2] | static_cast<std::uint64_t>(words[3]) << 32;
    return any & ~all;
  }

  // One stable pass by digit `digit` of `key` (or its NULL flag).
  void Pass(const RadixKey& key, std::uint32_t mode, std::uint32_t digit) {
    engine_.Fill(varies_.get(), 0, 0, sizeof(cl_uint), "sort pass flag");
    cl::Kernel& count = engine_.kernel("sort_count");
    SetPassArgs(count, current_.ids.get(), rows_, key, mode, digit);
    count.setArg(10, counts_.get());
    count.setArg(11, static_cast<cl_ulong>(tiles_));
    count.setArg(12, varies_.get());
    engine_.Launch(count, tiles_, "sort count");
    cl_uint varies = 0;
    engine_.Download(varies_.get(), 0, sizeof(varies), &varies, "sort pass flag");
    if (varies == 0) return;  // every row has the same digit: a stable pass moves nothing
    ExclusiveScan(engine_, counts_.get(), kBuckets * tiles_, counts_.get(), nullptr);
    cl::Kernel& scatter = engine_.kernel("sort_scatter");
    SetPassArgs(scatter, current_.ids.get(), rows_, key, mode, digit);
    scatter.setArg(10, counts_.get());
    scatter.setArg(11, static_cast<cl_ulong>(tiles_));
    scatter.setArg(12, other_.ids.get());
    engine_.Launch(scatter, tiles_, "sort pass");
    std::swap(current_, other_);
  }

  RowIds Take() { return std::move(current_); }

 private:
  Engine& engine_;
  RowCount rows_;
  std::uint64_t tiles_;
  RowIds current_;
  RowIds other_;
  DeviceBuffer counts_;
  DeviceBuffer varies_;
  DeviceBuffer bits_;
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

RowIds RadixSortPermutation(Engine& engine, const std::vector<RadixKey>& keys, RowCount rows) {
  if (rows > kMaxTableRows) throw DeviceLimitError("sort: too many rows");
  if (rows == 0) return AllocateRowIds(engine, 0, "sort permutation");
  RadixSorter sorter(engine, rows);
  for (auto key = keys.rbegin(); key != keys.rend(); ++key) {
    CLQ_CHECK(key->type <= SORT_TYPE_UINT32, "sort key of an unknown type");
    // Numeric keys: one reduction finds the digits that vary, and only
    // those get passes. CHAR keys: each pass's count kernel tells.
    const bool text = key->type == SORT_TYPE_CHAR;
    const std::uint64_t varying = text ? 0 : sorter.VaryingBits(*key);
    for (std::uint32_t digit = 0; digit < DigitCount(*key); ++digit) {
      if (text || ((varying >> (digit * SORT_RADIX_BITS)) & (kBuckets - 1)) != 0)
        sorter.Pass(*key, SORT_PASS_VALUE, digit);
    }
    if (key->nulls() != nullptr) sorter.Pass(*key, SORT_PASS_NULL, 0);
  }
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

RowIds TopK(QueryContext& context, const std::vector<SortKey>& keys, RowCount rows, RowCount k) {
  Engine& engine = context.engine();
  RowIds sorted = SortPermutation(context, keys, rows);
  const RowCount take = std::min(k, rows);
  if (take == rows) return sorted;
  RowIds result = AllocateRowIds(engine, take, "top-k positions");
  if (take != 0)
    engine.Copy(sorted.ids.get(), 0, result.ids.get(), 0, take * sizeof(cl_uint), "top-k slice");
  return result;
}

std::optional<NumericValue> SelectKth(QueryContext& context, const VectorView& values,
                                      RowCount rows, RowCount k) {
  Engine& engine = context.engine();
  CLQ_CHECK(values.type.is_numeric(), "SelectKth of CHAR values");
  CLQ_CHECK(values.size >= rows, "SelectKth over more rows than values");
  if (rows == 0) return std::nullopt;
  const auto type = static_cast<std::uint32_t>(values.type.type);
  const bool has_nulls = values.has_nulls();
  DeviceBuffer histogram = engine.pool().Acquire(kBuckets * sizeof(cl_uint), "select histogram");
  cl::Kernel& kernel = engine.kernel("sort_select_histogram");
  kernel.setArg(0, values.values);
  kernel.setArg(1, has_nulls ? values.nulls : values.values);
  kernel.setArg(2, static_cast<cl_uint>(has_nulls ? 1 : 0));
  kernel.setArg(3, static_cast<cl_uint>(type));
  kernel.setArg(4, static_cast<cl_ulong>(rows));
  std::uint64_t prefix = 0;
  std::uint64_t mask = 0;
  RowCount rank = k;
  const std::uint32_t bits = values.type.width * 8;
  for (std::uint32_t shift = bits; shift > 0;) {
    shift -= SORT_RADIX_BITS;
    engine.Fill(histogram.get(), 0, 0, kBuckets * sizeof(cl_uint), "select histogram");
    kernel.setArg(5, static_cast<cl_ulong>(prefix));
    kernel.setArg(6, static_cast<cl_ulong>(mask));
    kernel.setArg(7, static_cast<cl_uint>(shift));
    kernel.setArg(8, histogram.get());
    engine.Launch(kernel, engine.TilesFor(rows), "select histogram");
    std::array<cl_uint, kBuckets> counts{};
    engine.Download(histogram.get(), 0, sizeof(counts), counts.data(), "select histogram");
    std::uint32_t bucket = 0;
    while (bucket < kBuckets && rank >= counts[bucket])
      rank -= counts[bucket++];
    if (bucket == kBuckets) return std::nullopt;  // only possible in the first pass: rank >= count
    prefix |= static_cast<std::uint64_t>(bucket) << shift;
    mask |= static_cast<std::uint64_t>(kBuckets - 1) << shift;
  }
  return FromKey(type, prefix);
}

}  // namespace clq

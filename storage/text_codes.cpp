#include "storage/text_codes.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/byte_size.hpp"
#include "common/parallel_ranges.hpp"

namespace clq {
namespace {

// A row and its first 8 bytes as a big-endian number, so that most
// comparisons of the sort are one integer comparison.
struct Key {
  std::uint64_t prefix;
  std::uint32_t row;
};

std::uint64_t Prefix(const std::byte* value, std::uint32_t width) {
  std::uint64_t prefix = 0;
  for (std::uint32_t i = 0; i < 8; ++i)
    prefix = (prefix << 8) | (i < width ? std::to_integer<std::uint64_t>(value[i]) : 0);
  return prefix;
}

// Few distinct values: each part of the rows numbers its values in order of
// first appearance (a hash map), the parts' values sorted together give the
// codes, and each row's number becomes its code. Returns false, having
// written nothing, where a part finds more than kMostHashedValues values.
constexpr std::size_t kMostHashedValues = std::size_t{1} << 16;

bool HashedOrderCodes(const std::byte* text, RowCount rows, std::uint32_t width, std::byte* codes,
                      bool wide, TextDictionary& dictionary) {
  struct Part {
    std::size_t begin = 0, end = 0;
    std::vector<std::string_view> values;  // in order of first appearance
  };
  std::vector<Part> parts;
  std::mutex parts_mutex;
  std::vector<std::uint32_t> local(rows);
  std::atomic<bool> too_many{false};
  ParallelRanges(rows, std::size_t{1} << 16, 1, [&](std::size_t begin, std::size_t end) {
    Part part{begin, end, {}};
    std::unordered_map<std::string_view, std::uint32_t> numbers;
    const char* chars = reinterpret_cast<const char*>(text);
    std::string_view previous;
    std::uint32_t previous_number = 0;
    for (std::size_t r = begin; r < end; ++r) {
      const std::string_view value(chars + r * width, width);
      if (r == begin || value != previous) {
        const auto [at, added] =
            numbers.try_emplace(value, static_cast<std::uint32_t>(part.values.size()));
        if (added) {
          if (part.values.size() == kMostHashedValues || too_many.load()) {
            too_many = true;
            return;
          }
          part.values.push_back(value);
        }
        previous = value;
        previous_number = at->second;
      }
      local[r] = previous_number;
    }
    const std::lock_guard<std::mutex> lock(parts_mutex);
    parts.push_back(std::move(part));
  });
  if (too_many) return false;
  std::vector<std::string_view> sorted;
  for (const Part& part : parts)
    sorted.insert(sorted.end(), part.values.begin(), part.values.end());
  // Padded to one width, the bytes compare as the values do.
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  ParallelRanges(parts.size(), 1, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p) {
      const Part& part = parts[p];
      std::vector<std::int64_t> code_of(part.values.size());
      for (std::size_t v = 0; v < part.values.size(); ++v)
        code_of[v] =
            std::lower_bound(sorted.begin(), sorted.end(), part.values[v]) - sorted.begin();
      for (std::size_t r = part.begin; r < part.end; ++r)
        SetOrderCode(codes, wide, r, code_of[local[r]]);
    }
  });
  for (const std::string_view value : sorted)
    dictionary.values.emplace_back(CharValue(value.data(), value.size()));
  return true;
}

}  // namespace

std::uint64_t OrderCodesWorkBytes(RowCount rows, std::uint32_t width) {
  // The sort's keys and the dictionary (at most every value).
  return SaturatingMultiply(rows, sizeof(Key) + std::uint64_t{width} + sizeof(std::string));
}

std::uint64_t TextDictionary::Bytes() const {
  std::uint64_t bytes = values.capacity() * sizeof(std::string);
  const std::string empty;
  for (const std::string& value : values)
    if (value.capacity() > empty.capacity()) bytes += value.capacity() + 1;  // past the SSO buffer
  return bytes;
}

namespace {

TextDictionary OrderCodes(const std::byte* text, RowCount rows, std::uint32_t width,
                          std::byte* codes, bool wide) {
  TextDictionary dictionary;
  if (rows == 0) return dictionary;
  if (HashedOrderCodes(text, rows, width, codes, wide, dictionary)) return dictionary;
  // Many distinct values: the rows sorted by value.
  std::vector<Key> keys(rows);
  ParallelRanges(rows, std::size_t{1} << 16, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r)
      keys[r] = {Prefix(text + r * width, width), static_cast<std::uint32_t>(r)};
  });
  const auto less = [&](const Key& a, const Key& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    if (width <= 8) return false;
    return std::memcmp(text + std::size_t{a.row} * width + 8, text + std::size_t{b.row} * width + 8,
                       width - 8) < 0;
  };
  // Parts sorted on their threads, then merged pairwise, level by level.
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  std::mutex parts_mutex;
  ParallelRanges(rows, std::size_t{1} << 16, 1, [&](std::size_t begin, std::size_t end) {
    std::sort(keys.begin() + begin, keys.begin() + end, less);
    const std::lock_guard<std::mutex> lock(parts_mutex);
    parts.emplace_back(begin, end);
  });
  std::sort(parts.begin(), parts.end());
  while (parts.size() > 1) {
    ParallelRanges(parts.size() / 2, 1, 1, [&](std::size_t begin, std::size_t end) {
      for (std::size_t p = begin; p < end; ++p)
        std::inplace_merge(keys.begin() + parts[2 * p].first, keys.begin() + parts[2 * p + 1].first,
                           keys.begin() + parts[2 * p + 1].second, less);
    });
    std::vector<std::pair<std::size_t, std::size_t>> merged;
    for (std::size_t p = 0; p + 1 < parts.size(); p += 2)
      merged.emplace_back(parts[p].first, parts[p + 1].second);
    if (parts.size() % 2 == 1) merged.push_back(parts.back());
    parts = std::move(merged);
  }
  std::int64_t code = -1;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || less(keys[i - 1], keys[i])) {
      ++code;
      dictionary.values.emplace_back(
          CharValue(reinterpret_cast<const char*>(text) + std::size_t{keys[i].row} * width, width));
    }
    SetOrderCode(codes, wide, keys[i].row, code);
  }
  return dictionary;
}

}  // namespace

bool OrderCodesAreCheap(const std::byte* text, RowCount rows, std::uint32_t width) {
  // A sort of this many rows takes well under a second.
  constexpr RowCount kCheapRows = RowCount{1} << 20;
  constexpr RowCount kSample = RowCount{1} << 16;
  if (rows <= kCheapRows) return true;
  std::unordered_set<std::string_view> values;
  const char* chars = reinterpret_cast<const char*>(text);
  const RowCount stride = rows / kSample;
  for (RowCount i = 0; i < kSample; ++i)
    values.emplace(chars + i * stride * width, width);
  return values.size() * 4 <= kSample;
}

TextDictionary ComputeOrderCodes(const std::byte* text, RowCount rows, std::uint32_t width,
                                 std::byte* codes, bool wide) {
  TextDictionary dictionary = OrderCodes(text, rows, width, codes, wide);
  for (const std::string& value : dictionary.values)
    dictionary.width = std::max(dictionary.width, static_cast<std::uint32_t>(value.size()));
  return dictionary;
}

}  // namespace clq

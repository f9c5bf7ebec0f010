#include "wisconsin/generator.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <span>

#include "common/errors.hpp"
#include "storage/memory_advice.hpp"

namespace clq {
namespace {

enum WisconsinColumn : std::size_t {
  kUnique1,
  kUnique2,
  kTwo,
  kFour,
  kTen,
  kTwenty,
  kOnePercent,
  kTenPercent,
  kTwentyPercent,
  kFiftyPercent,
  kUnique3,
  kEvenOnePercent,
  kOddOnePercent,
  kStringu1,
  kStringu2,
  kString4,
  kColumnCount,
};

constexpr const char* kColumnNames[kColumnCount] = {
    "unique1",       "unique2",    "two",           "four",         "ten",     "twenty",
    "onePercent",    "tenPercent", "twentyPercent", "fiftyPercent", "unique3", "evenOnePercent",
    "oddOnePercent", "stringu1",   "stringu2",      "string4"};

constexpr std::size_t kCodeLength = 7;

// 52 bytes: a 7-letter code of 'A's, then 45 'x'.
constexpr std::array<char, kWisconsinStringWidth> MakeCodeTemplate() {
  std::array<char, kWisconsinStringWidth> s{};
  for (std::size_t i = 0; i < s.size(); ++i)
    s[i] = i < kCodeLength ? 'A' : 'x';
  return s;
}
constexpr std::array<char, kWisconsinStringWidth> kCodeTemplate = MakeCodeTemplate();

// string4 for row % 4: AAAA, HHHH, OOOO, VVVV, then 48 'x'.
constexpr std::array<std::array<char, kWisconsinStringWidth>, 4> MakeString4() {
  std::array<std::array<char, kWisconsinStringWidth>, 4> all{};
  constexpr char kLetters[4] = {'A', 'H', 'O', 'V'};
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t i = 0; i < kWisconsinStringWidth; ++i)
      all[k][i] = i < 4 ? kLetters[k] : 'x';
  return all;
}
constexpr auto kString4Values = MakeString4();

void WriteCode(char* out, std::uint32_t value) {
  std::memcpy(out, kCodeTemplate.data(), kWisconsinStringWidth);
  for (std::size_t i = kCodeLength; i-- > 0 && value != 0;) {
    out[i] = static_cast<char>('A' + value % 26);
    value /= 26;
  }
}

// The smallest and largest value written to one column by several threads.
class SharedBounds {
 public:
  void Merge(std::int32_t lo, std::int32_t hi) {
    for (std::int32_t m = min_.load(); lo < m && !min_.compare_exchange_weak(m, lo);) {
    }
    for (std::int32_t m = max_.load(); hi > m && !max_.compare_exchange_weak(m, hi);) {
    }
  }
  IntRange range() const { return {min_.load(), max_.load()}; }

 private:
  std::atomic<std::int32_t> min_{std::numeric_limits<std::int32_t>::max()};
  std::atomic<std::int32_t> max_{std::numeric_limits<std::int32_t>::min()};
};

// Writes every column of rows [first_row, first_row + unique1.size()), from
// several threads at once, and tracks the integer columns' bounds as it
// goes: a query's first use of a column then needs no scan for them (even
// on several threads a scan can cost more than the column's upload to a GPU).
class RowWriter {
 public:
  explicit RowWriter(TableBuilder& builder) {
    for (std::size_t c = 0; c < kStringu1; ++c)
      ints_[c] = builder.column_values<std::int32_t>(c);
    for (std::size_t c = kStringu1; c < kColumnCount; ++c)
      chars_[c - kStringu1] = builder.column_values<char>(c);
  }

  // REQUIRES: at least one row was written.
  void RecordBounds(TableBuilder& builder) const {
    for (std::size_t c = 0; c < kStringu1; ++c)
      builder.SetIntegerRange(c, bounds_[c].range());
  }

  void Write(RowCount first_row, std::span<const std::uint32_t> unique1) const {
    const std::size_t count = unique1.size();
    const std::uint32_t* u = unique1.data();
    // One tight loop per column over a block in cache: each vectorises,
    // the min/max reduction included.
    auto fill = [&](std::size_t column, auto rule) {
      std::int32_t* out = ints_[column] + first_row;
      std::int32_t lo = std::numeric_limits<std::int32_t>::max();
      std::int32_t hi = std::numeric_limits<std::int32_t>::min();
      for (std::size_t i = 0; i < count; ++i) {
        const auto value = static_cast<std::int32_t>(rule(u[i]));
        out[i] = value;
        lo = std::min(lo, value);
        hi = std::max(hi, value);
      }
      bounds_[column].Merge(lo, hi);
    };
    fill(kUnique1, [](std::uint32_t v) { return v; });
    std::int32_t* unique2 = ints_[kUnique2] + first_row;
    for (std::size_t i = 0; i < count; ++i)
      unique2[i] = static_cast<std::int32_t>(first_row + i);
    if (count > 0)
      bounds_[kUnique2].Merge(static_cast<std::int32_t>(first_row),
                              static_cast<std::int32_t>(first_row + count - 1));
    fill(kTwo, [](std::uint32_t v) { return v % 2; });
    fill(kFour, [](std::uint32_t v) { return v % 4; });
    fill(kTen, [](std::uint32_t v) { return v % 10; });
    fill(kTwenty, [](std::uint32_t v) { return v % 20; });
    fill(kOnePercent, [](std::uint32_t v) { return v % 100; });
    fill(kTenPercent, [](std::uint32_t v) { return v % 10; });
    fill(kTwentyPercent, [](std::uint32_t v) { return v % 5; });
    fill(kFiftyPercent, [](std::uint32_t v) { return v % 2; });
    fill(kUnique3, [](std::uint32_t v) { return v; });
    fill(kEvenOnePercent, [](std::uint32_t v) { return v % 100 * 2; });
    fill(kOddOnePercent, [](std::uint32_t v) { return v % 100 * 2 + 1; });
    char* stringu1 = chars_[0] + first_row * kWisconsinStringWidth;
    char* stringu2 = chars_[1] + first_row * kWisconsinStringWidth;
    char* string4 = chars_[2] + first_row * kWisconsinStringWidth;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t offset = i * kWisconsinStringWidth;
      WriteCode(stringu1 + offset, u[i]);
      WriteCode(stringu2 + offset, static_cast<std::uint32_t>(first_row + i));
      std::memcpy(string4 + offset, kString4Values[(first_row + i) % 4].data(),
                  kWisconsinStringWidth);
    }
  }

 private:
  std::int32_t* ints_[kStringu1];
  char* chars_[kColumnCount - kStringu1];
  mutable std::array<SharedBounds, kStringu1> bounds_;
};

}  // namespace

Schema WisconsinSchema() {
  Schema schema;
  for (std::size_t c = 0; c < kColumnCount; ++c)
    schema.push_back({kColumnNames[c], c < kStringu1 ? ColumnType::Int32()
                                                     : ColumnType::Char(kWisconsinStringWidth)});
  return schema;
}

TablePtr GenerateWisconsinTable(std::string name, RowCount n, const GenerateOptions& options) {
  return GenerateWisconsinPrefix(std::move(name), n, n, options);
}

TablePtr GenerateWisconsinPrefix(std::string name, RowCount n, RowCount rows,
                                 const GenerateOptions& options) {
  const SequenceParameters params = WisconsinParameters(n);
  CLQ_CHECK(rows <= n, "a prefix longer than its table");
  const Schema schema = WisconsinSchema();
  TableBuilder builder(name, schema, rows, options.host_memory);
  for (std::size_t c = 0; c < schema.size(); ++c)
    AdviseHugePages(builder.column_data(c), rows * schema[c].type.width);
  const RowWriter writer(builder);
  ProduceUnique1(params, n, rows, options, name,
                 [&](RowCount first_row, std::span<const std::uint32_t> unique1) {
                   writer.Write(first_row, unique1);
                 });
  if (rows > 0) writer.RecordBounds(builder);
  return builder.Finish();
}

std::string WisconsinCode(std::uint32_t value) {
  char buffer[kWisconsinStringWidth];
  WriteCode(buffer, value);
  return std::string(buffer, kCodeLength);
}

}  // namespace clq

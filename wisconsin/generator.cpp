#include "wisconsin/generator.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "common/errors.hpp"
#include "common/parallel_ranges.hpp"
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

using IntRule = std::int32_t (*)(std::uint32_t unique1);

// The INT32 columns other than unique1 and unique2, from unique1.
constexpr IntRule kRules[kStringu1] = {
    nullptr,
    nullptr,
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 2); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 4); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 10); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 20); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 100); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 10); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 5); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 2); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 100 * 2); },
    [](std::uint32_t v) { return static_cast<std::int32_t>(v % 100 * 2 + 1); },
};

// Rows per piece of work when a column is derived on several threads.
constexpr std::size_t kRowsPerThread = std::size_t{1} << 20;

// Each column of a generated table is made on first use (ColumnData's lazy
// form): a query that reads two columns of a 16-column table makes two
// (and unique1, which every column but unique2, stringu2 and string4
// derives from). unique1 is the permutation's output; the others are one
// pass over it, or over the row numbers, on several threads, each tracking
// its integer bounds as it writes, so that a query's first use of a column
// needs no scan for them.
std::vector<std::shared_ptr<const ColumnData>> LazyColumns(const std::string& name, RowCount n,
                                                           RowCount rows,
                                                           const GenerateOptions& options) {
  const SequenceParameters params = WisconsinParameters(n);
  const Schema schema = WisconsinSchema();
  const auto lazy = [&](std::size_t c, ColumnData::Fill fill) {
    return std::make_shared<ColumnData>(schema[c].type, rows, std::move(fill),
                                        "column " + schema[c].name + " of " + name,
                                        options.host_memory);
  };
  std::vector<std::shared_ptr<const ColumnData>> columns(kColumnCount);
  const std::shared_ptr<const ColumnData> unique1 =
      lazy(kUnique1, [params, n, rows, options, name](ColumnData& column, std::byte* data) {
        AdviseHugePages(data, column.byte_size());
        auto* out = reinterpret_cast<std::int32_t*>(data);
        SharedBounds bounds;
        ProduceUnique1(params, n, rows, options, name,
                       [&](RowCount first_row, std::span<const std::uint32_t> values) {
                         std::int32_t lo = std::numeric_limits<std::int32_t>::max();
                         std::int32_t hi = std::numeric_limits<std::int32_t>::min();
                         for (std::size_t i = 0; i < values.size(); ++i) {
                           const auto v = static_cast<std::int32_t>(values[i]);
                           out[first_row + i] = v;
                           lo = std::min(lo, v);
                           hi = std::max(hi, v);
                         }
                         bounds.Merge(lo, hi);
                       });
        if (rows > 0) column.SetIntegerRange(bounds.range());
      });
  columns[kUnique1] = unique1;
  const auto source = [unique1] { return reinterpret_cast<const std::uint32_t*>(unique1->data()); };
  for (std::size_t c = kTwo; c < kStringu1; ++c) {
    columns[c] = lazy(c, [source, rule = kRules[c], rows](ColumnData& column, std::byte* data) {
      AdviseHugePages(data, column.byte_size());
      const std::uint32_t* u = source();
      auto* out = reinterpret_cast<std::int32_t*>(data);
      SharedBounds bounds;
      ParallelRanges(rows, kRowsPerThread, 64, [&](std::size_t begin, std::size_t end) {
        std::int32_t lo = std::numeric_limits<std::int32_t>::max();
        std::int32_t hi = std::numeric_limits<std::int32_t>::min();
        for (std::size_t i = begin; i < end; ++i) {
          const std::int32_t v = rule(u[i]);
          out[i] = v;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        bounds.Merge(lo, hi);
      });
      if (rows > 0) column.SetIntegerRange(bounds.range());
    });
  }
  columns[kUnique2] = lazy(kUnique2, [rows](ColumnData& column, std::byte* data) {
    AdviseHugePages(data, column.byte_size());
    auto* out = reinterpret_cast<std::int32_t*>(data);
    ParallelRanges(rows, kRowsPerThread, 64, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i)
        out[i] = static_cast<std::int32_t>(i);
    });
    if (rows > 0) column.SetIntegerRange({0, static_cast<std::int64_t>(rows - 1)});
  });
  // stringu1 from unique1; stringu2 and string4 from the row number.
  for (std::size_t c = kStringu1; c < kColumnCount; ++c) {
    columns[c] = lazy(c, [source, c, rows](ColumnData& column, std::byte* data) {
      AdviseHugePages(data, column.byte_size());
      auto* out = reinterpret_cast<char*>(data);
      const std::uint32_t* u = c == kStringu1 ? source() : nullptr;
      ParallelRanges(rows, kRowsPerThread, 64, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          char* value = out + i * kWisconsinStringWidth;
          if (c == kStringu1) {
            WriteCode(value, u[i]);
          } else if (c == kStringu2) {
            WriteCode(value, static_cast<std::uint32_t>(i));
          } else {
            std::memcpy(value, kString4Values[i % 4].data(), kWisconsinStringWidth);
          }
        }
      });
    });
  }
  return columns;
}

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
  CLQ_CHECK(rows <= n, "a prefix longer than its table");
  const Schema schema = WisconsinSchema();
  std::vector<std::shared_ptr<const ColumnData>> data = LazyColumns(name, n, rows, options);
  std::vector<Column> columns;
  for (std::size_t c = 0; c < kColumnCount; ++c)
    columns.emplace_back(schema[c].name, std::move(data[c]), 0, rows);
  return std::make_shared<const Table>(std::move(name), std::move(columns));
}

std::string WisconsinCode(std::uint32_t value) {
  char buffer[kWisconsinStringWidth];
  WriteCode(buffer, value);
  return std::string(buffer, kCodeLength);
}

}  // namespace clq

// The Wisconsin relation: schema, golden values, every column's rule, the
// closed forms of DeWitt's queries, and thread-count independence.
#include "wisconsin/generator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "tests/wisconsin/naive_wisconsin.hpp"

namespace clq {
namespace {

TablePtr Generate(RowCount n, unsigned threads = 0) {
  GenerateOptions options;
  options.threads = threads;
  return GenerateWisconsinTable("tenktup1", n, options);
}

std::int32_t Int(const Table& t, const char* column, RowCount row) {
  return t.column(*t.FindColumn(column)).int32s()[row];
}

std::string Str(const Table& t, const char* column, RowCount row) {
  return std::string(t.column(*t.FindColumn(column)).StringAt(row));
}

// Checks one row against DeWitt's rules, from its unique1 and row number.
void ExpectRowFollowsRules(const Table& t, RowCount row, std::int32_t expected_unique1) {
  SCOPED_TRACE("row " + std::to_string(row));
  const std::int32_t u = expected_unique1;
  EXPECT_EQ(Int(t, "unique1", row), u);
  EXPECT_EQ(Int(t, "unique2", row), static_cast<std::int32_t>(row));
  EXPECT_EQ(Int(t, "two", row), u % 2);
  EXPECT_EQ(Int(t, "four", row), u % 4);
  EXPECT_EQ(Int(t, "ten", row), u % 10);
  EXPECT_EQ(Int(t, "twenty", row), u % 20);
  EXPECT_EQ(Int(t, "onePercent", row), u % 100);
  EXPECT_EQ(Int(t, "tenPercent", row), u % 10);
  EXPECT_EQ(Int(t, "twentyPercent", row), u % 5);
  EXPECT_EQ(Int(t, "fiftyPercent", row), u % 2);
  EXPECT_EQ(Int(t, "unique3", row), u);
  EXPECT_EQ(Int(t, "evenOnePercent", row), u % 100 * 2);
  EXPECT_EQ(Int(t, "oddOnePercent", row), u % 100 * 2 + 1);
  EXPECT_EQ(Str(t, "stringu1", row), testing::NaiveCode(static_cast<std::uint32_t>(u)));
  EXPECT_EQ(Str(t, "stringu2", row), testing::NaiveCode(static_cast<std::uint32_t>(row)));
  EXPECT_EQ(Str(t, "string4", row), testing::NaiveString4(row));
}

TEST(GeneratorTest, SchemaNamesAndTypesInOrder) {
  const Schema schema = WisconsinSchema();
  const std::vector<std::string> names = {
      "unique1",       "unique2",    "two",           "four",         "ten",     "twenty",
      "onePercent",    "tenPercent", "twentyPercent", "fiftyPercent", "unique3", "evenOnePercent",
      "oddOnePercent", "stringu1",   "stringu2",      "string4"};
  ASSERT_EQ(schema.size(), names.size());
  for (std::size_t c = 0; c < names.size(); ++c) {
    EXPECT_EQ(schema[c].name, names[c]);
    EXPECT_EQ(schema[c].type, c < 13 ? ColumnType::Int32() : ColumnType::Char(52)) << names[c];
  }
  const TablePtr empty = Generate(0);
  EXPECT_EQ(empty->rows(), 0u);
  EXPECT_EQ(empty->schema().size(), names.size());
}

TEST(GeneratorTest, GoldenValues) {
  const TablePtr t = Generate(10000);
  const std::int32_t expected[] = {8800, 1891, 3420, 9850, 7164};
  for (RowCount row = 0; row < 5; ++row)
    ExpectRowFollowsRules(*t, row, expected[row]);
  const TablePtr small = Generate(100);
  const std::int32_t expected_small[] = {69, 9, 86, 56, 65};
  for (RowCount row = 0; row < 5; ++row)
    ExpectRowFollowsRules(*small, row, expected_small[row]);
  EXPECT_EQ(Str(*small, "stringu1", 0), "AAAAACR" + std::string(45, 'x'));
  EXPECT_EQ(Str(*small, "stringu1", 0).size(), 52u);
  EXPECT_EQ(Str(*small, "string4", 3), "VVVV" + std::string(48, 'x'));
  EXPECT_EQ(WisconsinCode(69), "AAAAACR");
  EXPECT_EQ(WisconsinCode(0), "AAAAAAA");
  EXPECT_EQ(WisconsinCode(25), "AAAAAAZ");
  EXPECT_EQ(WisconsinCode(26), "AAAAABA");
  EXPECT_EQ(WisconsinCode(2147483646), "GYTISYW");  // the largest unique1 still fits 7 letters
}

TEST(GeneratorTest, EveryRowFollowsTheRulesForSmallTables) {
  for (RowCount n : {RowCount{1}, RowCount{2}, RowCount{1000}, RowCount{1001}, RowCount{12345}}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::vector<std::int32_t> unique1 = testing::NaiveUnique1(n);
    for (unsigned threads : {1u, 3u}) {
      const TablePtr t = Generate(n, threads);
      ASSERT_EQ(t->rows(), n);
      for (RowCount row = 0; row < n; ++row)
        ExpectRowFollowsRules(*t, row, unique1[row]);
    }
  }
}

TEST(GeneratorTest, RandomRowsFollowTheRules) {
  for (RowCount n : {RowCount{100000}, RowCount{1000001}}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::vector<std::int32_t> unique1 = testing::NaiveUnique1(n);
    const TablePtr t = Generate(n);
    std::mt19937_64 random(n);
    std::uniform_int_distribution<RowCount> pick(0, n - 1);
    for (int i = 0; i < 500; ++i) {
      const RowCount row = i < 4 ? (i < 2 ? RowCount(i) : n - RowCount(i) + 1) : pick(random);
      ExpectRowFollowsRules(*t, row, unique1[row]);
    }
  }
}

bool SameData(const Table& a, const Table& b) {
  if (a.rows() != b.rows() || a.schema().size() != b.schema().size()) return false;
  for (std::size_t c = 0; c < a.columns().size(); ++c) {
    const Column& x = a.column(c);
    const Column& y = b.column(c);
    if (!(x.type() == y.type()) || std::memcmp(x.bytes(), y.bytes(), x.byte_size()) != 0)
      return false;
  }
  return true;
}

TEST(GeneratorTest, ThreadCountDoesNotChangeTheTable) {
  const TablePtr reference = Generate(300000, 1);
  for (unsigned threads : {2u, 5u, 0u})
    EXPECT_TRUE(SameData(*reference, *Generate(300000, threads)));
}

TEST(GeneratorTest, PrefixIsTheFirstRowsOfTheFullTable) {
  const TablePtr full = Generate(10000);
  const TablePtr prefix = GenerateWisconsinPrefix("bprime", 10000, 1000);
  EXPECT_EQ(prefix->name(), "bprime");
  EXPECT_TRUE(SameData(*full->Slice("x", 0, 1000), *prefix));
  EXPECT_EQ(GenerateWisconsinPrefix("none", 10000, 0)->rows(), 0u);
  EXPECT_THROW(GenerateWisconsinTable("huge", kMaxWisconsinRows + 1), InvalidInputError);
}

// N near 2^31 takes 416 GiB: the table is made column by column on first
// read, and a column past the budget is refused before anything is
// allocated or generated, naming its rows and their width.
TEST(GeneratorTest, AColumnBeyondTheHostMemoryBudgetIsRefusedFirst) {
  GenerateOptions options;
  options.host_memory = HeldHostMemory() + (1ull << 30);
  const std::uint64_t held = HeldHostMemory();
  const TablePtr huge = GenerateWisconsinTable("huge", kMaxWisconsinRows, options);
  EXPECT_EQ(huge->rows(), kMaxWisconsinRows);
  EXPECT_EQ(HeldHostMemory(), held) << "nothing is made before a read";
  try {
    (void)huge->column(0).bytes();
    FAIL() << "generated";
  } catch (const ResourceLimitError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("column unique1 of huge (2147483647 rows of 4 bytes) needs 8.00 GiB of "
                        "host memory"),
              std::string::npos)
        << error.what();
  }
  const TablePtr bprime =
      GenerateWisconsinPrefix("bprime", kMaxWisconsinRows, kMaxWisconsinRows / 10, options);
  EXPECT_THROW((void)bprime->column(13).bytes(), ResourceLimitError);
  EXPECT_EQ(HeldHostMemory(), held);
  EXPECT_EQ(WisconsinSchema().size(), 16u);
  EXPECT_EQ(RowWidth(WisconsinSchema()), 208u);
}

// The generator records each integer column's bounds as it writes; they
// must be exactly what a scan finds (too narrow a range would let the range
// analysis drop an overflow check or pick the 32-bit machine wrongly), for
// tables, prefixes and thread counts where blocks of several threads meet.
TEST(GeneratorTest, RecordedBoundsAreTheScannedOnes) {
  struct Case {
    RowCount n, rows;
    unsigned threads;
  };
  for (const Case c : {Case{1, 1, 1}, Case{3, 3, 1}, Case{100, 100, 0}, Case{10000, 1000, 0},
                       Case{10000, 7, 3}, Case{300000, 300000, 5}, Case{300000, 123457, 0}}) {
    SCOPED_TRACE("n " + std::to_string(c.n) + ", rows " + std::to_string(c.rows) + ", threads " +
                 std::to_string(c.threads));
    GenerateOptions options;
    options.threads = c.threads;
    const TablePtr t = GenerateWisconsinPrefix("t", c.n, c.rows, options);
    for (const Column& column : t->columns()) {
      if (!column.type().is_integer()) continue;
      const std::span<const std::int32_t> values = column.int32s();
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      const std::optional<IntRange> range = column.shared_data()->IntegerRange();
      ASSERT_TRUE(range.has_value()) << column.name();
      EXPECT_EQ(range->min, *lo) << column.name();
      EXPECT_EQ(range->max, *hi) << column.name();
    }
  }
}

// DeWitt's closed forms at N = 10,000, computed by plain loops.
TEST(GeneratorTest, ClosedFormsAtTenThousandRows) {
  const TablePtr t = Generate(10000);
  const auto unique2 = t->column(*t->FindColumn("unique2")).int32s();
  const auto unique3 = t->column(*t->FindColumn("unique3")).int32s();
  const auto one_percent = t->column(*t->FindColumn("onePercent")).int32s();
  const auto unique1 = t->column(*t->FindColumn("unique1")).int32s();
  auto count_between = [](std::span<const std::int32_t> values, int low, int high) {
    RowCount count = 0;
    for (std::int32_t v : values)
      count += v >= low && v <= high;
    return count;
  };
  EXPECT_EQ(count_between(unique2, 0, 99), 100u);    // 1% selection
  EXPECT_EQ(count_between(unique2, 0, 999), 1000u);  // 10% selection
  EXPECT_EQ(count_between(unique1, 792, 891), 100u);
  EXPECT_EQ(count_between(unique1, 792, 1791), 1000u);

  std::map<std::int32_t, std::int64_t> min, sum, count;
  for (RowCount row = 0; row < t->rows(); ++row) {
    const std::int32_t g = one_percent[row];
    min[g] = min.count(g) ? std::min<std::int64_t>(min[g], unique3[row]) : unique3[row];
    sum[g] += unique3[row];
    ++count[g];
  }
  ASSERT_EQ(min.size(), 100u);
  for (std::int32_t g = 0; g < 100; ++g) {
    EXPECT_EQ(min[g], g);
    EXPECT_EQ(sum[g], 495000 + 100 * g);
    EXPECT_EQ(count[g], 100);
  }
}

}  // namespace
}  // namespace clq

// The four standard relations in a catalog: laziness, sharing, sizes, and
// DeWitt's join closed forms at N = 10,000.
#include "wisconsin/dataset.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <unordered_map>

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

bool SameRows(const Table& a, const Table& b) {
  if (a.rows() != b.rows() || a.columns().size() != b.columns().size()) return false;
  for (std::size_t c = 0; c < a.columns().size(); ++c)
    if (std::memcmp(a.column(c).bytes(), b.column(c).bytes(), a.column(c).byte_size()) != 0)
      return false;
  return true;
}

std::span<const std::int32_t> Column32(const Table& t, const char* name) {
  return t.column(*t.FindColumn(name)).int32s();
}

TEST(DatasetTest, RegistersFourLazyTables) {
  Catalog catalog;
  std::vector<std::string> generated;
  GenerateOptions options;
  options.progress = [&](std::string_view table, RowCount done, RowCount total) {
    if (done == total) generated.emplace_back(table);
  };
  AddWisconsinTables(catalog, 10000, options);
  EXPECT_EQ(catalog.Names(),
            (std::vector<std::string>{"tenktup1", "tenktup2", "onektup", "bprime"}));
  for (const char* name : {"TENKTUP1", "tenktup2", "OneKTup", "bprime"}) {
    ASSERT_NE(catalog.FindSchema(name), nullptr) << name;
    EXPECT_EQ(catalog.FindSchema(name)->size(), 16u);
  }
  EXPECT_TRUE(generated.empty()) << "nothing is generated before first use";

  const TablePtr bprime = catalog.Get("bprime");
  const TablePtr tenktup2 = catalog.Get("tenktup2");
  const TablePtr tenktup1 = catalog.Get("tenktup1");
  EXPECT_TRUE(generated.empty()) << "a column is made when first read";
  (void)bprime->column(0).bytes();
  (void)tenktup2->column(0).bytes();
  (void)tenktup1->column(0).bytes();
  EXPECT_EQ(generated, std::vector<std::string>{"tenktup1"}) << "tenktup1 is generated once";
  const TablePtr onektup = catalog.Get("onektup");
  (void)onektup->column(0).bytes();
  EXPECT_EQ(generated, (std::vector<std::string>{"tenktup1", "onektup"}));

  EXPECT_EQ(tenktup1->name(), "tenktup1");
  EXPECT_EQ(tenktup2->name(), "tenktup2");
  EXPECT_EQ(onektup->name(), "onektup");
  EXPECT_EQ(bprime->name(), "bprime");
  EXPECT_EQ(tenktup1->rows(), 10000u);
  EXPECT_EQ(tenktup2->rows(), 10000u);
  EXPECT_EQ(onektup->rows(), 1000u);
  EXPECT_EQ(bprime->rows(), 1000u);
  EXPECT_NE(tenktup1->id(), tenktup2->id());

  // tenktup2 and bprime share tenktup1's data rather than copying it.
  EXPECT_TRUE(SameRows(*tenktup1, *tenktup2));
  for (std::size_t c = 0; c < 16; ++c) {
    EXPECT_EQ(tenktup2->column(c).shared_data(), tenktup1->column(c).shared_data());
    EXPECT_EQ(bprime->column(c).shared_data(), tenktup1->column(c).shared_data());
  }
  EXPECT_TRUE(SameRows(*bprime, *tenktup2->Slice("first", 0, 1000)));
  for (std::int32_t u2 : Column32(*bprime, "unique2"))
    EXPECT_LT(u2, 1000);

  // onektup is a relation of its own, generated with N/10 as its N.
  EXPECT_TRUE(SameRows(*onektup, *GenerateWisconsinTable("x", 1000)));
}

TEST(DatasetTest, JoinClosedFormsAtTenThousandRows) {
  Catalog catalog;
  AddWisconsinTables(catalog, 10000);
  const TablePtr a = catalog.Get("tenktup1");
  const TablePtr b = catalog.Get("tenktup2");
  const TablePtr bprime = catalog.Get("bprime");
  const TablePtr c = catalog.Get("onektup");
  // Rows of `probe` per unique2 value of `build`, a plain hash join.
  auto join_count = [](std::span<const std::int32_t> build, std::span<const std::int32_t> probe,
                       auto keep_build) {
    std::unordered_map<std::int32_t, RowCount> counts;
    for (std::int32_t key : build)
      if (keep_build(key)) ++counts[key];
    RowCount matches = 0;
    for (std::int32_t key : probe)
      if (auto it = counts.find(key); it != counts.end()) matches += it->second;
    return matches;
  };
  auto all = [](std::int32_t) { return true; };
  auto below_1000 = [](std::int32_t key) { return key < 1000; };
  // joinAselB: A.unique2 = B.unique2 AND B.unique2 < 1000.
  EXPECT_EQ(join_count(Column32(*b, "unique2"), Column32(*a, "unique2"), below_1000), 1000u);
  // joinABprime: A.unique2 = Bprime.unique2.
  EXPECT_EQ(join_count(Column32(*bprime, "unique2"), Column32(*a, "unique2"), all), 1000u);
  // joinCselAselB: C.unique2 = A.unique2 AND A.unique2 = B.unique2 AND
  // A.unique2 < 1000 AND B.unique2 < 1000.
  std::unordered_map<std::int32_t, RowCount> b_rows, c_rows;
  for (std::int32_t key : Column32(*b, "unique2"))
    if (key < 1000) ++b_rows[key];
  for (std::int32_t key : Column32(*c, "unique2"))
    ++c_rows[key];
  RowCount three_way = 0;
  for (std::int32_t key : Column32(*a, "unique2"))
    if (key < 1000 && b_rows.count(key) && c_rows.count(key))
      three_way += b_rows[key] * c_rows[key];
  EXPECT_EQ(three_way, 1000u);
}

TEST(DatasetTest, RejectsTooManyRowsAtRegistration) {
  Catalog catalog;
  EXPECT_THROW(AddWisconsinTables(catalog, kMaxWisconsinRows + 1), InvalidInputError);
}

// The relations are registered at any scale, and a query that reads none
// of their columns (COUNT(*)) needs none; each column is refused at its
// first read when it does not fit the budget (onektup's unique1, a tenth
// of the rows, is 819 MiB).
TEST(DatasetTest, ColumnsBeyondTheHostMemoryBudgetAreRefusedAtFirstRead) {
  Catalog catalog;
  GenerateOptions options;
  options.host_memory = HeldHostMemory() + (256ull << 20);
  AddWisconsinTables(catalog, kMaxWisconsinRows, options);
  const std::uint64_t held = HeldHostMemory();
  for (const char* name : {kTenktup1, kTenktup2, kOnektup, kBprime}) {
    const TablePtr table = catalog.Get(name);
    EXPECT_THROW((void)table->column(0).bytes(), ResourceLimitError) << name;
    EXPECT_THROW((void)table->column(14).bytes(), ResourceLimitError) << name;
  }
  EXPECT_EQ(HeldHostMemory(), held);
}

TEST(DatasetTest, EmptyScale) {
  Catalog catalog;
  AddWisconsinTables(catalog, 5);
  EXPECT_EQ(catalog.Get("tenktup1")->rows(), 5u);
  EXPECT_EQ(catalog.Get("onektup")->rows(), 0u);
  EXPECT_EQ(catalog.Get("bprime")->rows(), 0u);
}

}  // namespace
}  // namespace clq

// A query's result as a derived table (ResultTable): values, types and NULLs
// as the result had them, a NULL's bytes zero, and the result's memory read
// in place where it can be.
#include <gtest/gtest.h>

#include <cstring>

#include "operators/subquery_materialize.hpp"

namespace clq {
namespace {

constexpr std::int64_t kGarbage = 0x5a5a5a5a5a5a5a5a;

QueryResult MixedResult() {
  QueryResult result;
  result.rows = 4;
  ResultColumn integers;
  integers.type = sql::ValueType::kInteger;
  integers.integers.assign({7, kGarbage, -3, std::int64_t{1} << 40});
  integers.nulls = {0, 1, 0, 0};
  ResultColumn reals;
  reals.type = sql::ValueType::kReal;
  reals.reals.assign({1.5, -0.25, 2e300, 0.0});
  ResultColumn text;
  text.type = sql::ValueType::kText;
  text.text_width = 5;
  const char bytes[] = "abc\0\0XXXXXhello\0\0\0\0\0";
  text.text.assign(bytes, bytes + 20);
  text.nulls = {0, 1, 0, 0};
  ResultColumn dates;
  dates.type = sql::ValueType::kInteger;
  dates.logical = LogicalType::Date();
  dates.integers.assign({0, -719162, 2932896, 10957});
  ResultColumn none;
  none.type = sql::ValueType::kNull;
  ResultColumn no_nulls;  // a NULL map that marks none
  no_nulls.type = sql::ValueType::kInteger;
  no_nulls.integers.assign({1, 2, 3, 4});
  no_nulls.nulls = {0, 0, 0, 0};
  for (ResultColumn* c : {&integers, &reals, &text, &dates, &none, &no_nulls})
    result.columns.push_back(std::move(*c));
  return result;
}

TEST(ResultTableTest, KeepsValuesTypesAndNulls) {
  QueryResult result = MixedResult();
  const std::byte* integer_memory =
      reinterpret_cast<const std::byte*>(result.columns[0].integers.data());
  const std::byte* real_memory = reinterpret_cast<const std::byte*>(result.columns[1].reals.data());
  const TablePtr table =
      ResultTable(std::move(result), "d", {"i", "r", "t", "day", "n", "k"}, kUnlimitedHostMemory);
  ASSERT_EQ(table->rows(), 4u);
  ASSERT_EQ(table->columns().size(), 6u);

  const Column& i = table->column(0);
  EXPECT_EQ(i.type().type, DataType::kInt64);
  EXPECT_EQ(i.bytes(), integer_memory);  // read in place
  ASSERT_TRUE(i.nullable());
  EXPECT_FALSE(i.IsNull(0));
  EXPECT_TRUE(i.IsNull(1));
  EXPECT_EQ(i.int64s()[0], 7);
  EXPECT_EQ(i.int64s()[1], 0);  // a NULL's bytes are zero
  EXPECT_EQ(i.int64s()[2], -3);
  EXPECT_EQ(i.int64s()[3], std::int64_t{1} << 40);

  const Column& r = table->column(1);
  EXPECT_EQ(r.type().type, DataType::kDouble);
  EXPECT_EQ(r.bytes(), real_memory);
  EXPECT_FALSE(r.nullable());
  EXPECT_EQ(r.doubles()[2], 2e300);

  const Column& t = table->column(2);
  EXPECT_EQ(t.type().type, DataType::kChar);
  EXPECT_EQ(t.type().width, 5u);
  EXPECT_EQ(t.StringAt(0), "abc");
  EXPECT_TRUE(t.IsNull(1));
  EXPECT_EQ(t.StringAt(1), "");  // zeroed, not "XXXXX"
  EXPECT_EQ(t.StringAt(2), "hello");
  EXPECT_EQ(t.StringAt(3), "");
  EXPECT_FALSE(t.IsNull(3));

  const Column& day = table->column(3);
  EXPECT_EQ(day.type().type, DataType::kInt32);
  EXPECT_TRUE(day.type().logical.is_date());
  EXPECT_EQ(day.int32s()[1], -719162);
  EXPECT_EQ(day.int32s()[2], 2932896);

  const Column& n = table->column(4);
  ASSERT_TRUE(n.nullable());
  for (RowCount row = 0; row < 4; ++row) {
    EXPECT_TRUE(n.IsNull(row));
    EXPECT_EQ(n.IntegerAt(row), 0);
  }

  const Column& k = table->column(5);
  EXPECT_FALSE(k.nullable());  // a map that marks no NULL is dropped
  EXPECT_EQ(k.int64s()[3], 4);
}

TEST(ResultTableTest, EmptyResult) {
  QueryResult result;
  ResultColumn integers;
  integers.type = sql::ValueType::kInteger;
  ResultColumn text;
  text.type = sql::ValueType::kText;
  result.columns.push_back(std::move(integers));
  result.columns.push_back(std::move(text));
  const TablePtr table = ResultTable(std::move(result), "e", {"a", "b"}, kUnlimitedHostMemory);
  EXPECT_EQ(table->rows(), 0u);
  EXPECT_EQ(table->column(0).type().type, DataType::kInt64);
  EXPECT_EQ(table->column(1).type().width, 1u);
}

TEST(ResultTableTest, CopiedColumnsCountAgainstTheHostMemoryBudget) {
  QueryResult result;
  result.rows = 1000;
  ResultColumn dates;  // DATE is narrowed into a fresh INT32 column
  dates.type = sql::ValueType::kInteger;
  dates.logical = LogicalType::Date();
  dates.integers.assign(1000, 5);
  result.columns.push_back(std::move(dates));
  EXPECT_THROW(ResultTable(std::move(result), "d", {"day"}, 100), ResourceLimitError);
}

}  // namespace
}  // namespace clq

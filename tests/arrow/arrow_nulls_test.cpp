// NULLs through the Arrow C Data layer: validity bitmaps (at offsets, with an
// unknown null count, none at all) become NULL maps with zero values at
// NULL rows, dictionaries with NULL indices and NULL values, strings, the
// null type, a struct's NULL rows; NaN stays refused only where it is a
// value; and exported results carry their NULLs as validity bitmaps.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "arrow/arrow_export.hpp"
#include "arrow/arrow_import.hpp"
#include "common/errors.hpp"
#include "tests/arrow/test_arrays.hpp"

namespace clq {
namespace {

using namespace testing::arrow;  // NOLINT: the test's vocabulary

std::vector<RowCount> NullRows(const Column& column) {
  std::vector<RowCount> rows;
  for (RowCount r = 0; r < column.rows(); ++r)
    if (column.IsNull(r)) rows.push_back(r);
  return rows;
}

void ExpectRefused(TestBatch& batch, const std::string& message_part) {
  try {
    Import(batch);
    ADD_FAILURE() << "accepted; expected an error with: " << message_part;
  } catch (const InvalidInputError& e) {
    EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
  }
}

TEST(ArrowNullsTest, ValidityBitmapsBecomeNullMaps) {
  TestBatch batch;
  // Values under NULLs are garbage, as a producer may leave them.
  batch.columns = {Fixed<std::int32_t>("i", "a", {1, 99, 3}),
                   Fixed<std::int64_t>("l", "b", {-1, 2, 77}),
                   Fixed<double>("g", "c", {0.5, std::numeric_limits<double>::quiet_NaN(), 2.5}),
                   Fixed<std::uint64_t>("L", "u", {18446744073709551615ull, 1, 2}),
                   Fixed<std::uint8_t>("b", "t", {0b111})};
  batch.columns[4]->length = 3;
  SetNulls(*batch.columns[0], {false, true, false});
  SetNulls(*batch.columns[1], {false, false, true});
  SetNulls(*batch.columns[2], {false, true, false});  // NaN under a NULL is no value
  SetNulls(*batch.columns[3], {true, false, false});  // nor is a uint64 past INT64
  SetNulls(*batch.columns[4], {false, true, true});
  const TablePtr t = Import(batch);
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(NullRows(t->column(0)), (std::vector<RowCount>{1}));
  EXPECT_EQ(t->column(0).int32s()[1], 0);  // zeroed, so copied, not read in place
  EXPECT_NE(static_cast<const void*>(t->column(0).bytes()), batch.columns[0]->buffers[1]);
  EXPECT_EQ(t->column(0).IntegerAt(2), 3);
  EXPECT_EQ(NullRows(t->column(1)), (std::vector<RowCount>{2}));
  EXPECT_EQ(t->column(1).int64s()[2], 0);
  EXPECT_EQ(NullRows(t->column(2)), (std::vector<RowCount>{1}));
  EXPECT_EQ(t->column(2).doubles()[1], 0.0);
  EXPECT_EQ(t->column(2).RealAt(2), 2.5);
  EXPECT_EQ(NullRows(t->column(3)), (std::vector<RowCount>{0}));
  EXPECT_EQ(t->column(3).int64s()[0], 0);
  EXPECT_EQ(NullRows(t->column(4)), (std::vector<RowCount>{1, 2}));
  EXPECT_EQ(t->column(4).IntegerAt(0), 1);
  EXPECT_EQ(t->column(4).int32s()[1], 0);

  // NaN where the row is not NULL is still refused.
  TestBatch nan;
  nan.columns = {Fixed<double>("g", "c", {std::numeric_limits<double>::quiet_NaN(), 1.0})};
  SetNulls(*nan.columns[0], {false, true});
  ExpectRefused(nan, "column 'c', row 1: NaN");
}

// The bitmap counts from the array's offset (and the batch's), bits LSB
// first; a null count of -1 means unknown, and the bits tell.
TEST(ArrowNullsTest, BitmapsAtOffsetsAndUnknownCounts) {
  std::vector<std::int32_t> values(20);
  std::vector<bool> null(20);
  for (std::size_t i = 0; i < 20; ++i) {
    values[i] = static_cast<std::int32_t>(i);
    null[i] = i % 3 == 0 || i == 17;
  }
  TestBatch batch;
  batch.columns = {Fixed<std::int32_t>("i", "a", values, 5),
                   Fixed<std::int32_t>("i", "b", values, 5)};
  SetNulls(*batch.columns[0], null);
  SetNulls(*batch.columns[1], null);
  batch.columns[1]->null_count = -1;
  batch.offset = 2;  // rows are elements 7 .. 19 of each child
  const TablePtr t = Import(batch);
  ASSERT_EQ(t->rows(), 13u);
  std::vector<RowCount> expected;
  for (RowCount r = 0; r < 13; ++r)
    if (null[r + 7]) expected.push_back(r);
  EXPECT_EQ(expected, (std::vector<RowCount>{2, 5, 8, 10, 11}));
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(NullRows(t->column(c)), expected) << c;
    EXPECT_EQ(t->column(c).IntegerAt(0), 7);
    EXPECT_EQ(t->column(c).IntegerAt(12), 19);
    EXPECT_EQ(t->column(c).IntegerAt(2), 0);
  }

  // A bitmap with a null count of 0 is not read; no bitmap means no NULL;
  // an unknown count over a bitmap of all valid bits gives no NULL map.
  TestBatch none;
  none.columns = {Fixed<std::int32_t>("i", "a", {1, 2}), Fixed<std::int32_t>("i", "b", {1, 2}),
                  Fixed<std::int32_t>("i", "c", {1, 2})};
  SetNulls(*none.columns[0], {true, true});
  none.columns[0]->null_count = 0;
  none.columns[1]->null_count = -1;
  SetNulls(*none.columns[2], {false, false});
  none.columns[2]->null_count = -1;
  const TablePtr n = Import(none);
  for (std::size_t c = 0; c < 3; ++c)
    EXPECT_FALSE(n->column(c).nullable()) << c;
  // The in-place column stays in place.
  EXPECT_EQ(static_cast<const void*>(n->column(2).bytes()), none.columns[2]->buffers[1]);

  // A positive count without a bitmap is malformed.
  TestBatch malformed;
  malformed.columns = {Fixed<std::int32_t>("i", "a", {1, 2})};
  malformed.columns[0]->null_count = 1;
  ExpectRefused(malformed, "column 'a': malformed Arrow array (a null count without a validity");
}

TEST(ArrowNullsTest, StringsAndDictionaries) {
  TestBatch batch;
  auto s = Strings("s", {"abc", "", "", "toolong-but-null"});
  SetNulls(*s, {false, true, false, true});
  // Index 1 refers to a NULL value; a NULL index holds garbage (out of
  // range) that must not be read.
  auto dict = Strings("", {"red", "", "blue"});
  SetNulls(*dict, {false, true, false});
  auto indices = Fixed<std::int32_t>("i", "colour", {2, 1, 1000, 0});
  indices->dictionary = dict;
  SetNulls(*indices, {false, false, true, false});
  auto numbers = Fixed<std::int16_t>("s", "n", {1, 0, 2, 1});
  numbers->dictionary = Fixed<std::int64_t>("l", "", {5, 6, 7});
  SetNulls(*numbers->dictionary, {false, true, false});
  numbers->dictionary->null_count = -1;
  batch.columns = {s, indices, numbers};
  const TablePtr t = Import(batch);
  ASSERT_EQ(t->rows(), 4u);
  EXPECT_EQ(t->column(0).type(), ColumnType::Char(3));  // NULL strings set no width
  EXPECT_EQ(NullRows(t->column(0)), (std::vector<RowCount>{1, 3}));
  EXPECT_EQ(t->column(0).StringAt(2), "");  // the empty string is a value
  EXPECT_EQ(t->column(1).type(), ColumnType::Char(4));
  EXPECT_EQ(NullRows(t->column(1)), (std::vector<RowCount>{1, 2}));
  EXPECT_EQ(t->column(1).StringAt(0), "blue");
  EXPECT_EQ(t->column(1).StringAt(3), "red");
  EXPECT_EQ(t->column(2).type(), ColumnType::Int64());
  EXPECT_EQ(NullRows(t->column(2)), (std::vector<RowCount>{0, 3}));
  EXPECT_EQ(t->column(2).IntegerAt(1), 5);
  EXPECT_EQ(t->column(2).IntegerAt(2), 7);

  // A NULL index is not checked; a valid one still is.
  TestBatch out_of_range;
  auto bad = Fixed<std::int32_t>("i", "d", {0, 5});
  bad->dictionary = Strings("", {"x"});
  SetNulls(*bad, {true, false});
  out_of_range.columns = {bad};
  ExpectRefused(out_of_range, "column 'd': malformed Arrow array (dictionary index out of range)");
}

// Arrow's null type becomes INT32 with every row NULL; a NULL row of the
// struct is NULL in every column.
TEST(ArrowNullsTest, NullTypeAndStructNulls) {
  TestBatch batch;
  auto n = std::make_shared<TestColumn>();
  n->format = "n";
  n->name = "nothing";
  n->length = 3;
  n->null_count = 3;
  batch.columns = {n, Fixed<std::int32_t>("i", "a", {1, 2, 3}), Strings("s", {"x", "yy", "z"})};
  std::vector<std::uint8_t> struct_validity = {0b101};
  batch.buffers = {struct_validity.data()};
  batch.Wire();
  batch.array.null_count = 1;
  const TablePtr t = ImportArrowArray("t", &batch.schema, &batch.array);
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(t->column(0).type(), ColumnType::Int32());
  EXPECT_EQ(NullRows(t->column(0)), (std::vector<RowCount>{0, 1, 2}));
  EXPECT_EQ(NullRows(t->column(1)), (std::vector<RowCount>{1}));
  EXPECT_EQ(t->column(1).int32s()[1], 0);
  EXPECT_EQ(NullRows(t->column(2)), (std::vector<RowCount>{1}));
  EXPECT_EQ(t->column(2).type(), ColumnType::Char(1));  // "yy" is under a NULL
}

// Results with NULLs export validity bitmaps (bit i of byte i/8, LSB first)
// and their null counts, and read back through the importer.
TEST(ArrowNullsTest, ExportedNullsReadBack) {
  QueryResult r;
  r.rows = 20;
  ResultColumn i;
  i.name = "i";
  i.type = sql::ValueType::kInteger;
  ResultColumn s;
  s.name = "s";
  s.type = sql::ValueType::kText;
  s.text_width = 2;
  ResultColumn d;
  d.name = "d";
  d.type = sql::ValueType::kReal;
  ResultColumn n;
  n.name = "n";
  n.type = sql::ValueType::kNull;
  for (RowCount row = 0; row < 20; ++row) {
    const bool null = row % 4 == 1 || row == 18;
    i.integers.push_back(null ? 0 : static_cast<std::int64_t>(row));
    i.nulls.push_back(null ? 1 : 0);
    s.text.push_back(null ? '\0' : static_cast<char>('a' + row));
    s.text.push_back('\0');
    s.nulls.push_back(row == 0 ? 1 : 0);
    d.reals.push_back(0.5 * static_cast<double>(row));
  }
  d.nulls.assign(20, 0);  // a map without a NULL exports no bitmap
  r.columns = {i, s, d, n};
  ArrowArrayStream stream{};
  ExportArrowStream(std::make_shared<const QueryResult>(r), &stream);
  ArrowArray batch{};
  ASSERT_EQ(stream.get_next(&stream, &batch), 0);
  const ArrowArray& exported = *batch.children[0];
  EXPECT_EQ(exported.null_count, 6);
  const auto* validity = static_cast<const std::uint8_t*>(exported.buffers[0]);
  EXPECT_EQ(validity[0], 0b11011101);
  EXPECT_EQ(validity[1], 0b11011101);
  EXPECT_EQ(validity[2] & 0x0F, 0b1001);
  EXPECT_EQ(batch.children[1]->null_count, 1);
  EXPECT_EQ(batch.children[2]->null_count, 0);
  EXPECT_EQ(batch.children[2]->buffers[0], nullptr);
  batch.release(&batch);
  stream.release(&stream);

  ArrowArrayStream again{};
  ExportArrowStream(std::make_shared<const QueryResult>(r), &again);
  const TablePtr t = ImportArrowStream("back", &again);
  ASSERT_EQ(t->rows(), 20u);
  EXPECT_EQ(NullRows(t->column(0)), (std::vector<RowCount>{1, 5, 9, 13, 17, 18}));
  EXPECT_EQ(t->column(0).IntegerAt(19), 19);
  EXPECT_EQ(NullRows(t->column(1)), (std::vector<RowCount>{0}));
  EXPECT_EQ(t->column(1).StringAt(2), "c");
  EXPECT_FALSE(t->column(2).nullable());
  EXPECT_EQ(NullRows(t->column(3)).size(), 20u);
}

}  // namespace
}  // namespace clq

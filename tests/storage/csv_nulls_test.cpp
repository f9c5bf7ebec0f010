// NULL in CSV: an empty field reads as NULL (an unquoted one in a CHAR
// column, "" being the empty string), with and without a schema, and the
// writer writes NULL as an empty field, so that tables with NULLs round trip.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "storage/csv.hpp"

namespace clq {
namespace {

TablePtr Import(std::string_view text, std::optional<Schema> schema = std::nullopt) {
  return ImportCsvText(text, "data.csv", "t", std::move(schema));
}

// The rows of a column that are NULL.
std::vector<RowCount> NullRows(const Column& column) {
  std::vector<RowCount> rows;
  for (RowCount r = 0; r < column.rows(); ++r)
    if (column.IsNull(r)) rows.push_back(r);
  return rows;
}

void ExpectSameTable(const Table& a, const Table& b) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.columns().size(), b.columns().size());
  for (std::size_t c = 0; c < a.columns().size(); ++c) {
    const Column& x = a.column(c);
    const Column& y = b.column(c);
    EXPECT_EQ(x.type(), y.type()) << x.name();
    EXPECT_EQ(std::memcmp(x.bytes(), y.bytes(), x.byte_size()), 0) << x.name();
    EXPECT_EQ(NullRows(x), NullRows(y)) << x.name();
  }
}

TEST(CsvNullsTest, InferenceTakesEmptyFieldsForNulls) {
  const TablePtr t = Import(
      "i,r,s,none,q\n"
      "1,,a,,\"\"\n"
      " ,2.5,,,\"\"\n"
      "3,1e3,\"\",  ,\"\"\n");
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(t->column(0).type(), ColumnType::Int32());
  EXPECT_EQ(NullRows(t->column(0)), (std::vector<RowCount>{1}));  // spaces only: NULL
  EXPECT_EQ(t->column(0).int32s()[1], 0);
  EXPECT_EQ(t->column(1).type(), ColumnType::Double());
  EXPECT_EQ(NullRows(t->column(1)), (std::vector<RowCount>{0}));
  // CHAR: an unquoted empty field is NULL, a quoted one the empty string.
  EXPECT_EQ(t->column(2).type(), ColumnType::Char(1));
  EXPECT_EQ(NullRows(t->column(2)), (std::vector<RowCount>{1}));
  EXPECT_EQ(t->column(2).StringAt(2), "");
  // Nothing but NULLs: INT32, every row NULL.
  EXPECT_EQ(t->column(3).type(), ColumnType::Int32());
  EXPECT_EQ(NullRows(t->column(3)), (std::vector<RowCount>{0, 1, 2}));
  // Quoted empty fields are strings, not NULLs.
  EXPECT_EQ(t->column(4).type(), ColumnType::Char(1));
  EXPECT_FALSE(t->column(4).nullable());
  // Columns without an empty field are not nullable, nor are those of a
  // file without rows.
  EXPECT_FALSE(Import("a,b\n1,x\n")->column(0).nullable());
  EXPECT_FALSE(Import("a,b\n")->column(0).nullable());
  EXPECT_EQ(Import("a,b\n")->column(0).type(), ColumnType::Int32());
}

TEST(CsvNullsTest, ASchemaTakesEmptyFieldsForNullsInEveryType) {
  const Schema schema = ParseSchema("i INT, b BIGINT, d DOUBLE, c CHAR(3), t TEXT, full INT");
  const TablePtr t = Import(
      "i,b,d,c,t,full\n"
      ",\"\",  ,,\"\",1\n"
      "1,2,3.5,abc,xy,2\n"
      "\" \",,,\"\",,3\n",
      schema);
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(NullRows(t->column(0)), (std::vector<RowCount>{0, 2}));  // quoted or not
  EXPECT_EQ(NullRows(t->column(1)), (std::vector<RowCount>{0, 2}));
  EXPECT_EQ(NullRows(t->column(2)), (std::vector<RowCount>{0, 2}));
  EXPECT_EQ(NullRows(t->column(3)), (std::vector<RowCount>{0}));
  EXPECT_EQ(NullRows(t->column(4)), (std::vector<RowCount>{2}));
  EXPECT_EQ(t->column(4).type(), ColumnType::Char(2));
  EXPECT_FALSE(t->column(5).nullable());
  EXPECT_EQ(t->column(1).int64s()[1], 2);
  EXPECT_EQ(t->column(3).StringAt(2), "");
  // A value that is not blank is still checked.
  try {
    Import("i\n x \n", ParseSchema("i INT"));
    FAIL() << "no error";
  } catch (const InvalidInputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2, column i: ' x ' is not an INT32"),
              std::string::npos)
        << e.what();
  }
}

// In a file of one column an empty line after the header is a row holding
// NULL, which is how the writer writes one; elsewhere empty lines are
// skipped.
TEST(CsvNullsTest, EmptyLinesOfAOneColumnFile) {
  const TablePtr one = Import("\n\nn\n1\n\n3\r\n\r\n\r\"\"\n");
  ASSERT_EQ(one->rows(), 6u);
  EXPECT_EQ(one->column(0).type(), ColumnType::Char(1));
  EXPECT_EQ(NullRows(one->column(0)), (std::vector<RowCount>{1, 3, 4}));
  EXPECT_EQ(one->column(0).StringAt(5), "");
  const TablePtr numbers = Import("n\n1\n\n3\n", ParseSchema("n BIGINT"));
  ASSERT_EQ(numbers->rows(), 3u);
  EXPECT_EQ(NullRows(numbers->column(0)), (std::vector<RowCount>{1}));
  const TablePtr two = Import("a,b\n\n1,2\n\n\n3,4\n\n");
  EXPECT_EQ(two->rows(), 2u);
  EXPECT_FALSE(two->column(0).nullable());
}

TEST(CsvNullsTest, NullsRoundTrip) {
  TableBuilder builder("t",
                       {{"i", ColumnType::Int32(), true},
                        {"b", ColumnType::Int64(), true},
                        {"d", ColumnType::Double(), true},
                        {"s", ColumnType::Char(4), true}},
                       4);
  for (RowCount r = 0; r < 4; ++r) {
    builder.column_values<std::int32_t>(0)[r] = static_cast<std::int32_t>(r);
    builder.column_values<std::int64_t>(1)[r] = -static_cast<std::int64_t>(r);
    builder.column_values<double>(2)[r] = 0.25 * static_cast<double>(r);
    builder.SetString(3, r, r == 1 ? "" : "s" + std::to_string(r));
  }
  builder.SetNull(0, 0);
  builder.SetNull(1, 3);
  builder.SetNull(2, 1);
  builder.SetNull(3, 2);
  const TablePtr table = builder.Finish();
  const std::string text = FormatCsv(*table);
  EXPECT_EQ(text, "i,b,d,s\r\n,0,0,s0\r\n1,-1,,\"\"\r\n2,-2,0.5,\r\n3,,0.75,s3\r\n");
  ExpectSameTable(*table, *Import(text, table->schema()));

  // One column, NULL first, in the middle and last.
  TableBuilder one("t", {{"n", ColumnType::Int32(), true}}, 4);
  one.column_values<std::int32_t>(0)[1] = 7;
  one.column_values<std::int32_t>(0)[2] = 8;
  one.SetNull(0, 0);
  one.SetNull(0, 3);
  const TablePtr column = one.Finish();
  EXPECT_EQ(FormatCsv(*column), "n\r\n\r\n7\r\n8\r\n\r\n");
  ExpectSameTable(*column, *Import(FormatCsv(*column), column->schema()));
  ExpectSameTable(*column, *Import(FormatCsv(*column)));
}

}  // namespace
}  // namespace clq

// DATE and DECIMAL(p, s) in storage: the calendar and decimal conversions
// against independent ones (a day-by-day walk, long division by hand), the
// schema names, CSV import and export, and table files (version 3) that
// keep the logical types.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "common/calendar.hpp"
#include "common/decimal.hpp"
#include "common/errors.hpp"
#include "storage/csv.hpp"
#include "storage/table_file.hpp"

namespace clq {
namespace {

TEST(CalendarTest, EveryDayFromYear1600To2400RoundTrips) {
  // Walks the calendar a day at a time (leap years by the Gregorian rule),
  // an independent count to check DaysFromCivil, CivilFromDays and the text.
  const int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  std::int64_t days = DaysFromCivil({1600, 1, 1});
  for (std::int64_t year = 1600; year < 2400; ++year) {
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    for (int month = 1; month <= 12; ++month) {
      const int length = month == 2 && leap ? 29 : month_days[month - 1];
      for (int day = 1; day <= length; ++day, ++days) {
        ASSERT_EQ(DaysFromCivil({year, month, day}), days) << year << "-" << month << "-" << day;
        const CivilDate back = CivilFromDays(days);
        ASSERT_EQ(back.year, year);
        ASSERT_EQ(back.month, month);
        ASSERT_EQ(back.day, day);
      }
    }
  }
  EXPECT_EQ(DaysFromCivil({1970, 1, 1}), 0);
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(ParseDate("2000-02-29"), DaysFromCivil({2000, 2, 29}));
  EXPECT_EQ(ParseDate("1998-12-01"), 10561);
  EXPECT_EQ(ParseDate("1998-1-5"), DaysFromCivil({1998, 1, 5}));
}

TEST(CalendarTest, InvalidDatesAreRefused) {
  for (const char* text : {"1900-02-29", "1999-13-01", "1999-00-10", "1999-04-31", "1999-04", "",
                           "1999-04-01x", "99999999999-01-01", "1999/04/01", " 1999-04-01"})
    EXPECT_FALSE(ParseDate(text).has_value()) << text;
}

TEST(CalendarTest, MonthsClampToTheLastDay) {
  EXPECT_EQ(FormatDate(AddMonths(*ParseDate("2000-01-31"), 1)), "2000-02-29");
  EXPECT_EQ(FormatDate(AddMonths(*ParseDate("1999-01-31"), 1)), "1999-02-28");
  EXPECT_EQ(FormatDate(AddMonths(*ParseDate("1995-03-15"), 3)), "1995-06-15");
  EXPECT_EQ(FormatDate(AddMonths(*ParseDate("1995-03-15"), -15)), "1993-12-15");
  EXPECT_EQ(FormatDate(AddMonths(*ParseDate("1994-01-01"), 12)), "1995-01-01");
}

TEST(DecimalTest, ParsesRoundsAndFormats) {
  EXPECT_EQ(ParseDecimal("24710.35", 15, 2), 2471035);
  EXPECT_EQ(ParseDecimal("-0.5", 15, 2), -50);
  EXPECT_EQ(ParseDecimal("+7", 15, 2), 700);
  EXPECT_EQ(ParseDecimal(".25", 15, 2), 25);
  EXPECT_EQ(ParseDecimal("1.005", 15, 2), 101);  // half away from zero
  EXPECT_EQ(ParseDecimal("-1.005", 15, 2), -101);
  EXPECT_EQ(ParseDecimal("1.0049", 15, 2), 100);
  EXPECT_EQ(ParseDecimal("999.994", 5, 2), 99999);
  EXPECT_FALSE(ParseDecimal("999.995", 5, 2));  // rounds past the precision
  EXPECT_FALSE(ParseDecimal("1000", 5, 2));
  EXPECT_EQ(ParseDecimal("000123.4", 5, 2), 12340);
  for (const char* bad : {"", ".", "-", "1e5", "1.2.3", "12a", " 1"})
    EXPECT_FALSE(ParseDecimal(bad, 15, 2)) << bad;
  EXPECT_EQ(FormatDecimal(2471035, 2), "24710.35");
  EXPECT_EQ(FormatDecimal(-5, 2), "-0.05");
  EXPECT_EQ(FormatDecimal(0, 4), "0.0000");
  EXPECT_EQ(FormatDecimal(42, 0), "42");
  EXPECT_EQ(FormatDecimal(INT64_MIN, 3), "-9223372036854775.808");
  EXPECT_EQ(Rescale(125, 2, 1), 13);
  EXPECT_EQ(Rescale(-125, 2, 1), -13);
  EXPECT_EQ(Rescale(124, 2, 0), 1);
  EXPECT_FALSE(Rescale(INT64_MAX / 10, 0, 2));
  const auto literal = ReadDecimalLiteral("0.06");
  ASSERT_TRUE(literal);
  EXPECT_EQ(literal->scaled, 6);
  EXPECT_EQ(literal->scale, 2);
  EXPECT_FALSE(ReadDecimalLiteral("1e5"));
  EXPECT_FALSE(ReadDecimalLiteral("12345678901234567890.5"));
}

TEST(DateDecimalStorageTest, SchemaNamesTheTypes) {
  const Schema schema = ParseSchema("d DATE, p DECIMAL(15,2), n NUMERIC(4), v VARCHAR(10)");
  EXPECT_EQ(schema[0].type, ColumnType::Date());
  EXPECT_EQ(schema[1].type, ColumnType::Decimal(15, 2));
  EXPECT_EQ(schema[2].type, ColumnType::Decimal(4, 0));
  EXPECT_EQ(schema[3].type, ColumnType::Char(10));
  EXPECT_EQ(schema[1].type.ToString(), "DECIMAL(15,2)");
  for (const char* bad : {"p DECIMAL(19,2)", "p DECIMAL(4,5)", "p DECIMAL(0,0)", "p DECIMAL(x)"})
    EXPECT_THROW(ParseSchema(bad), InvalidInputError) << bad;
}

TEST(DateDecimalStorageTest, CsvAndTableFilesKeepTheTypes) {
  const Schema schema = ParseSchema("d DATE, p DECIMAL(15,2), q DECIMAL(18,4)");
  const TablePtr table = ImportCsvText(
      "d,p,q\n1998-12-01,24710.35,-1.5\n,0.07,\n1969-12-31, -3 ,12345678901234.5678\n", "x.csv",
      "t", schema);
  ASSERT_EQ(table->rows(), 3u);
  EXPECT_EQ(table->column(0).int32s()[0], 10561);
  EXPECT_TRUE(table->column(0).IsNull(1));
  EXPECT_EQ(table->column(0).int32s()[2], -1);
  EXPECT_EQ(table->column(1).int64s()[0], 2471035);
  EXPECT_EQ(table->column(1).int64s()[2], -300);
  EXPECT_EQ(table->column(2).int64s()[0], -15000);
  EXPECT_EQ(table->column(2).int64s()[2], 123456789012345678);
  EXPECT_EQ(FormatCsv(*table),
            "d,p,q\r\n1998-12-01,24710.35,-1.5000\r\n,0.07,\r\n1969-12-31,-3.00,"
            "12345678901234.5678\r\n");

  const auto path = std::filesystem::temp_directory_path() /
                    ("clq-date-decimal-" + std::to_string(::getpid()) + ".clq");
  WriteTableFile(*table, path.string());
  const TablePtr back = ReadTableFile(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(back->columns().size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(back->column(c).type(), table->column(c).type());
    EXPECT_EQ(std::memcmp(back->column(c).bytes(), table->column(c).bytes(),
                          table->column(c).byte_size()),
              0);
  }

  EXPECT_THROW(ImportCsvText("d\n1999-02-30\n", "x.csv", "t", ParseSchema("d DATE")),
               InvalidInputError);
  EXPECT_THROW(ImportCsvText("p\n1.2.3\n", "x.csv", "t", ParseSchema("p DECIMAL(15,2)")),
               InvalidInputError);
  EXPECT_THROW(ImportCsvText("p\n1234.5\n", "x.csv", "t", ParseSchema("p DECIMAL(5,2)")),
               InvalidInputError);
}

}  // namespace
}  // namespace clq

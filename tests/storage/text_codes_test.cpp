// Order codes of CHAR data (storage/text_codes.hpp): for every pair of rows,
// the codes compare as the strings do (std::string_view's bytewise order,
// NUL padding not part of a value), and the dictionary holds each distinct
// string once, ascending, at its code. Checked on widths below, at and past
// the 8-byte prefix the sort compares first, with many shared prefixes, and
// on enough rows that the work runs in parts on several threads, for few
// distinct values (numbered by hashing) and for many (sorted).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "storage/table.hpp"

namespace clq {
namespace {

std::string_view ValueAt(const std::vector<char>& text, std::uint32_t width, std::size_t row) {
  std::string_view value(text.data() + row * width, width);
  while (!value.empty() && value.back() == '\0')
    value.remove_suffix(1);
  return value;
}

// Values of up to `longest` bytes (at most `width`) of random letters, from
// `shortest` bytes; a random prefix of each of 'x's unless `all_differ`.
void ExpectOrderCodes(std::uint32_t width, std::size_t rows, std::uint32_t seed,
                      std::uint32_t longest, std::uint32_t shortest = 0, bool all_differ = false) {
  std::mt19937 rng(seed);
  // Few letters, shared prefixes, and bytes past 0x7F, so that equal
  // strings, strings equal in their first 8 bytes and unsigned order all
  // occur.
  const std::string letters = "Aab\x7f\x80\xff";
  std::vector<char> text(rows * width, '\0');
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint32_t length =
        std::uniform_int_distribution<std::uint32_t>(shortest, longest)(rng);
    const std::uint32_t shared =
        all_differ ? 0 : std::uniform_int_distribution<std::uint32_t>(0, length)(rng);
    for (std::uint32_t i = 0; i < length; ++i)
      text[r * width + i] =
          i < shared ? 'x' : letters[std::uniform_int_distribution<std::size_t>(0, 5)(rng)];
  }
  std::vector<std::int32_t> codes(rows, -1);
  const TextDictionary dictionary =
      ComputeOrderCodes(reinterpret_cast<const std::byte*>(text.data()), rows, width,
                        reinterpret_cast<std::byte*>(codes.data()), false);
  std::set<std::string_view> distinct;
  for (std::size_t r = 0; r < rows; ++r)
    distinct.insert(ValueAt(text, width, r));
  ASSERT_EQ(dictionary.values.size(), distinct.size()) << width << " bytes, " << rows << " rows";
  EXPECT_TRUE(std::equal(dictionary.values.begin(), dictionary.values.end(), distinct.begin()));
  for (std::size_t r = 0; r < rows; ++r) {
    ASSERT_GE(codes[r], 0);
    ASSERT_LT(static_cast<std::size_t>(codes[r]), dictionary.values.size());
    ASSERT_EQ(dictionary.values[codes[r]], ValueAt(text, width, r)) << "row " << r;
  }
}

TEST(OrderCodes, OrderAsTheStringsAndDecodeToThem) {
  for (const std::uint32_t width : {1u, 7u, 8u, 9u, 20u})
    for (const std::size_t rows : {std::size_t{0}, std::size_t{1}, std::size_t{1000}})
      ExpectOrderCodes(width, rows, width * 31 + static_cast<std::uint32_t>(rows), width);
  // Past 2 x 65536 rows the rows are numbered in parts: few values (a hash
  // of each part's), and many (more than 65536 in a part of up to 8: the
  // rows sorted in parts, merged).
  ExpectOrderCodes(20, 300'001, 5, 3);
  ExpectOrderCodes(20, 1'100'001, 7, 20, 12, true);
}

TEST(OrderCodes, BelongToTheDataSoSlicesShareThem) {
  TableBuilder builder("t", {{"i", ColumnType::Int32()}, {"s", ColumnType::Char(4)}}, 4);
  const char* values[] = {"b", "a", "", "b"};
  for (RowCount r = 0; r < 4; ++r) {
    builder.column_values<std::int32_t>(0)[r] = static_cast<std::int32_t>(r);
    builder.SetString(1, r, values[r]);
  }
  const TablePtr table = builder.Finish();
  ASSERT_EQ(table->column_slots(), 3u);
  const std::size_t slot = table->OrderCodesSlot(1);
  EXPECT_EQ(slot, 2u);
  const Column& codes = table->column(slot);
  ASSERT_EQ(codes.type(), ColumnType::Int32());
  EXPECT_EQ(std::vector<std::int32_t>(codes.int32s().begin(), codes.int32s().end()),
            (std::vector<std::int32_t>{2, 1, 0, 2}));
  EXPECT_EQ(codes.shared_data()->IntegerRange()->max, 2);
  EXPECT_EQ(codes.shared_data()->Dictionary()->values, (std::vector<std::string>{"", "a", "b"}));
  const TablePtr slice = table->Slice("t2", 1, 2);
  const Column& sliced = slice->column(slice->OrderCodesSlot(1));
  EXPECT_EQ(sliced.shared_data(), codes.shared_data());
  EXPECT_EQ(std::vector<std::int32_t>(sliced.int32s().begin(), sliced.int32s().end()),
            (std::vector<std::int32_t>{1, 0}));
  EXPECT_THROW((void)table->OrderCodesSlot(0), InternalError);
}

// Codes are cheap to make for few rows, or for rows whose values repeat;
// not for many rows of distinct values (they would be sorted).
TEST(OrderCodes, AreCheapForFewRowsOrFewValues) {
  const std::uint32_t width = 12;
  const std::size_t rows = 3'000'000;
  std::vector<char> text(rows * width, '\0');
  for (std::size_t r = 0; r < rows; ++r) {
    const std::string value = "v" + std::to_string(r);
    std::memcpy(text.data() + r * width, value.data(), value.size());
  }
  const auto* bytes = reinterpret_cast<const std::byte*>(text.data());
  EXPECT_FALSE(OrderCodesAreCheap(bytes, rows, width));
  EXPECT_TRUE(OrderCodesAreCheap(bytes, 1'000'000, width));
  for (std::size_t r = 0; r < rows; ++r) {
    const std::string value = "v" + std::to_string(r % 1000);
    std::memset(text.data() + r * width, 0, width);
    std::memcpy(text.data() + r * width, value.data(), value.size());
  }
  EXPECT_TRUE(OrderCodesAreCheap(bytes, rows, width));
}

}  // namespace
}  // namespace clq

// The Arrow C Data / C Stream layer (arrow/), against arrays built here by
// hand as a producer would: each type's conversion, offsets, zero-copy,
// several batches, dictionaries, string views, the refusals (NaN,
// unsupported types, views outside their buffers,
// dictionaries of dictionaries, uint64 past INT64) and that every struct
// handed over is released exactly once, also on error; and a query result
// exported and read back.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "arrow/arrow_export.hpp"
#include "arrow/arrow_import.hpp"
#include "common/errors.hpp"
#include "tests/arrow/test_arrays.hpp"

namespace clq {
namespace {

using namespace testing::arrow;  // NOLINT: the test's vocabulary

TEST(ArrowImportTest, FixedWidthColumnsInPlaceOrConverted) {
  g_released = 0;
  TestBatch batch;
  batch.columns = {
      Fixed<std::int32_t>("i", "a", {5, -7, 2147483647}),
      Fixed<std::int64_t>("l", "b", {INT64_MIN, 0, INT64_MAX}),
      Fixed<double>("g", "c", {0.5, -1e300, 3.25}),
      Fixed<std::int8_t>("c", "d", {-128, 0, 127}),
      Fixed<std::uint16_t>("S", "e", {0, 1, 65535}),
      Fixed<std::uint32_t>("I", "f", {0, 7, 4294967295u}),
      Fixed<float>("f", "g", {1.5f, -2.0f, 0.1f}),
      Fixed<std::uint8_t>("b", "h", {0b101}),
      Fixed<std::uint64_t>("L", "i", {0, 1, 9223372036854775807ull}),
  };
  batch.columns[7]->length = 3;  // a bool array's values are bits
  const std::vector<const void*> lent = {batch.columns[0]->buffers[1], batch.columns[1]->buffers[1],
                                         batch.columns[2]->buffers[1]};
  const TablePtr t = Import(batch);
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(t->column(0).type(), ColumnType::Int32());
  EXPECT_EQ(t->column(1).type(), ColumnType::Int64());
  EXPECT_EQ(t->column(2).type(), ColumnType::Double());
  for (std::size_t c = 0; c < 3; ++c)
    EXPECT_EQ(static_cast<const void*>(t->column(c).bytes()), lent[c])
        << "column " << c << " was copied";
  EXPECT_EQ(t->column(0).IntegerAt(1), -7);
  EXPECT_EQ(t->column(1).IntegerAt(0), INT64_MIN);
  EXPECT_EQ(t->column(2).RealAt(1), -1e300);
  EXPECT_EQ(t->column(3).type(), ColumnType::Int32());
  EXPECT_EQ(t->column(3).IntegerAt(0), -128);
  EXPECT_EQ(t->column(4).IntegerAt(2), 65535);
  EXPECT_EQ(t->column(5).type(), ColumnType::Int64());
  EXPECT_EQ(t->column(5).IntegerAt(2), 4294967295);
  EXPECT_EQ(t->column(6).RealAt(2), static_cast<double>(0.1f));
  EXPECT_EQ(t->column(7).IntegerAt(0), 1);
  EXPECT_EQ(t->column(7).IntegerAt(1), 0);
  EXPECT_EQ(t->column(7).IntegerAt(2), 1);
  EXPECT_EQ(t->column(8).IntegerAt(2), INT64_MAX);
  EXPECT_EQ(t->column(2).name(), "c");
  // The schema is released at once; the batch when the table goes.
  EXPECT_EQ(g_released, 1);
  const std::weak_ptr<const Table> weak = t;
  (void)weak;
}

TEST(ArrowImportTest, DatesAndDecimalsKeepTheirTypes) {
  TestBatch batch;
  batch.columns = {
      Fixed<std::int32_t>("tdD", "day", {10561, -1, 0}),
      // decimal128(20, 2): value, sign word per row; read as DECIMAL(18, 2).
      Fixed<std::int64_t>("d:20,2", "price", {2471035, 0, -5, -1, 0, 0}),
      Fixed<std::int64_t>("d:12,4,64", "rate", {1, 2, 3}),
  };
  batch.columns[1]->length = 3;
  const TablePtr t = Import(batch);
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(t->column(0).type(), ColumnType::Date());
  EXPECT_EQ(t->column(0).IntegerAt(0), 10561);
  EXPECT_EQ(t->column(0).IntegerAt(1), -1);
  EXPECT_EQ(t->column(1).type(), ColumnType::Decimal(18, 2));
  EXPECT_EQ(t->column(1).IntegerAt(0), 2471035);
  EXPECT_EQ(t->column(1).IntegerAt(1), -5);
  EXPECT_EQ(t->column(1).IntegerAt(2), 0);
  EXPECT_EQ(t->column(2).type(), ColumnType::Decimal(12, 4));
  EXPECT_EQ(t->column(2).IntegerAt(2), 3);
}

TEST(ArrowImportTest, BatchAndChildOffsetsShiftTheRows) {
  TestBatch batch;
  batch.columns = {Fixed<std::int32_t>("i", "a", {1, 2, 3, 4, 5}, 1),
                   Fixed<std::int64_t>("l", "b", {10, 20, 30, 40, 50}, 1)};
  batch.offset = 2;  // rows are elements offset + 2 .. of each child
  const TablePtr t = Import(batch);
  ASSERT_EQ(t->rows(), 2u);
  EXPECT_EQ(t->column(0).IntegerAt(0), 4);
  EXPECT_EQ(t->column(0).IntegerAt(1), 5);
  EXPECT_EQ(t->column(1).IntegerAt(1), 50);
}

TEST(ArrowImportTest, StringsAndDictionariesBecomeChar) {
  TestBatch batch;
  auto dict = Strings("", {"red", "green", "blue!"});
  auto indices = Fixed<std::int8_t>("c", "colour", {2, 0, 0, 1});
  indices->dictionary = dict;
  batch.columns = {Strings("s", {"", "hello", "a"}), indices};
  batch.columns[1]->length = 3;
  const TablePtr t = Import(batch);
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(t->column(0).type(), ColumnType::Char(5));
  EXPECT_EQ(t->column(0).StringAt(0), "");
  EXPECT_EQ(t->column(0).StringAt(1), "hello");
  EXPECT_EQ(t->column(1).type(), ColumnType::Char(5));
  EXPECT_EQ(t->column(1).StringAt(0), "blue!");
  EXPECT_EQ(t->column(1).StringAt(1), "red");
}

// Polars exports its strings as string views: short ones inline, long ones
// in data buffers; alone, at offsets, with NULLs and as dictionary values
// (Polars' categoricals).
TEST(ArrowImportTest, StringViewsBecomeChar) {
  TestBatch batch;
  const std::string long_a = "thirteen-bytes";
  const std::string long_b = "a longer string in the second data buffer";
  auto s = StringViews("s", {"", "twelve bytes", long_a, "x", long_b, "null row, long enough"});
  SetNulls(*s, {false, false, false, false, false, true});
  auto dict = StringViews("", {"red", "a long dictionary value", "blue"}, 1);
  auto indices = Fixed<std::uint32_t>("I", "colour", {2, 1, 0, 7, 0, 1});
  indices->dictionary = dict;
  SetNulls(*indices, {false, false, false, true, false, false});
  batch.columns = {s, indices};
  const TablePtr t = Import(batch);
  ASSERT_EQ(t->rows(), 6u);
  EXPECT_EQ(t->column(0).type(), ColumnType::Char(static_cast<std::uint32_t>(long_b.size())));
  EXPECT_EQ(t->column(0).StringAt(0), "");
  EXPECT_FALSE(t->column(0).IsNull(0));
  EXPECT_EQ(t->column(0).StringAt(1), "twelve bytes");
  EXPECT_EQ(t->column(0).StringAt(2), long_a);
  EXPECT_EQ(t->column(0).StringAt(3), "x");
  EXPECT_EQ(t->column(0).StringAt(4), long_b);
  EXPECT_TRUE(t->column(0).IsNull(5));
  EXPECT_EQ(t->column(1).type(), ColumnType::Char(23));
  EXPECT_EQ(t->column(1).StringAt(0), "blue");
  EXPECT_EQ(t->column(1).StringAt(1), "a long dictionary value");
  EXPECT_EQ(t->column(1).StringAt(2), "red");
  EXPECT_TRUE(t->column(1).IsNull(3));

  // The batch's offset applies to the views too.
  TestBatch shifted;
  shifted.columns = {StringViews("s", {"skipped", long_a, "y"})};
  shifted.offset = 1;
  const TablePtr u = Import(shifted);
  ASSERT_EQ(u->rows(), 2u);
  EXPECT_EQ(u->column(0).StringAt(0), long_a);
  EXPECT_EQ(u->column(0).StringAt(1), "y");
}

void ExpectRefused(TestBatch& batch, const std::string& message_part) {
  g_released = 0;
  batch.Wire();
  try {
    ImportArrowArray("t", &batch.schema, &batch.array);
    ADD_FAILURE() << "accepted; expected an error with: " << message_part;
  } catch (const InvalidInputError& e) {
    EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
  }
  EXPECT_EQ(g_released, 2) << "the schema and the array must both be released";
  EXPECT_EQ(batch.schema.release, nullptr);
  EXPECT_EQ(batch.array.release, nullptr);
}

TEST(ArrowImportTest, RefusesWhatClqCannotStore) {
  {
    TestBatch batch;
    batch.columns = {Fixed<std::int32_t>("tts", "at", {1, 2})};
    ExpectRefused(batch, "'at' has the Arrow type 'tts' (time)");
  }
  {
    // A decimal128 value past 64 bits: its high word is not the low word's sign.
    TestBatch batch;
    batch.columns = {Fixed<std::int64_t>("d:20,2", "big", {5, 0, 1, 1})};
    batch.columns[0]->length = 2;
    ExpectRefused(batch, "row 2: a decimal value needs more than 64 bits");
  }
  {
    TestBatch batch;
    batch.columns = {Fixed<std::uint64_t>("L", "u", {1, 18446744073709551615ull})};
    ExpectRefused(batch, "row 2: the uint64 value 18446744073709551615 is past INT64's range");
  }
  {
    TestBatch batch;
    batch.columns = {Fixed<std::int32_t>("i", "A", {1}), Fixed<std::int32_t>("i", "a", {2})};
    ExpectRefused(batch, "appears twice");
  }
  {
    TestBatch batch;
    batch.columns = {Strings("s", {std::string("a\0b", 3)})};
    ExpectRefused(batch, "NUL byte");
  }
  {
    TestBatch batch;
    auto indices = Fixed<std::int32_t>("i", "d", {0, 3});
    indices->dictionary = Strings("", {"x", "y"});
    batch.columns = {indices};
    ExpectRefused(batch, "dictionary index out of range");
  }
  {
    // A uint64 index past INT64 is out of range too, not a value to store.
    TestBatch batch;
    auto indices = Fixed<std::uint64_t>("L", "d", {0, 18446744073709551615ull});
    indices->dictionary = Strings("", {"x"});
    batch.columns = {indices};
    ExpectRefused(batch, "column 'd': malformed Arrow array (dictionary index out of range)");
  }
}

// A dictionary whose values are themselves dictionary-encoded: its values
// are indices into the inner dictionary, not the column's values, so
// reading them as values would give a wrong answer.
// A view that points outside its data buffers is refused, not read; binary
// views stay refused (CHAR holds text).
TEST(ArrowImportTest, RefusesStringViewsOutsideTheirBuffers) {
  const std::string long_a = "thirteen-bytes";
  {
    TestBatch batch;
    auto s = StringViews("s", {"a", long_a});
    const std::int32_t buffer = 2;  // of two data buffers
    std::memcpy(s->values.data() + 16 + 8, &buffer, 4);
    batch.columns = {s};
    ExpectRefused(batch,
                  "column 's': malformed Arrow array (string view data buffer out of range)");
  }
  {
    TestBatch batch;
    auto s = StringViews("s", {"a", long_a});
    s->buffer_sizes[0] -= 1;  // the string's last byte is past the buffer's size
    batch.columns = {s};
    ExpectRefused(batch, "column 's': malformed Arrow array (string view past its data buffer)");
  }
  {
    TestBatch batch;
    auto s = StringViews("s", {"a"});
    const std::int32_t length = -1;
    std::memcpy(s->values.data(), &length, 4);
    batch.columns = {s};
    ExpectRefused(batch, "negative string view length");
  }
  {
    TestBatch batch;
    auto s = StringViews("s", {"a"});
    s->format = "vz";
    batch.columns = {s};
    ExpectRefused(batch, "'s' has the Arrow type 'vz' (binary view)");
  }
}

TEST(ArrowImportTest, RefusesDictionariesOfDictionaries) {
  TestBatch batch;
  auto inner = Fixed<std::int8_t>("c", "", {1, 0});
  inner->dictionary = Strings("", {"x", "y"});
  auto outer = Fixed<std::int8_t>("c", "d", {0, 1, 1});
  outer->dictionary = inner;
  batch.columns = {outer};
  ExpectRefused(batch, "column 'd' has a dictionary whose values are dictionary-encoded");
}

// NaN is no value in clq (a REAL operation that yields one gives NULL, and
// tables hold none): a column read in place, a copied one, float32 and a
// dictionary's values.
TEST(ArrowImportTest, RefusesNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  {
    TestBatch batch;
    batch.columns = {Fixed<double>("g", "r", {1.0, nan, 2.0})};
    ExpectRefused(batch, "column 'r', row 2: NaN");
  }
  {
    TestBatch batch;
    batch.columns = {Fixed<double>("g", "r", {1.0, 2.0, nan}, 1)};
    ExpectRefused(batch, "column 'r', row 2: NaN");
  }
  {
    TestBatch batch;
    batch.columns = {Fixed<float>("f", "r", {std::numeric_limits<float>::quiet_NaN()})};
    ExpectRefused(batch, "column 'r', row 1: NaN");
  }
  {
    TestBatch batch;
    auto indices = Fixed<std::int32_t>("i", "r", {0, 1});
    indices->dictionary = Fixed<double>("g", "", {0.5, -nan});
    batch.columns = {indices};
    ExpectRefused(batch, "column 'r', row 2: NaN");
  }
}

// A stream of two batches, as a producer hands it over.
struct TestStream {
  std::vector<TestBatch> batches;
  std::size_t next = 0;
  int fail_at = -1;  // get_next fails at this batch
};

TEST(ArrowImportTest, StreamsConcatenateTheirBatches) {
  static TestStream source;
  source = TestStream{};
  source.batches.resize(2);
  source.batches[0].columns = {Fixed<std::int64_t>("l", "k", {1, 2}), Strings("s", {"ab", "c"})};
  source.batches[1].columns = {Fixed<std::int64_t>("l", "k", {3}), Strings("s", {"defg"})};
  for (TestBatch& b : source.batches)
    b.Wire();
  ArrowArrayStream stream{};
  stream.get_schema = [](ArrowArrayStream*, ArrowSchema* out) {
    *out = source.batches[0].schema;
    return 0;
  };
  stream.get_next = [](ArrowArrayStream*, ArrowArray* out) {
    if (source.next == source.batches.size()) {
      *out = ArrowArray{};
      return 0;
    }
    *out = source.batches[source.next++].array;
    return 0;
  };
  stream.get_last_error = [](ArrowArrayStream*) -> const char* { return nullptr; };
  stream.release = [](ArrowArrayStream* s) { s->release = nullptr; };
  const TablePtr t = ImportArrowStream("t", &stream);
  EXPECT_EQ(stream.release, nullptr);
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(t->column(0).IntegerAt(2), 3);
  EXPECT_EQ(t->column(1).type(), ColumnType::Char(4));
  EXPECT_EQ(t->column(1).StringAt(0), "ab");
  EXPECT_EQ(t->column(1).StringAt(2), "defg");
}

QueryResult SampleResult() {
  QueryResult r;
  r.rows = 3;
  ResultColumn i;
  i.name = "i";
  i.type = sql::ValueType::kInteger;
  i.integers = {1, INT64_MIN, 3};
  i.nulls = {0, 0, 1};
  ResultColumn d;
  d.name = "d";
  d.type = sql::ValueType::kReal;
  d.reals = {0.5, -2.0, 1e300};
  ResultColumn s;
  s.name = "s";
  s.type = sql::ValueType::kText;
  s.text_width = 3;
  s.text = {'a', 'b', '\0', '\0', '\0', '\0', 'x', 'y', 'z'};
  ResultColumn n;
  n.name = "n";
  n.type = sql::ValueType::kNull;
  r.columns = {i, d, s, n};
  return r;
}

TEST(ArrowExportTest, OneBatchWithValidityAndTheResultsOwnValues) {
  ArrowArrayStream stream{};
  ExportArrowStream(std::make_shared<const QueryResult>(SampleResult()), &stream);
  ArrowSchema schema{};
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  EXPECT_STREQ(schema.format, "+s");
  ASSERT_EQ(schema.n_children, 4);
  EXPECT_STREQ(schema.children[0]->format, "l");
  EXPECT_STREQ(schema.children[1]->format, "g");
  EXPECT_STREQ(schema.children[2]->format, "u");
  EXPECT_STREQ(schema.children[3]->format, "n");
  EXPECT_STREQ(schema.children[2]->name, "s");
  ArrowArray batch{};
  ASSERT_EQ(stream.get_next(&stream, &batch), 0);
  ASSERT_NE(batch.release, nullptr);
  ArrowArray end{};
  ASSERT_EQ(stream.get_next(&stream, &end), 0);
  EXPECT_EQ(end.release, nullptr);
  stream.release(&stream);  // the batch outlives the stream
  ASSERT_EQ(batch.length, 3);
  ASSERT_EQ(batch.n_children, 4);
  const ArrowArray& i = *batch.children[0];
  EXPECT_EQ(i.null_count, 1);
  const auto* validity = static_cast<const std::uint8_t*>(i.buffers[0]);
  EXPECT_EQ(validity[0] & 7, 0b011);
  EXPECT_EQ(static_cast<const std::int64_t*>(i.buffers[1])[1], INT64_MIN);
  EXPECT_EQ(batch.children[1]->buffers[0], nullptr);
  EXPECT_EQ(static_cast<const double*>(batch.children[1]->buffers[1])[2], 1e300);
  const ArrowArray& s = *batch.children[2];
  const auto* offsets = static_cast<const std::int32_t*>(s.buffers[1]);
  EXPECT_EQ(offsets[1] - offsets[0], 2);
  EXPECT_EQ(offsets[2] - offsets[1], 0);
  EXPECT_EQ(std::string(static_cast<const char*>(s.buffers[2]) + offsets[2], 3), "xyz");
  EXPECT_EQ(batch.children[3]->null_count, 3);
  EXPECT_EQ(batch.children[3]->n_buffers, 0);
  batch.release(&batch);
  schema.release(&schema);
}

TEST(ArrowExportTest, ReadsBackThroughTheImporter) {
  QueryResult r = SampleResult();
  ArrowArrayStream stream{};
  ExportArrowStream(std::make_shared<const QueryResult>(r), &stream);
  const TablePtr t = ImportArrowStream("back", &stream);
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(t->column(0).IntegerAt(1), INT64_MIN);
  EXPECT_EQ(t->column(1).RealAt(2), 1e300);
  EXPECT_EQ(t->column(2).StringAt(0), "ab");
  EXPECT_EQ(t->column(2).StringAt(1), "");
  EXPECT_EQ(t->column(2).StringAt(2), "xyz");
  EXPECT_TRUE(t->column(0).IsNull(2));
  EXPECT_FALSE(t->column(0).IsNull(1));
  EXPECT_TRUE(t->column(3).IsNull(0) && t->column(3).IsNull(2));  // the NULL type: all NULL
}

}  // namespace
}  // namespace clq

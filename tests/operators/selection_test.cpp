#include "operators/selection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "operators/gather.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class SelectionTest : public DeviceTest {};

std::vector<std::uint32_t> SelectOnDevice(Engine& e, const TablePtr& t, const sql::Expr& predicate,
                                          RowCount* counted = nullptr,
                                          const QueryOptions& options = {}) {
  TableRelation relation(e, t);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t entry = program.AddPredicate(predicate);
  QueryContext context(e, options);
  DeviceProgram device_program(e, program, options);
  RowIds ids = Select(context, relation, device_program, entry);
  if (counted != nullptr) *counted = CountWhere(context, relation, device_program, entry);
  return DownloadRowIds(e, ids);
}

std::vector<std::uint32_t> Expected(const TablePtr& t, const std::function<bool(RowCount)>& keep) {
  std::vector<std::uint32_t> rows;
  for (RowCount i = 0; i < t->rows(); ++i)
    if (keep(i)) rows.push_back(static_cast<std::uint32_t>(i));
  return rows;
}

// The thesis selection: unique1 > 1000 AND unique1 < 6000 AND unique2 % 2 = 0 AND two = 0,
// here a > -300 AND a < 500 AND b % 2 = 0 AND a % 2 = 0.
sql::Expr ThesisLike() {
  return Bin(Op::kAnd,
             Bin(Op::kAnd,
                 Bin(Op::kAnd, Bin(Op::kGreater, IntCol(0), Int(-300)),
                     Bin(Op::kLess, IntCol(0), Int(500))),
                 Bin(Op::kEqual, Bin(Op::kModulo, IntCol(1), Int(2)), Int(0))),
             Bin(Op::kEqual, Bin(Op::kModulo, IntCol(0), Int(2)), Int(0)));
}

TEST_P(SelectionTest, EdgeSizesInRowOrder) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const RowCount wg = e.tuning().work_group_size;
  for (RowCount rows : {RowCount{0}, RowCount{1}, RowCount{31}, RowCount{32}, RowCount{33}, wg - 1,
                        wg + 1, tile - 1, tile, tile + 1, 5 * tile + 17}) {
    TablePtr t = RandomTable(rows, 100 + static_cast<std::uint32_t>(rows), false);
    const auto a = t->column(0).int32s();
    const auto b = t->column(1).int64s();
    RowCount counted = 0;
    const auto got = SelectOnDevice(e, t, ThesisLike(), &counted);
    const auto want = Expected(
        t, [&](RowCount i) { return a[i] > -300 && a[i] < 500 && b[i] % 2 == 0 && a[i] % 2 == 0; });
    EXPECT_EQ(got, want) << "rows " << rows;
    EXPECT_EQ(counted, want.size()) << "rows " << rows;
  }
}

// A leading range test alone first (filter_range_tiles), then vm_filter on
// the tiles where it kept a row: forced on every device and checked against
// the host, with values on and past the range's bounds (a in [-40, 40] plus
// INT32's extremes) and the tablet split in three.
TEST_P(SelectionTest, LeadingRangeFirstAgreesWithTheHost) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  QueryOptions options;
  options.range_first = Choice::kOn;
  options.conjunct_filter = Choice::kOff;  // it would take INT32-only predicates
  for (RowCount rows :
       {RowCount{0}, RowCount{1}, RowCount{33}, tile - 1, tile, tile + 1, 7 * tile + 5}) {
    TablePtr t = RandomTable(rows, 7 + static_cast<std::uint32_t>(rows), true, 40);
    const auto a = t->column(0).int32s();
    const auto b = t->column(1).int64s();
    const auto c = t->column(2).doubles();
    const std::vector<std::pair<sql::Expr, std::function<bool(RowCount)>>> cases = {
        {Bin(Op::kAnd,
             Bin(Op::kAnd, Bin(Op::kGreaterEqual, IntCol(0), Int(-10)),
                 Bin(Op::kLessEqual, IntCol(0), Int(10))),
             Bin(Op::kEqual, Bin(Op::kModulo, IntCol(1), Int(3)), Int(0))),
         [&](RowCount i) { return a[i] >= -10 && a[i] <= 10 && b[i] % 3 == 0; }},
        {Bin(Op::kAnd, Bin(Op::kEqual, IntCol(0), Int(7)),
             Bin(Op::kGreater, RealCol(2), Real(0.5))),
         [&](RowCount i) { return a[i] == 7 && c[i] > 0.5; }},
        {Bin(Op::kAnd, Bin(Op::kLess, IntCol(0), Int(-39)), Bin(Op::kLess, IntCol(1), Int(0))),
         [&](RowCount i) { return a[i] < -39 && b[i] < 0; }},
        {Bin(Op::kAnd, Bin(Op::kGreaterEqual, IntCol(0), Int(2147483647)),
             Bin(Op::kNotEqual, IntCol(1), Int(5))),
         [&](RowCount i) { return a[i] == 2147483647 && b[i] != 5; }},
    };
    for (const auto& [predicate, keep] : cases) {
      if (!e.info().fp64 && HasReal(predicate)) continue;  // refused without fp64
      RowCount counted = 0;
      std::vector<std::uint32_t> got;
      {
        const ScopedTabletRows thirds(e, std::max<RowCount>(rows / 3, 1));
        got = SelectOnDevice(e, t, predicate, &counted, options);
      }
      const auto want = Expected(t, keep);
      EXPECT_EQ(got, want) << "rows " << rows;
      EXPECT_EQ(counted, want.size()) << "rows " << rows;
    }
  }
}

TEST_P(SelectionTest, NoneAndAllRows) {
  Engine& e = engine();
  TablePtr t = RandomTable(3 * e.tuning().tile_size() + 3, 3, false);
  EXPECT_TRUE(SelectOnDevice(e, t, Bin(Op::kGreater, IntCol(0), Int(5000))).empty());
  EXPECT_EQ(SelectOnDevice(e, t, Bin(Op::kLess, IntCol(0), Int(5000))),
            Expected(t, [](RowCount) { return true; }));
  // NULL is not true: b / (a - a) > 0 selects nothing.
  EXPECT_TRUE(
      SelectOnDevice(
          e, t,
          Bin(Op::kGreater, Bin(Op::kDivide, IntCol(1), Bin(Op::kSubtract, IntCol(0), IntCol(0))),
              Int(0)))
          .empty());
  // A bare integer column is true when non-zero (SQLite).
  const auto a = t->column(0).int32s();
  EXPECT_EQ(SelectOnDevice(e, t, IntCol(0)), Expected(t, [&](RowCount i) { return a[i] != 0; }));
  if (!e.info().fp64) return;  // REAL: refused without fp64
  const auto c = t->column(2).doubles();
  EXPECT_EQ(SelectOnDevice(e, t, RealCol(2)), Expected(t, [&](RowCount i) { return c[i] != 0.0; }));
}

// A few rows in the first, a middle and the last tile: the scatter's empty
// tiles leave early, and the last tile's count comes from the total.
TEST_P(SelectionTest, SparseRowsInFirstMiddleAndLastTiles) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  for (RowCount rows : {20 * tile - 1, 20 * tile, 20 * tile + 1}) {
    TablePtr t = RandomTable(rows, 5 + static_cast<std::uint32_t>(rows), false, 1 << 30);
    const auto a = t->column(0).int32s();
    const std::vector<RowCount> picks = {0, tile - 1, 7 * tile, rows - 1};
    sql::Expr predicate = Bin(Op::kEqual, IntCol(0), Int(a[picks[0]]));
    for (std::size_t p = 1; p < picks.size(); ++p)
      predicate = Bin(Op::kOr, predicate, Bin(Op::kEqual, IntCol(0), Int(a[picks[p]])));
    const auto want = Expected(t, [&](RowCount i) {
      return std::any_of(picks.begin(), picks.end(), [&](RowCount p) { return a[i] == a[p]; });
    });
    EXPECT_GE(want.size(), picks.size());
    EXPECT_EQ(SelectOnDevice(e, t, predicate), want) << rows << " rows";
  }
}

TEST_P(SelectionTest, AcrossTabletsAndGather) {
  Engine& e = engine();
  const ScopedTabletRows small(e, 999);
  TablePtr t = RandomTable(10'000, 77, false);
  ASSERT_GT(e.tables().Tablets(*t).size(), 5u);
  const auto a = t->column(0).int32s();
  const auto b = t->column(1).int64s();
  const auto want = Expected(
      t, [&](RowCount i) { return a[i] > -300 && a[i] < 500 && b[i] % 2 == 0 && a[i] % 2 == 0; });
  EXPECT_EQ(SelectOnDevice(e, t, ThesisLike()), want);
  // Gather every column of the selected rows across tablets.
  TableRelation relation(e, t);
  RowIds ids = UploadRowIds(e, want);
  DeviceVector b_values = GatherColumn(e, relation, 1, ids);
  DeviceVector s_values = GatherColumn(e, relation, 3, ids);
  const auto got_b = DownloadValues<std::int64_t>(e, b_values);
  const auto got_s = DownloadValues<char>(e, s_values);
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got_b[i], b[want[i]]);
    ASSERT_EQ(
        std::string_view(got_s.data() + i * 8, 8),
        std::string_view(reinterpret_cast<const char*>(t->column(3).bytes()) + want[i] * 8, 8));
  }
}

// x = row index, except every 37th row holds a value whose x * 4 overflows.
TablePtr ClusteredWithOverflowRows(RowCount rows) {
  Schema schema{{"x", ColumnType::Int64()}};
  TableBuilder builder("clustered", schema, rows);
  auto* x = builder.column_values<std::int64_t>(0);
  for (RowCount i = 0; i < rows; ++i)
    x[i] =
        i % 37 == 5 ? std::numeric_limits<std::int64_t>::max() / 2 : static_cast<std::int64_t>(i);
  return builder.Finish();
}

// Conjuncts after one that rejects every row of a work-item are skipped; the
// rows that pass a narrow range in the middle must still all come back.
TEST_P(SelectionTest, ShortCircuitKeepsRowsOfANarrowRange) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  TablePtr t = ClusteredWithOverflowRows(4 * tile + 7);
  const auto x = t->column(0).int64s();
  const auto lo = static_cast<std::int64_t>(tile + 3), hi = static_cast<std::int64_t>(tile + 200);
  const sql::Expr predicate = Bin(
      Op::kAnd,
      Bin(Op::kAnd, Bin(Op::kGreaterEqual, IntCol(0), Int(lo)), Bin(Op::kLess, IntCol(0), Int(hi))),
      Bin(Op::kEqual, Bin(Op::kModulo, IntCol(0), Int(3)), Int(0)));
  RowCount counted = 0;
  EXPECT_EQ(SelectOnDevice(e, t, predicate, &counted),
            Expected(t, [&](RowCount i) { return x[i] >= lo && x[i] < hi && x[i] % 3 == 0; }));
  EXPECT_EQ(counted, Expected(t, [&](RowCount i) {
                       return x[i] >= lo && x[i] < hi && x[i] % 3 == 0;
                     }).size());
}

// A row that an earlier conjunct rejected never raises an error in a later
// one (SQLite evaluates AND left to right), on any device geometry; a row
// that reaches the overflowing conjunct does.
TEST_P(SelectionTest, RejectedRowsRaiseNoOverflow) {
  Engine& e = engine();
  TablePtr t = ClusteredWithOverflowRows(3 * e.tuning().tile_size() + 11);
  const auto x = t->column(0).int64s();
  const sql::Expr safe = Bin(Op::kAnd, Bin(Op::kLess, IntCol(0), Int(1'000'000'000)),
                             Bin(Op::kGreater, Bin(Op::kMultiply, IntCol(0), Int(4)), Int(10)));
  EXPECT_EQ(SelectOnDevice(e, t, safe),
            Expected(t, [&](RowCount i) { return x[i] < 1'000'000'000 && x[i] * 4 > 10; }));
  const sql::Expr overflowing =
      Bin(Op::kAnd, Bin(Op::kGreater, IntCol(0), Int(1'000'000'000)),
          Bin(Op::kGreater, Bin(Op::kMultiply, IntCol(0), Int(4)), Int(0)));
  EXPECT_THROW(SelectOnDevice(e, t, overflowing), InvalidInputError);
}

CLQ_INSTANTIATE_DEVICE_TESTS(SelectionTest);

}  // namespace
}  // namespace clq

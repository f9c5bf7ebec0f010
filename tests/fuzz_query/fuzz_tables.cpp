#include "tests/fuzz_query/fuzz_tables.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "tests/cpu_reference/bound_builders.hpp"
#include "tests/cpu_reference/random_query.hpp"

namespace clq::fuzz_query {

using cpu_reference_test::CharColumn;
using cpu_reference_test::DoubleColumn;
using cpu_reference_test::Int32Column;
using cpu_reference_test::Int64Column;
using cpu_reference_test::RandomSource;

TablePtr MakeFuzzTable(const TableShape& shape, std::uint64_t seed) {
  RandomSource random(seed);
  std::vector<std::int64_t> ids(shape.rows);
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), std::mt19937_64(seed ^ 0x1d5));
  std::vector<cpu_reference_test::TestColumn> columns = {
      Int32Column("id", ids), Int32Column("k", {}),  Int32Column("a", {}),
      Int64Column("b", {}),   DoubleColumn("d", {}), DoubleColumn("x", {}),
      CharColumn("s", 3, {}), CharColumn("t", 8, {})};
  constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
  constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> wild_a = {kInt32Max, -kInt32Max - 1, kInt32Max - 1, 65536};
  const std::vector<std::int64_t> wild_b = {kInt64Max, -kInt64Max - 1, std::int64_t{1} << 62,
                                            -(std::int64_t{1} << 62), std::int64_t{1} << 32};
  const std::vector<double> wild_x = {1e300, -1e300, 1e-300, -0.0, 9007199254740993.0, 0.1};
  for (RowCount r = 0; r < shape.rows; ++r) {
    const bool wild = shape.wild && random.Chance(0.08);
    columns[1].integers.push_back(random.Int(0, 9));
    columns[2].integers.push_back(wild ? random.Pick(wild_a) : random.Int(-100, 100));
    columns[3].integers.push_back(wild ? random.Pick(wild_b) : random.Int(-1000, 1000));
    columns[4].reals.push_back(static_cast<double>(random.Int(-40, 40)) / 4);
    columns[5].reals.push_back(wild ? random.Pick(wild_x)
                                    : static_cast<double>(random.Int(-20, 20)) / 2);
    columns[6].texts.push_back(random.Pick(cpu_reference_test::kShortTexts));
    columns[7].texts.push_back(random.Pick(cpu_reference_test::kLongTexts));
  }
  if (shape.null_rate > 0) {
    for (std::size_t c = 1; c < columns.size(); ++c) {
      if (!random.Chance(0.6)) continue;
      columns[c].nulls.resize(shape.rows);
      for (RowCount r = 0; r < shape.rows; ++r)
        columns[c].nulls[r] = random.Chance(shape.null_rate);
    }
  }
  return cpu_reference_test::MakeTable(shape.name, columns);
}

std::vector<TableShape> RoundShapes(std::uint64_t seed) {
  RandomSource random(seed);
  std::vector<TableShape> shapes = {
      {"t0", static_cast<RowCount>(random.Int(1000, 3000)), random.Chance(0.2)},
      {"t1", static_cast<RowCount>(random.Int(60, 700)), random.Chance(0.3)},
      {"t2", static_cast<RowCount>(random.Int(1, 60)), true},
      {"t3", static_cast<RowCount>(random.Int(0, 1)), random.Chance(0.5)}};
  // Drawn after the shapes, so a seed's tables keep their sizes.
  const std::vector<double> rates = {0.0, 0.0, 0.05, 0.3, 0.9};
  for (TableShape& shape : shapes)
    shape.null_rate = random.Pick(rates);
  return shapes;
}

}  // namespace clq::fuzz_query

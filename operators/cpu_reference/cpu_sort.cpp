#include "operators/cpu_reference/cpu_sort.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_group.hpp"

namespace clq::cpu_reference {
namespace {

template <typename T>
int ThreeWay(T x, T y) {
  return x < y ? -1 : (y < x ? 1 : 0);
}

// Ascending order of rows i and j of `v`, NULL first.
int CompareValues(const ValueVector& v, Position i, Position j) {
  const bool i_null = v.nulls[i] != 0;
  const bool j_null = v.nulls[j] != 0;
  if (i_null || j_null) return i_null == j_null ? 0 : (i_null ? -1 : 1);
  switch (v.type) {
    case sql::ValueType::kInteger:
      return ThreeWay(v.integers[i], v.integers[j]);
    case sql::ValueType::kReal:
      return ThreeWay(v.reals[i], v.reals[j]);
    case sql::ValueType::kText: {
      const int c = v.texts[i].compare(v.texts[j]);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case sql::ValueType::kNull:
      break;
  }
  return 0;
}

struct SortKey {
  const ValueVector* column;
  bool descending;
};

// The same order for a single INTEGER or REAL key, sorting (value,
// position) pairs so that comparisons need no indirection or type switch.
template <typename T>
void SortByOneKey(const std::vector<T>& values, const std::vector<std::uint8_t>& nulls,
                  bool descending, std::vector<Position>& positions) {
  std::vector<Position> null_positions;
  std::vector<std::pair<T, Position>> items;
  items.reserve(positions.size());
  for (Position p : positions) {
    if (nulls[p] != 0) {
      null_positions.push_back(p);
    } else {
      items.emplace_back(values[p], p);
    }
  }
  if (descending) {
    std::stable_sort(items.begin(), items.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
  } else {
    std::stable_sort(items.begin(), items.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  // NULL first ascending, last descending; each part keeps its input order.
  positions.clear();
  if (!descending) positions = null_positions;
  for (const auto& item : items)
    positions.push_back(item.second);
  if (descending) positions.insert(positions.end(), null_positions.begin(), null_positions.end());
}

}  // namespace

void SortPositions(std::span<const ValueVector> outputs, const std::vector<sql::OrderKey>& order_by,
                   std::vector<Position>& positions) {
  std::vector<SortKey> keys;
  for (const sql::OrderKey& key : order_by) {
    CLQ_CHECK(key.expr.kind == sql::Expr::Kind::kOutputRef && key.expr.index < outputs.size(),
              "ORDER BY key is not an output reference");
    keys.push_back({&outputs[key.expr.index], key.descending});
  }
  if (keys.empty()) return;
  if (keys.size() == 1 && keys[0].column->type == sql::ValueType::kInteger) {
    SortByOneKey(keys[0].column->integers, keys[0].column->nulls, keys[0].descending, positions);
    return;
  }
  if (keys.size() == 1 && keys[0].column->type == sql::ValueType::kReal) {
    SortByOneKey(keys[0].column->reals, keys[0].column->nulls, keys[0].descending, positions);
    return;
  }
  std::stable_sort(positions.begin(), positions.end(), [&](Position a, Position b) {
    for (const SortKey& key : keys) {
      const int c = CompareValues(*key.column, a, b);
      if (c != 0) return key.descending ? c > 0 : c < 0;
    }
    return false;
  });
}

std::vector<Position> DistinctPositions(std::span<const ValueVector> columns, std::size_t rows) {
  if (columns.empty()) return rows == 0 ? std::vector<Position>{} : std::vector<Position>{0};
  return FirstOfEachGroup(columns, rows);
}

}  // namespace clq::cpu_reference

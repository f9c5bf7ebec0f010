#include "operators/query_result.hpp"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <new>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "common/errors.hpp"
#include "runtime/pinned_result_pool.hpp"
#include "storage/table.hpp"

namespace clq {

namespace {
constexpr std::size_t kMappedBytes = std::size_t{32} << 20;
}  // namespace

void* AllocateResultBytes(std::size_t bytes, PinnedResultPool* pool) {
  if (pool != nullptr) {
    if (void* block = pool->Take(bytes)) return block;
  }
#ifdef __linux__
  if (bytes >= kMappedBytes) {
    void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) throw std::bad_alloc();
    madvise(block, bytes, MADV_HUGEPAGE);
    return block;
  }
#endif
  // Aligned as table columns need, so that a derived table reads a
  // result's columns in place (operators/subquery_materialize).
  return ::operator new (bytes, std::align_val_t{kHostBlockAlignment});
}

void FreeResultBytes(void* block, std::size_t bytes, PinnedResultPool* pool) noexcept {
  if (pool != nullptr && pool->Give(block)) return;
#ifdef __linux__
  if (bytes >= kMappedBytes) {
    munmap(block, bytes);
    return;
  }
#endif
  ::operator delete (block, std::align_val_t{kHostBlockAlignment});
}

RowCount ResultColumn::rows() const {
  switch (type) {
    case sql::ValueType::kInteger:
      return integers.size();
    case sql::ValueType::kReal:
      return reals.size();
    case sql::ValueType::kText:
      return text_width == 0 ? nulls.size() : text.size() / text_width;
    case sql::ValueType::kNull:
      return nulls.size();
  }
  return 0;
}

std::string_view ResultColumn::TextAt(RowCount row) const {
  if (text_width == 0) return {};
  return CharValue(text.data() + row * text_width, text_width);
}

sql::Value ResultColumn::ValueAt(RowCount row) const {
  if (type == sql::ValueType::kNull || IsNull(row)) return sql::Value::Null();
  switch (type) {
    case sql::ValueType::kInteger:
      return sql::Value::Integer(integers[row]);
    case sql::ValueType::kReal:
      return sql::Value::Real(reals[row]);
    case sql::ValueType::kText:
      return sql::Value::Text(std::string(TextAt(row)));
    case sql::ValueType::kNull:
      break;
  }
  return sql::Value::Null();
}

std::vector<LogicalType> OutputLogicalTypes(const sql::BoundSelect& select) {
  std::vector<LogicalType> logical;
  for (std::size_t i = 0; i < select.visible_outputs; ++i)
    logical.push_back(select.outputs[i].expr.logical);
  return logical;
}

void SetLogicalTypes(const std::vector<LogicalType>& logical, QueryResult& result) {
  for (std::size_t i = 0; i < result.columns.size() && i < logical.size(); ++i) {
    ResultColumn& column = result.columns[i];
    if (column.type == sql::ValueType::kInteger) column.logical = logical[i];
  }
}

namespace {

std::string Describe(const sql::Value& v) {
  switch (v.type) {
    case sql::ValueType::kNull:
      return "NULL";
    case sql::ValueType::kInteger:
      return std::to_string(v.integer);
    case sql::ValueType::kReal: {
      char text[40];
      std::snprintf(text, sizeof(text), "%.17g", v.real);
      return text;
    }
    case sql::ValueType::kText:
      return "'" + v.text + "'";
  }
  return "?";
}

bool ValuesEqual(const sql::Value& a, const sql::Value& b, double tolerance) {
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
  const bool a_num = a.type == sql::ValueType::kInteger || a.type == sql::ValueType::kReal;
  const bool b_num = b.type == sql::ValueType::kInteger || b.type == sql::ValueType::kReal;
  if (a.type == sql::ValueType::kInteger && b.type == sql::ValueType::kInteger)
    return a.integer == b.integer;
  if (a_num && b_num) {
    const double x = a.type == sql::ValueType::kReal ? a.real : static_cast<double>(a.integer);
    const double y = b.type == sql::ValueType::kReal ? b.real : static_cast<double>(b.integer);
    if (x == y) return true;
    const double scale = std::max({std::fabs(x), std::fabs(y), 1.0});
    return std::fabs(x - y) <= tolerance * scale;
  }
  if (a.type == sql::ValueType::kText && b.type == sql::ValueType::kText) return a.text == b.text;
  return false;
}

}  // namespace

std::uint64_t ResultBytes(const QueryResult& result) {
  std::uint64_t bytes = 0;
  for (const ResultColumn& c : result.columns)
    bytes += (c.integers.size() + c.reals.size()) * 8 + c.text.size() + c.nulls.size();
  return bytes;
}

int CompareSqlValues(const sql::Value& a, const sql::Value& b) {
  auto rank = [](const sql::Value& v) {
    return v.type == sql::ValueType::kNull ? 0 : v.type == sql::ValueType::kText ? 2 : 1;
  };
  if (rank(a) != rank(b)) return rank(a) < rank(b) ? -1 : 1;
  if (rank(a) == 0) return 0;
  if (rank(a) == 2) return a.text.compare(b.text) < 0 ? -1 : a.text == b.text ? 0 : 1;
  const double x = a.type == sql::ValueType::kReal ? a.real : static_cast<double>(a.integer);
  const double y = b.type == sql::ValueType::kReal ? b.real : static_cast<double>(b.integer);
  if (x != y) return x < y ? -1 : 1;
  if (a.type == sql::ValueType::kInteger && b.type == sql::ValueType::kInteger &&
      a.integer != b.integer)
    return a.integer < b.integer ? -1 : 1;
  return 0;
}

int CompareResultValues(const ResultColumn& a, RowCount i, const ResultColumn& b, RowCount j) {
  const bool a_null = a.type == sql::ValueType::kNull || a.IsNull(i);
  const bool b_null = b.type == sql::ValueType::kNull || b.IsNull(j);
  if (a_null || b_null) return a_null == b_null ? 0 : a_null ? -1 : 1;
  if (a.type != b.type) return CompareSqlValues(a.ValueAt(i), b.ValueAt(j));
  switch (a.type) {
    case sql::ValueType::kInteger:
      return a.integers[i] < b.integers[j] ? -1 : a.integers[i] == b.integers[j] ? 0 : 1;
    case sql::ValueType::kReal:
      return a.reals[i] < b.reals[j] ? -1 : a.reals[i] == b.reals[j] ? 0 : 1;
    case sql::ValueType::kText: {
      const int c = a.TextAt(i).compare(b.TextAt(j));
      return c < 0 ? -1 : c == 0 ? 0 : 1;
    }
    case sql::ValueType::kNull:
      break;
  }
  return 0;
}

ResultColumn GatherResultRows(const ResultColumn& from, std::span<const RowCount> rows) {
  ResultColumn to;
  to.name = from.name;
  to.type = from.type;
  to.logical = from.logical;
  to.text_width = from.text_width;
  to.dictionary = from.dictionary;
  const auto gather = [&](const auto& values, auto& out) {
    if (values.empty()) return;
    out.resize(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      out[i] = values[rows[i]];
  };
  gather(from.integers, to.integers);
  gather(from.reals, to.reals);
  gather(from.codes, to.codes);
  gather(from.nulls, to.nulls);
  if (from.type == sql::ValueType::kText && from.text_width > 0) {
    to.text.resize(rows.size() * from.text_width);
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::copy_n(from.text.data() + rows[i] * from.text_width, from.text_width,
                  to.text.data() + i * from.text_width);
  }
  return to;
}

namespace {

std::vector<RowCount> SortedOrder(const QueryResult& r) {
  std::vector<RowCount> order(r.rows);
  std::iota(order.begin(), order.end(), RowCount{0});
  std::stable_sort(order.begin(), order.end(), [&](RowCount x, RowCount y) {
    for (const ResultColumn& c : r.columns) {
      const int cmp = CompareSqlValues(c.ValueAt(x), c.ValueAt(y));
      if (cmp != 0) return cmp < 0;
    }
    return false;
  });
  return order;
}

}  // namespace

std::string CompareResults(const QueryResult& expected, const QueryResult& actual,
                           const CompareOptions& options) {
  if (expected.columns.size() != actual.columns.size()) {
    return "column count " + std::to_string(expected.columns.size()) + " vs " +
           std::to_string(actual.columns.size());
  }
  if (expected.rows != actual.rows)
    return "row count " + std::to_string(expected.rows) + " vs " + std::to_string(actual.rows);
  std::vector<RowCount> expected_order(expected.rows), actual_order(actual.rows);
  if (options.ignore_row_order) {
    expected_order = SortedOrder(expected);
    actual_order = SortedOrder(actual);
  } else {
    std::iota(expected_order.begin(), expected_order.end(), RowCount{0});
    std::iota(actual_order.begin(), actual_order.end(), RowCount{0});
  }
  for (RowCount i = 0; i < expected.rows; ++i) {
    for (std::size_t c = 0; c < expected.columns.size(); ++c) {
      const sql::Value a = expected.columns[c].ValueAt(expected_order[i]);
      const sql::Value b = actual.columns[c].ValueAt(actual_order[i]);
      if (!ValuesEqual(a, b, options.real_relative_tolerance)) {
        return "row " + std::to_string(i) + ", column " + expected.columns[c].name + ": " +
               Describe(a) + " vs " + Describe(b);
      }
    }
  }
  return {};
}

}  // namespace clq

// Builds host result columns (operators/query_result.hpp) from device
// vectors (one blocking download each), from rows of a host table column
// (no device work: SELECT * without a filter, or a few rows of a column the
// device does not hold), or from host values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "operators/device_vector.hpp"
#include "operators/query_result.hpp"
#include "sql/bound.hpp"
#include "storage/table.hpp"

namespace clq {

ResultColumn DownloadResultColumn(Engine& engine, const std::string& name, sql::ValueType type,
                                  const DeviceVector& vector);

ResultColumn HostResultColumn(const std::string& name, sql::ValueType type, const Column& column,
                              RowCount begin, RowCount rows);

// The rows `ids` (row numbers of the column's table) of a host table column,
// in that order; an id past the column is an InternalError.
ResultColumn HostGatheredResultColumn(const std::string& name, sql::ValueType type,
                                      const Column& column, const std::vector<std::uint32_t>& ids);

ResultColumn ValuesResultColumn(const std::string& name, sql::ValueType type,
                                const std::vector<sql::Value>& values);

// SUBSTRING(value, start, length) of each value of a TEXT column
// (sql/substring.hpp), as wide as the longest cut can be (at least 1 byte);
// NULLs stay NULL. REQUIRES: column.type is kText or kNull.
ResultColumn SubstringResultColumn(ResultColumn column, std::int64_t start,
                                   std::optional<std::int64_t> length);

}  // namespace clq

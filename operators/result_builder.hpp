// Builds host result columns (operators/query_result.hpp) from device
// vectors (one blocking download each), from rows of a host table column
// (no device work: SELECT * without a filter), or from host values.
#pragma once

#include <string>
#include <vector>

#include "host/sql/bound.hpp"
#include "operators/device_vector.hpp"
#include "operators/query_result.hpp"
#include "runtime/storage/table.hpp"

namespace clq {

ResultColumn DownloadResultColumn(Engine& engine, const std::string& name, sql::ValueType type,
                                  const DeviceVector& vector);

ResultColumn HostResultColumn(const std::string& name, sql::ValueType type, const Column& column,
                              RowCount begin, RowCount rows);

ResultColumn ValuesResultColumn(const std::string& name, sql::ValueType type,
                                const std::vector<sql::Value>& values);

}  // namespace clq

// Renders query results for people and programs:
//   table  aligned text; rows beyond `max_rows` are cut, with a note of how many
//   csv    RFC 4180: header row, CRLF line ends, fields quoted when needed,
//          NULL as an empty field
//   json   an array of objects, NULL as null
// REAL values print like SQLite (%.15g, with ".0" added to integral values);
// csv and json print 17 significant digits so values round-trip.
//
// The text is built whole in memory beside the result. As rows are
// rendered, the text so far, extrapolated to every row, is held with the
// result's own bytes to `host_memory` (common/host_memory.hpp): a result
// whose text would not fit fails with ResourceLimitError within its first
// rows, not once the memory is gone.
#pragma once

#include <cstdint>
#include <string>

#include "common/host_memory.hpp"
#include "operators/query_result.hpp"

namespace clq {

std::string FormatTable(const QueryResult& result, std::uint64_t max_rows,
                        std::uint64_t host_memory = kUnlimitedHostMemory);
std::string FormatCsv(const QueryResult& result, std::uint64_t host_memory = kUnlimitedHostMemory);
std::string FormatJson(const QueryResult& result, std::uint64_t host_memory = kUnlimitedHostMemory);

// One value as text, as the table format shows it ("NULL" for NULL).
std::string FormatValue(const ResultColumn& column, RowCount row);
std::string FormatReal(double value);  // SQLite style

}  // namespace clq

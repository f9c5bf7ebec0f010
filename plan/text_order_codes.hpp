// MIN and MAX of CHAR columns on devices, computed on the columns' order
// codes (storage/text_codes.hpp): a MIN of the strings is the string of the
// MIN of their codes, so the device reduces integers with the GROUP BY and
// aggregate kernels it has (merged across chunks, join partitions and
// devices like any integer MIN), and the host looks up the few strings the
// result holds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "operators/query_result.hpp"
#include "sql/bound.hpp"

namespace clq {

// `select` with each MIN or MAX of a CHAR column taken over the column's
// order codes (an INTEGER aggregate), and each CHAR column GROUP BY key the
// column's codes (but a derived table's whose codes are not made yet), and
// each output or HAVING reference to them the code's string
// (sql::Expr::Kind::kTextOfCode); null when nothing changes. Makes the codes of columns that have
// none yet, within `host_memory`. Throws DeviceLimitError for MIN or MAX of any other TEXT
// expression.
std::shared_ptr<const sql::BoundSelect> WithTextOrderCodes(const sql::BoundSelect& select,
                                                           std::uint64_t host_memory);

// A CHAR column to group by on its order codes: the reference to the codes,
// and their dictionary.
struct GroupingCodes {
  sql::Expr key;
  std::shared_ptr<const TextDictionary> dictionary;
};
// `key`'s codes where grouping by them is better than grouping the strings:
// `key` a CHAR column whose codes are made, or else not one of a derived
// table (its rows live for one query) and of few distinct values
// (OrderCodesAreCheap), its codes then made within `host_memory`. Else
// nullopt.
std::optional<GroupingCodes> CodesToGroup(const sql::BoundSelect& select, const sql::Expr& key,
                                          std::uint64_t host_memory);

// The reference to `key`'s codes where `key` is a CHAR column whose codes
// are made (they sort as its strings do); else nullopt.
std::optional<sql::Expr> MadeCodes(const sql::BoundSelect& select, const sql::Expr& key);

// `e`, or the order codes whose strings `e` looks up: they sort and group
// as the strings do.
inline const sql::Expr& Undecoded(const sql::Expr& e) {
  return e.kind == sql::Expr::Kind::kTextOfCode ? e.children.at(0) : e;
}

// The strings of `codes` (an INTEGER column of order codes) in `dictionary`,
// NULL where a code is; the result's `dictionary` is set (not its codes).
ResultColumn TextOfCodes(const ResultColumn& codes,
                         const std::shared_ptr<const TextDictionary>& dictionary);

}  // namespace clq

// The aggregate functions of the CPU reference, fed a batch of rows at a
// time: an AggregateState holds the running state of one aggregate for every
// group seen so far.
//
// COUNT(*) counts rows and COUNT(x) non-NULL x. SUM of INTEGER is INTEGER
// (an overflow of any partial sum, in row order, is InvalidInputError
// "integer overflow", as in SQLite); SUM of REAL adds in row order. AVG is
// REAL: the values added as doubles in row order (SQLite's rSum), divided by
// their count. MIN and MAX ignore NULLs (TEXT compares bytewise; the first
// of equal values is kept). MEDIAN and QUANTILE(x, q) return the element of
// 0-based rank floor(q * (n - 1)) of the n sorted non-NULL values. Every
// aggregate but COUNT is NULL for a group without non-NULL input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

class AggregateState {
 public:
  // Borrows `aggregate`, which must outlive the state.
  explicit AggregateState(const sql::Aggregate& aggregate);

  // Adds a batch of rows: `argument` holds one value per row (nullptr for
  // COUNT(*)) and row i belongs to group group_of_row[i] < groups, where
  // `groups` is the number of groups so far (it never shrinks).
  void Add(const ValueVector* argument, std::span<const std::size_t> group_of_row,
           std::size_t groups);

  // The aggregate of each of `groups` groups, of type aggregate.type.
  ValueVector Finish(std::size_t groups);

 private:
  void Resize(std::size_t groups);
  void AddSum(const ValueVector& argument, std::span<const std::size_t> group_of_row);
  void AddExtreme(const ValueVector& argument, std::span<const std::size_t> group_of_row);
  ValueVector FinishQuantile(std::size_t groups, double q) const;

  const sql::Aggregate& aggregate_;
  sql::ValueType argument_type_ = sql::ValueType::kNull;
  std::vector<std::int64_t> counts_;          // COUNT, AVG: non-NULL inputs per group
  // SUM of INTEGER, exact: the total decides overflow (the devices' rule),
  // not a partial sum, so the order rows arrive in does not matter.
  __extension__ typedef __int128 WideSum;
  std::vector<WideSum> integer_sums_;
  std::vector<double> real_sums_;             // SUM of REAL, AVG
  std::vector<std::uint8_t> has_value_;       // SUM: whether a non-NULL input was seen
  ValueVector best_;                          // MIN, MAX: per group, NULL until a value is seen
  ValueVector collected_;                     // MEDIAN, QUANTILE: every non-NULL input...
  std::vector<std::size_t> collected_group_;  // ... and its group
};

}  // namespace clq::cpu_reference

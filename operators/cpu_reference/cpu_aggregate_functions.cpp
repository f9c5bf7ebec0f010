#include "operators/cpu_reference/cpu_aggregate_functions.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/errors.hpp"

namespace clq::cpu_reference {
namespace {

using sql::AggregateFunction;
using sql::ValueType;

ValueVector Count(const ValueVector* argument, const std::vector<std::size_t>& group_of_row,
                  std::size_t groups) {
  ValueVector r = ValueVector::Make(ValueType::kInteger, groups);
  for (std::size_t i = 0; i < group_of_row.size(); ++i)
    if (argument == nullptr || argument->nulls[i] == 0) ++r.integers[group_of_row[i]];
  return r;
}

ValueVector Sum(const ValueVector& argument, const std::vector<std::size_t>& group_of_row,
                std::size_t groups) {
  ValueVector r = ValueVector::AllNull(argument.type, groups);
  for (std::size_t i = 0; i < group_of_row.size(); ++i) {
    if (argument.nulls[i] != 0) continue;
    const std::size_t g = group_of_row[i];
    r.nulls[g] = 0;
    if (argument.type == ValueType::kInteger) {
      if (__builtin_add_overflow(r.integers[g], argument.integers[i], &r.integers[g]))
        throw InvalidInputError("integer overflow");
    } else {
      r.reals[g] += argument.reals[i];
    }
  }
  return r;
}

ValueVector Average(const ValueVector& argument, const std::vector<std::size_t>& group_of_row,
                    std::size_t groups) {
  ValueVector r = ValueVector::AllNull(ValueType::kReal, groups);
  std::vector<std::size_t> counts(groups, 0);
  for (std::size_t i = 0; i < group_of_row.size(); ++i) {
    if (argument.nulls[i] != 0) continue;
    const std::size_t g = group_of_row[i];
    ++counts[g];
    r.reals[g] += argument.type == ValueType::kInteger ? static_cast<double>(argument.integers[i])
                                                       : argument.reals[i];
  }
  for (std::size_t g = 0; g < groups; ++g) {
    if (counts[g] == 0) continue;
    r.nulls[g] = 0;
    r.reals[g] /= static_cast<double>(counts[g]);
  }
  return r;
}

// Whether value i of `v` orders before value j (both not NULL).
bool Less(const ValueVector& v, std::size_t i, std::size_t j) {
  switch (v.type) {
    case ValueType::kInteger:
      return v.integers[i] < v.integers[j];
    case ValueType::kReal:
      return v.reals[i] < v.reals[j];
    case ValueType::kText:
      return v.texts[i] < v.texts[j];
    case ValueType::kNull:
      break;
  }
  return false;
}

// The value at chosen[g] for each group g; NULL where chosen[g] is `none`.
ValueVector Pick(const ValueVector& v, const std::vector<Position>& chosen, Position none) {
  ValueVector r = ValueVector::AllNull(v.type, chosen.size());
  for (std::size_t g = 0; g < chosen.size(); ++g) {
    const Position i = chosen[g];
    if (i == none) continue;
    r.nulls[g] = 0;
    switch (v.type) {
      case ValueType::kInteger:
        r.integers[g] = v.integers[i];
        break;
      case ValueType::kReal:
        r.reals[g] = v.reals[i];
        break;
      case ValueType::kText:
        r.texts[g] = v.texts[i];
        break;
      case ValueType::kNull:
        r.nulls[g] = 1;
        break;
    }
  }
  return r;
}

// MIN (want_max false) or MAX: keeps the position of the best row per group.
ValueVector Extreme(const ValueVector& argument, const std::vector<std::size_t>& group_of_row,
                    std::size_t groups, bool want_max) {
  constexpr Position kNone = static_cast<Position>(-1);
  std::vector<Position> best(groups, kNone);
  for (std::size_t i = 0; i < group_of_row.size(); ++i) {
    if (argument.nulls[i] != 0) continue;
    Position& b = best[group_of_row[i]];
    if (b == kNone || (want_max ? Less(argument, b, i) : Less(argument, i, b))) b = i;
  }
  return Pick(argument, best, kNone);
}

// Sorted non-NULL values of each group, by counting sort on the group
// and a stable sort within each group; returns the rank `q` value of each.
ValueVector Quantile(const ValueVector& argument, const std::vector<std::size_t>& group_of_row,
                     std::size_t groups, double q) {
  std::vector<std::size_t> offsets(groups + 1, 0);
  for (std::size_t i = 0; i < group_of_row.size(); ++i)
    if (argument.nulls[i] == 0) ++offsets[group_of_row[i] + 1];
  for (std::size_t g = 0; g < groups; ++g)
    offsets[g + 1] += offsets[g];
  std::vector<Position> sorted(offsets[groups]);
  std::vector<std::size_t> fill(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < group_of_row.size(); ++i)
    if (argument.nulls[i] == 0) sorted[fill[group_of_row[i]]++] = i;

  constexpr Position kNone = static_cast<Position>(-1);
  std::vector<Position> chosen(groups, kNone);
  q = std::clamp(q, 0.0, 1.0);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t n = offsets[g + 1] - offsets[g];
    if (n == 0) continue;
    auto begin = sorted.begin() + static_cast<std::ptrdiff_t>(offsets[g]);
    std::stable_sort(begin, begin + static_cast<std::ptrdiff_t>(n),
                     [&](Position a, Position b) { return Less(argument, a, b); });
    const auto rank = static_cast<std::size_t>(std::floor(q * static_cast<double>(n - 1)));
    chosen[g] = *(begin + static_cast<std::ptrdiff_t>(std::min(rank, n - 1)));
  }
  return Pick(argument, chosen, kNone);
}

// Gives the computed aggregate the declared type (the binder's).
ValueVector ToAggregateType(ValueVector v, const sql::Aggregate& aggregate) {
  if (v.type == aggregate.type) return v;
  if (v.type == ValueType::kNull || aggregate.type == ValueType::kNull) {
    for (std::uint8_t is_null : v.nulls)
      CLQ_CHECK(is_null != 0, "an aggregate typed NULL has a value");
    return ValueVector::AllNull(aggregate.type, v.size());
  }
  if (v.type == ValueType::kInteger && aggregate.type == ValueType::kReal) return ToReal(v);
  throw InternalError(std::string("an aggregate typed ") + TypeName(aggregate.type) + " computes " +
                      TypeName(v.type));
}

ValueVector ComputeUntyped(const sql::Aggregate& aggregate, const ValueVector* argument,
                           const std::vector<std::size_t>& group_of_row, std::size_t groups) {
  if (aggregate.function == AggregateFunction::kCountStar)
    return Count(nullptr, group_of_row, groups);
  CLQ_CHECK(argument != nullptr && argument->size() == group_of_row.size(),
            "aggregate argument missing or of another length");
  switch (aggregate.function) {
    case AggregateFunction::kCount:
      return Count(argument, group_of_row, groups);
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      if (argument->type == ValueType::kNull) return ValueVector::AllNull(ValueType::kNull, groups);
      if (argument->type == ValueType::kText)
        throw InvalidInputError("SUM and AVG of TEXT are not supported");
      return aggregate.function == AggregateFunction::kSum
                 ? Sum(*argument, group_of_row, groups)
                 : Average(*argument, group_of_row, groups);
    case AggregateFunction::kMin:
    case AggregateFunction::kMax:
      return Extreme(*argument, group_of_row, groups,
                     aggregate.function == AggregateFunction::kMax);
    case AggregateFunction::kMedian:
      return Quantile(*argument, group_of_row, groups, 0.5);
    case AggregateFunction::kQuantile:
      return Quantile(*argument, group_of_row, groups, aggregate.quantile);
    case AggregateFunction::kCountStar:
      break;
  }
  throw InternalError("unknown aggregate function");
}

}  // namespace

ValueVector ComputeAggregate(const sql::Aggregate& aggregate, const ValueVector* argument,
                             const std::vector<std::size_t>& group_of_row, std::size_t groups) {
  return ToAggregateType(ComputeUntyped(aggregate, argument, group_of_row, groups), aggregate);
}

}  // namespace clq::cpu_reference

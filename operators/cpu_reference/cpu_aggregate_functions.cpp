#include "operators/cpu_reference/cpu_aggregate_functions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/errors.hpp"

namespace clq::cpu_reference {
namespace {

using sql::AggregateFunction;
using sql::ValueType;

// Whether value i of `a` orders before value j of `b` (both not NULL, same type).
bool Less(const ValueVector& a, std::size_t i, const ValueVector& b, std::size_t j) {
  switch (a.type) {
    case ValueType::kInteger:
      return a.integers[i] < b.integers[j];
    case ValueType::kReal:
      return a.reals[i] < b.reals[j];
    case ValueType::kText:
      return a.texts[i] < b.texts[j];
    case ValueType::kNull:
      break;
  }
  return false;
}

void CopyValue(ValueVector& to, std::size_t i, const ValueVector& from, std::size_t j) {
  to.nulls[i] = from.nulls[j];
  switch (from.type) {
    case ValueType::kInteger:
      to.integers[i] = from.integers[j];
      break;
    case ValueType::kReal:
      to.reals[i] = from.reals[j];
      break;
    case ValueType::kText:
      to.texts[i] = from.texts[j];
      break;
    case ValueType::kNull:
      break;
  }
}

// Grows `v` to `n` rows; the new rows are NULL.
void GrowWithNulls(ValueVector& v, std::size_t n) {
  if (v.size() >= n) return;
  v.nulls.resize(n, 1);
  switch (v.type) {
    case ValueType::kInteger:
      v.integers.resize(n, 0);
      break;
    case ValueType::kReal:
      v.reals.resize(n, 0.0);
      break;
    case ValueType::kText:
      v.texts.resize(n);
      break;
    case ValueType::kNull:
      break;
  }
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

}  // namespace

AggregateState::AggregateState(const sql::Aggregate& aggregate) : aggregate_(aggregate) {
  if (aggregate.function != AggregateFunction::kCountStar) {
    CLQ_CHECK(aggregate.argument.has_value(), "aggregate without an argument");
    argument_type_ = aggregate.argument->type;
  }
  const bool sums = aggregate.function == AggregateFunction::kSum ||
                    aggregate.function == AggregateFunction::kAvg;
  if (sums && argument_type_ == ValueType::kText)
    throw InvalidInputError("SUM and AVG of TEXT are not supported");
  best_ = ValueVector::Make(argument_type_, 0);
  collected_ = ValueVector::Make(argument_type_, 0);
}

void AggregateState::Resize(std::size_t groups) {
  if (counts_.size() >= groups) return;
  counts_.resize(groups, 0);
  integer_sums_.resize(groups, 0);
  real_sums_.resize(groups, 0.0);
  has_value_.resize(groups, 0);
  if (aggregate_.function == AggregateFunction::kMin ||
      aggregate_.function == AggregateFunction::kMax)
    GrowWithNulls(best_, groups);
}

void AggregateState::Add(const ValueVector* argument, std::span<const std::size_t> group_of_row,
                         std::size_t groups) {
  Resize(groups);
  const std::size_t n = group_of_row.size();
  if (aggregate_.function == AggregateFunction::kCountStar) {
    for (std::size_t i = 0; i < n; ++i)
      ++counts_[group_of_row[i]];
    return;
  }
  CLQ_CHECK(argument != nullptr && argument->size() == n && argument->type == argument_type_,
            "aggregate argument missing, of another length or of another type");
  const std::uint8_t* is_null = argument->nulls.data();
  switch (aggregate_.function) {
    case AggregateFunction::kCount:
      for (std::size_t i = 0; i < n; ++i)
        counts_[group_of_row[i]] += is_null[i] == 0 ? 1 : 0;
      break;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      AddSum(*argument, group_of_row);
      break;
    case AggregateFunction::kMin:
    case AggregateFunction::kMax:
      AddExtreme(*argument, group_of_row);
      break;
    case AggregateFunction::kMedian:
    case AggregateFunction::kQuantile:
      for (std::size_t i = 0; i < n; ++i) {
        if (is_null[i] != 0) continue;
        AppendRow(collected_, *argument, i);
        collected_group_.push_back(group_of_row[i]);
      }
      break;
    case AggregateFunction::kCountStar:
      break;
  }
}

void AggregateState::AddSum(const ValueVector& argument,
                            std::span<const std::size_t> group_of_row) {
  const bool average = aggregate_.function == AggregateFunction::kAvg;
  for (std::size_t i = 0; i < group_of_row.size(); ++i) {
    if (argument.nulls[i] != 0) continue;
    const std::size_t g = group_of_row[i];
    has_value_[g] = 1;
    ++counts_[g];
    if (argument.type == ValueType::kReal) {
      real_sums_[g] += argument.reals[i];
    } else if (average) {
      real_sums_[g] += static_cast<double>(argument.integers[i]);
    } else {
      integer_sums_[g] += argument.integers[i];
    }
  }
}

void AggregateState::AddExtreme(const ValueVector& argument,
                                std::span<const std::size_t> group_of_row) {
  const bool want_max = aggregate_.function == AggregateFunction::kMax;
  for (std::size_t i = 0; i < group_of_row.size(); ++i) {
    if (argument.nulls[i] != 0) continue;
    const std::size_t g = group_of_row[i];
    const bool better = best_.nulls[g] != 0 ||
                        (want_max ? Less(best_, g, argument, i) : Less(argument, i, best_, g));
    if (better) CopyValue(best_, g, argument, i);
  }
}

// Sorts the collected values of each group (counting sort on the group, then
// a stable sort within it) and picks the one of rank floor(q * (n - 1)).
ValueVector AggregateState::FinishQuantile(std::size_t groups, double q) const {
  std::vector<std::size_t> offsets(groups + 1, 0);
  for (std::size_t g : collected_group_)
    ++offsets[g + 1];
  for (std::size_t g = 0; g < groups; ++g)
    offsets[g + 1] += offsets[g];
  std::vector<std::size_t> sorted(collected_group_.size());
  std::vector<std::size_t> fill(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < collected_group_.size(); ++i)
    sorted[fill[collected_group_[i]]++] = i;

  ValueVector r = ValueVector::AllNull(argument_type_, groups);
  q = std::clamp(q, 0.0, 1.0);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t n = offsets[g + 1] - offsets[g];
    if (n == 0) continue;
    const auto begin = sorted.begin() + static_cast<std::ptrdiff_t>(offsets[g]);
    std::stable_sort(
        begin, begin + static_cast<std::ptrdiff_t>(n),
        [&](std::size_t a, std::size_t b) { return Less(collected_, a, collected_, b); });
    const auto rank = static_cast<std::size_t>(std::floor(q * static_cast<double>(n - 1)));
    CopyValue(r, g, collected_, *(begin + static_cast<std::ptrdiff_t>(std::min(rank, n - 1))));
  }
  return r;
}

ValueVector AggregateState::Finish(std::size_t groups) {
  Resize(groups);
  ValueVector r;
  switch (aggregate_.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      r = ValueVector::Make(ValueType::kInteger, groups);
      std::copy(counts_.begin(), counts_.begin() + static_cast<std::ptrdiff_t>(groups),
                r.integers.begin());
      break;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg: {
      const bool average = aggregate_.function == AggregateFunction::kAvg;
      const ValueType type = average ? ValueType::kReal : argument_type_;
      r = ValueVector::AllNull(type, groups);
      if (type == ValueType::kNull) break;
      for (std::size_t g = 0; g < groups; ++g) {
        if (has_value_[g] == 0) continue;
        r.nulls[g] = 0;
        if (average) {
          r.reals[g] = real_sums_[g] / static_cast<double>(counts_[g]);
        } else if (type == ValueType::kInteger) {
          if (integer_sums_[g] > std::numeric_limits<std::int64_t>::max() ||
              integer_sums_[g] < std::numeric_limits<std::int64_t>::min())
            throw InvalidInputError("integer overflow");
          r.integers[g] = static_cast<std::int64_t>(integer_sums_[g]);
        } else {
          r.reals[g] = real_sums_[g];
        }
        // Infinities of both signs sum to NaN: NULL, as in SQLite.
        if (type == ValueType::kReal && std::isnan(r.reals[g])) {
          r.reals[g] = 0;
          r.nulls[g] = 1;
        }
      }
      break;
    }
    case AggregateFunction::kMin:
    case AggregateFunction::kMax:
      r = best_;
      break;
    case AggregateFunction::kMedian:
      r = FinishQuantile(groups, 0.5);
      break;
    case AggregateFunction::kQuantile:
      r = FinishQuantile(groups, aggregate_.quantile);
      break;
  }
  return ToAggregateType(std::move(r), aggregate_);
}

}  // namespace clq::cpu_reference

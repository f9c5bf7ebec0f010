#include "plan/streamed_groups.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"

namespace clq {

void EncodeKeyValue(const sql::Value& v, std::string& out) {
  out.push_back(static_cast<char>(v.type));
  switch (v.type) {
    case sql::ValueType::kNull:
      break;
    case sql::ValueType::kInteger:
      out.append(reinterpret_cast<const char*>(&v.integer), sizeof v.integer);
      break;
    case sql::ValueType::kReal: {
      const double d = v.real == 0 ? 0.0 : v.real;  // -0.0 is 0.0
      out.append(reinterpret_cast<const char*>(&d), sizeof d);
      break;
    }
    case sql::ValueType::kText: {
      const std::uint64_t size = v.text.size();
      out.append(reinterpret_cast<const char*>(&size), sizeof size);
      out.append(v.text);
      break;
    }
  }
}

namespace {

// REAL order of MIN and MAX: -0.0 below 0.0.
bool RealBelow(double a, double b) {
  return a < b || (a == b && std::signbit(a) && !std::signbit(b));
}

void Combine(std::uint32_t operation, std::int64_t& state, std::int64_t add) {
  switch (operation) {
    case VM_AGG_SUM_I:
      if (__builtin_add_overflow(state, add, &state)) throw InvalidInputError("integer overflow");
      break;
    case VM_AGG_MIN_I:
      state = std::min(state, add);
      break;
    case VM_AGG_MAX_I:
      state = std::max(state, add);
      break;
    case VM_AGG_MIN_R:
      if (RealBelow(std::bit_cast<double>(add), std::bit_cast<double>(state))) state = add;
      break;
    case VM_AGG_MAX_R:
      if (RealBelow(std::bit_cast<double>(state), std::bit_cast<double>(add))) state = add;
      break;
    default:  // VM_AGG_COUNT: the count is all
      break;
  }
}

}  // namespace

StreamedGroups::StreamedGroups(std::vector<std::uint32_t> operations, std::size_t keys)
    : operations_(std::move(operations)),
      keys_(keys),
      counts_(operations_.size()),
      states_(operations_.size()) {}

bool StreamedGroups::IsMergeable(std::uint32_t operation) {
  return operation == VM_AGG_COUNT || operation == VM_AGG_SUM_I || operation == VM_AGG_MIN_I ||
         operation == VM_AGG_MAX_I || operation == VM_AGG_MIN_R || operation == VM_AGG_MAX_R;
}

std::uint64_t StreamedGroups::BytesPerGroup() const {
  // Each key as a value (and once more encoded), two words per aggregate,
  // the index's node.
  return keys_.size() * (2 * sizeof(sql::Value) + 16) + operations_.size() * 16 + 64;
}

void StreamedGroups::Add(const std::vector<ResultColumn>& keys,
                         const std::vector<std::vector<std::int64_t>>& counts,
                         const std::vector<std::vector<std::int64_t>>& states, RowCount groups) {
  std::vector<sql::Value> tuple(keys.size());
  std::vector<std::int64_t> group_counts(operations_.size()), group_states(operations_.size());
  for (RowCount g = 0; g < groups; ++g) {
    for (std::size_t k = 0; k < keys.size(); ++k)
      tuple[k] = keys[k].ValueAt(g);
    for (std::size_t i = 0; i < operations_.size(); ++i) {
      group_counts[i] = counts[i][g];
      group_states[i] = states[i].empty() ? 0 : states[i][g];
    }
    AddGroup(tuple, group_counts, group_states);
  }
}

void StreamedGroups::Merge(const StreamedGroups& other) {
  CLQ_CHECK(other.operations_ == operations_ && other.keys_.size() == keys_.size(),
            "merging the groups of another GROUP BY");
  std::vector<sql::Value> tuple(keys_.size());
  std::vector<std::int64_t> group_counts(operations_.size()), group_states(operations_.size());
  for (RowCount g = 0; g < other.groups_; ++g) {
    for (std::size_t k = 0; k < keys_.size(); ++k)
      tuple[k] = other.keys_[k][g];
    for (std::size_t i = 0; i < operations_.size(); ++i) {
      group_counts[i] = other.counts_[i][g];
      group_states[i] = other.states_[i][g];
    }
    AddGroup(tuple, group_counts, group_states);
  }
}

void StreamedGroups::AddGroup(std::vector<sql::Value>& tuple,
                              const std::vector<std::int64_t>& counts,
                              const std::vector<std::int64_t>& states) {
  encoded_.clear();
  for (const sql::Value& key : tuple)
    EncodeKeyValue(key, encoded_);
  const auto [it, added] = index_.try_emplace(encoded_, groups_);
  if (added) {
    for (std::size_t k = 0; k < tuple.size(); ++k)
      keys_[k].push_back(std::move(tuple[k]));
    for (std::size_t i = 0; i < operations_.size(); ++i) {
      counts_[i].push_back(counts[i]);
      states_[i].push_back(states[i]);
    }
    ++groups_;
    return;
  }
  const RowCount at = it->second;
  for (std::size_t i = 0; i < operations_.size(); ++i) {
    if (counts[i] == 0) continue;
    if (counts_[i][at] == 0) {
      states_[i][at] = states[i];
    } else {
      Combine(operations_[i], states_[i][at], states[i]);
    }
    counts_[i][at] += counts[i];
  }
}

std::vector<std::vector<sql::Value>> StreamedGroups::AggregateValues(
    const std::vector<sql::Aggregate>& aggregates) const {
  using sql::AggregateFunction;
  std::vector<std::vector<sql::Value>> values(aggregates.size());
  for (std::size_t i = 0; i < aggregates.size(); ++i) {
    const sql::Aggregate& a = aggregates[i];
    const bool counts_rows =
        a.function == AggregateFunction::kCountStar || a.function == AggregateFunction::kCount;
    const bool real_state = operations_[i] == VM_AGG_MIN_R || operations_[i] == VM_AGG_MAX_R;
    values[i].reserve(groups_);
    for (RowCount g = 0; g < groups_; ++g) {
      const std::int64_t count = counts_[i][g];
      if (a.type == sql::ValueType::kNull) {
        values[i].push_back(counts_rows ? sql::Value::Integer(0) : sql::Value::Null());
      } else if (counts_rows) {
        values[i].push_back(sql::Value::Integer(count));
      } else if (count == 0) {
        values[i].push_back(sql::Value::Null());
      } else if (a.type == sql::ValueType::kInteger) {
        values[i].push_back(sql::Value::Integer(states_[i][g]));
      } else {
        double value =
            real_state ? std::bit_cast<double>(states_[i][g]) : static_cast<double>(states_[i][g]);
        if (a.function == AggregateFunction::kAvg) value /= static_cast<double>(count);
        // Infinities of both signs sum to NaN: NULL, as in SQLite.
        values[i].push_back(std::isnan(value) ? sql::Value::Null() : sql::Value::Real(value));
      }
    }
  }
  return values;
}

}  // namespace clq

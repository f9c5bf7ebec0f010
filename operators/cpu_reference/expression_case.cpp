#include "operators/cpu_reference/expression_case.hpp"

#include <numeric>
#include <string>

#include "common/errors.hpp"
#include "sql/like_pattern.hpp"
#include "sql/substring.hpp"

namespace clq::cpu_reference {
namespace {

using sql::Expr;
using sql::ValueType;

// The rows `positions` of a batch, as a batch of their own.
class SubBatch {
 public:
  SubBatch(const EvalContext& context, std::span<const Position> positions) {
    context_.rows = positions.size();
    context_.from = context.from;
    rows_.resize(context.table_rows.size());
    for (std::size_t s = 0; s < context.table_rows.size(); ++s) {
      if (!context.table_rows[s]) {
        context_.table_rows.emplace_back(std::nullopt);
        continue;
      }
      const std::span<const RowIndex> all = *context.table_rows[s];
      rows_[s].reserve(positions.size());
      for (const Position p : positions)
        rows_[s].push_back(all[p]);
      context_.table_rows.emplace_back(std::span<const RowIndex>(rows_[s]));
    }
    if (context.group_keys != nullptr) {
      for (const ValueVector& v : *context.group_keys)
        group_keys_.push_back(Gather(v, positions));
      context_.group_keys = &group_keys_;
    }
    if (context.aggregates != nullptr) {
      for (const ValueVector& v : *context.aggregates)
        aggregates_.push_back(Gather(v, positions));
      context_.aggregates = &aggregates_;
    }
  }
  SubBatch(const SubBatch&) = delete;
  SubBatch& operator=(const SubBatch&) = delete;

  const EvalContext& context() const { return context_; }

 private:
  EvalContext context_;
  std::vector<std::vector<RowIndex>> rows_;
  std::vector<ValueVector> group_keys_;
  std::vector<ValueVector> aggregates_;
};

bool IsTrue(const ValueVector& v, std::size_t i) {
  if (v.IsNull(i)) return false;
  switch (v.type) {
    case ValueType::kInteger:
      return v.integers[i] != 0;
    case ValueType::kReal:
      return v.reals[i] != 0.0;
    default:
      return false;
  }
}

// result[positions[i]] = values[i], values converted to the result's type.
void Scatter(ValueVector& result, const ValueVector& values, std::span<const Position> positions) {
  const ValueVector converted = result.type == ValueType::kReal ? ToReal(values) : values;
  if (converted.type == ValueType::kNull) return;  // the result's NULLs stand
  CLQ_CHECK(converted.type == result.type, "a CASE branch of another type than the CASE");
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const Position p = positions[i];
    result.nulls[p] = converted.nulls[i];
    switch (result.type) {
      case ValueType::kInteger:
        result.integers[p] = converted.integers[i];
        break;
      case ValueType::kReal:
        result.reals[p] = converted.reals[i];
        break;
      case ValueType::kText:
        result.texts[p] = converted.texts[i];
        break;
      case ValueType::kNull:
        break;
    }
  }
}

ValueVector EvaluateOn(const Expr& expr, const EvalContext& context,
                       std::span<const Position> positions) {
  if (positions.size() == context.rows) return Evaluate(expr, context);  // all, in order
  const SubBatch batch(context, positions);
  return Evaluate(expr, batch.context());
}

}  // namespace

ValueVector EvaluateCase(const Expr& expr, const EvalContext& context) {
  CLQ_CHECK(expr.children.size() % 2 == 1, "CASE without its ELSE");
  ValueVector result = ValueVector::AllNull(expr.type, context.rows);
  std::vector<Position> undecided(context.rows);
  std::iota(undecided.begin(), undecided.end(), Position{0});
  for (std::size_t i = 0; i + 1 < expr.children.size() && !undecided.empty(); i += 2) {
    const ValueVector condition = EvaluateOn(expr.children[i], context, undecided);
    std::vector<Position> taken;
    std::vector<Position> rest;
    for (std::size_t j = 0; j < undecided.size(); ++j)
      (IsTrue(condition, j) ? taken : rest).push_back(undecided[j]);
    if (!taken.empty()) Scatter(result, EvaluateOn(expr.children[i + 1], context, taken), taken);
    undecided = std::move(rest);
  }
  if (!undecided.empty())
    Scatter(result, EvaluateOn(expr.children.back(), context, undecided), undecided);
  return result;
}

ValueVector EvaluateLike(const Expr& expr, const EvalContext& context) {
  CLQ_CHECK(expr.children.size() == 1 && expr.constant.type == ValueType::kText,
            "LIKE without a value and a pattern");
  const ValueVector value = Evaluate(expr.children[0], context);
  ValueVector result = ValueVector::Make(ValueType::kInteger, context.rows);
  if (value.type == ValueType::kNull)
    return ValueVector::AllNull(ValueType::kInteger, context.rows);
  CLQ_CHECK(value.type == ValueType::kText, "LIKE of a number");
  for (std::size_t i = 0; i < context.rows; ++i) {
    result.nulls[i] = value.nulls[i];
    if (!value.IsNull(i))
      result.integers[i] = sql::LikeMatches(value.texts[i], expr.constant.text) != expr.negated;
  }
  return result;
}

ValueVector EvaluateSubstring(const Expr& expr, const EvalContext& context) {
  CLQ_CHECK(expr.children.size() >= 2 && expr.children.size() <= 3,
            "SUBSTRING without a value and its bounds");
  const ValueVector value = Evaluate(expr.children[0], context);
  if (value.type == ValueType::kNull) return ValueVector::AllNull(ValueType::kText, context.rows);
  CLQ_CHECK(value.type == ValueType::kText, "SUBSTRING of a number");
  const std::int64_t start = expr.children[1].constant.integer;
  std::optional<std::int64_t> length;
  if (expr.children.size() == 3) length = expr.children[2].constant.integer;
  ValueVector result = ValueVector::Make(ValueType::kText, context.rows);
  for (std::size_t i = 0; i < context.rows; ++i) {
    result.nulls[i] = value.nulls[i];
    if (!value.IsNull(i)) result.texts[i] = sql::Substring(value.texts[i], start, length);
  }
  return result;
}

}  // namespace clq::cpu_reference

// Expressions: binding, typing (see binder.hpp for the rules) and aggregate
// extraction.
#include <cstdint>
#include <limits>

#include "common/errors.hpp"
#include "sql/binder_internal.hpp"
#include "sql/expr_equality.hpp"
#include "sql/like_pattern.hpp"
#include "sql/substring.hpp"

namespace clq::sql::detail {
namespace {

constexpr double kTwoToThe63 = 9223372036854775808.0;

bool IsArithmetic(BinaryOp op) {
  return op == BinaryOp::kAdd || op == BinaryOp::kSubtract || op == BinaryOp::kMultiply ||
         op == BinaryOp::kDivide || op == BinaryOp::kModulo;
}

bool IsLogical(BinaryOp op) {
  return op == BinaryOp::kAnd || op == BinaryOp::kOr;
}

// TEXT compares with TEXT, numbers with numbers, and NULL with anything.
void CheckComparable(ValueType left, ValueType right, std::size_t position) {
  if (left == ValueType::kNull || right == ValueType::kNull) return;
  if ((left == ValueType::kText) == (right == ValueType::kText)) return;
  throw SqlError(
      std::string("cannot compare ") + ValueTypeName(left) + " with " + ValueTypeName(right),
      position);
}

ValueType ArithmeticType(ValueType left, ValueType right) {
  if (left == ValueType::kNull || right == ValueType::kNull) return ValueType::kNull;
  if (left == ValueType::kInteger && right == ValueType::kInteger) return ValueType::kInteger;
  return ValueType::kReal;
}

Expr Constant(Value value, std::size_t position) {
  return MakeConstant(std::move(value), position);
}

}  // namespace

ValueType CaseResultType(std::vector<Expr>& branches, std::size_t position) {
  bool text = false;
  bool integer = false;
  bool real = false;
  for (const Expr& branch : branches) {
    text = text || branch.type == ValueType::kText;
    integer = integer || branch.type == ValueType::kInteger;
    real = real || branch.type == ValueType::kReal;
  }
  if (text && (integer || real))
    throw SqlError("CASE branches mix TEXT with numbers, which is not supported", position);
  if (text) return ValueType::kText;
  // DATE with DATE; DECIMAL branches at the largest scale (INTEGER ones
  // scaled to it), or REAL where one branch is REAL: the rules of a
  // comparison's operands.
  TypeComparison(branches, position);
  real = false;
  integer = false;
  for (const Expr& branch : branches) {
    integer = integer || branch.type == ValueType::kInteger;
    real = real || branch.type == ValueType::kReal;
  }
  if (real) return ValueType::kReal;
  return integer ? ValueType::kInteger : ValueType::kNull;
}

Expr Binder::BindCase(const ast::Expr& expr, const ExprContext& context) {
  Expr bound;
  bound.kind = Expr::Kind::kCase;
  bound.position = expr.position;
  std::size_t i = 0;
  std::optional<Expr> operand;
  if (expr.has_operand) operand = BindExpr(expr.children[i++], context);
  const std::size_t pairs_end = expr.children.size() - (expr.has_else ? 1 : 0);
  // The THEN values and the ELSE, typed together below.
  std::vector<Expr> values;
  std::vector<Expr> conditions;
  for (; i + 1 < pairs_end; i += 2) {
    const ast::Expr& when = expr.children[i];
    Expr condition = BindExpr(when, context);
    if (operand) {
      // CASE x WHEN a: the condition x = a, DATE and DECIMAL operands
      // brought to one scale as for any comparison.
      CheckComparable(operand->type, condition.type, when.position);
      std::vector<Expr> pair = {*operand, std::move(condition)};
      TypeComparison(pair, when.position);
      condition =
          MakeBoolean(BinaryOp::kEqual, std::move(pair[0]), std::move(pair[1]), when.position);
    } else if (condition.type == ValueType::kText) {
      throw SqlError("a CASE WHEN condition cannot be TEXT", when.position);
    }
    conditions.push_back(std::move(condition));
    values.push_back(BindExpr(expr.children[i + 1], context));
  }
  values.push_back(expr.has_else ? BindExpr(expr.children.back(), context)
                                 : Constant(Value::Null(), expr.position));
  bound.type = CaseResultType(values, expr.op_position);
  for (std::size_t c = 0; c < conditions.size(); ++c) {
    bound.children.push_back(std::move(conditions[c]));
    bound.children.push_back(std::move(values[c]));
  }
  bound.children.push_back(std::move(values.back()));
  // A DATE or DECIMAL CASE: every value branch now has the same logical
  // type but for its precision; the CASE takes the widest.
  for (std::size_t c = 1; c <= bound.children.size(); c += 2) {
    const Expr& value = bound.children[c < bound.children.size() ? c : bound.children.size() - 1];
    if (value.type != bound.type || value.logical.kind == Logical::kNone) continue;
    if (bound.logical.kind == Logical::kNone || value.logical.precision > bound.logical.precision)
      bound.logical = value.logical;
  }
  return bound;
}

Expr Binder::BindLike(const ast::Expr& expr, const ExprContext& context) {
  Expr value = BindExpr(expr.children.at(0), context);
  Expr pattern = BindExpr(expr.children.at(1), context);
  const std::size_t position = expr.position;
  if (value.type != ValueType::kText && value.type != ValueType::kNull)
    throw SqlError(std::string("LIKE needs TEXT on its left, not ") + ValueTypeName(value.type),
                   expr.op_position);
  if (pattern.kind != Expr::Kind::kConstant ||
      (pattern.type != ValueType::kText && pattern.type != ValueType::kNull))
    throw SqlError("LIKE's pattern must be a string literal", expr.children[1].position);
  if (value.type == ValueType::kNull || pattern.type == ValueType::kNull)
    return Constant(Value::Null(), position);
  const std::string& text = pattern.constant.text;
  if (value.kind == Expr::Kind::kConstant) {
    return Constant(Value::Integer(LikeMatches(value.constant.text, text) != expr.negated),
                    position);
  }
  if (const std::optional<std::string> exact = LikeExactText(text)) {
    return MakeBoolean(expr.negated ? BinaryOp::kNotEqual : BinaryOp::kEqual, std::move(value),
                       Constant(Value::Text(*exact), position), position);
  }
  if (const std::optional<std::string> prefix = LikePrefix(text)) {
    // value >= P AND value < P's upper bound: every string starting with P.
    Expr at_least = MakeBoolean(BinaryOp::kGreaterEqual, value,
                                Constant(Value::Text(*prefix), position), position);
    Expr range = std::move(at_least);
    if (const std::optional<std::string> upper = PrefixUpperBound(*prefix)) {
      range = MakeBoolean(
          BinaryOp::kAnd, std::move(range),
          MakeBoolean(BinaryOp::kLess, value, Constant(Value::Text(*upper), position), position),
          position);
    }
    return expr.negated ? MakeNot(std::move(range)) : range;
  }
  Expr bound;
  bound.kind = Expr::Kind::kLike;
  bound.type = ValueType::kInteger;
  bound.negated = expr.negated;
  bound.constant = pattern.constant;
  bound.position = position;
  bound.children.push_back(std::move(value));
  return bound;
}

Expr Binder::BindExpr(const ast::Expr& expr, const ExprContext& context) {
  switch (expr.kind) {
    case ast::ExprKind::kLiteral: {
      Expr constant = Constant(expr.literal, expr.position);
      constant.logical = expr.logical;
      return constant;
    }
    case ast::ExprKind::kInterval:
      throw SqlError("an INTERVAL can only be added to or subtracted from a DATE", expr.position);
    case ast::ExprKind::kSubquery:
      return BindScalarSubquery(expr, context);
    case ast::ExprKind::kExtract:
      return ExtractFromDate(BindExpr(expr.children.at(0), context), expr.name, expr.position);
    case ast::ExprKind::kColumn:
      return BindColumn(expr, context);
    case ast::ExprKind::kUnary:
      return BindUnary(expr, context);
    case ast::ExprKind::kBinary:
      return BindBinary(expr, context);
    case ast::ExprKind::kBetween:
    case ast::ExprKind::kInList: {
      Expr bound;
      bound.kind =
          expr.kind == ast::ExprKind::kBetween ? Expr::Kind::kBetween : Expr::Kind::kInList;
      bound.type = ValueType::kInteger;
      bound.negated = expr.negated;
      bound.position = expr.position;
      for (const ast::Expr& child : expr.children)
        bound.children.push_back(BindExpr(child, context));
      TypeComparison(bound.children, expr.op_position);
      for (const Expr& child : bound.children)
        CheckComparable(bound.children.front().type, child.type, expr.op_position);
      return LowerSubstringComparison(std::move(bound));
    }
    case ast::ExprKind::kIsNull: {
      Expr bound;
      bound.kind = Expr::Kind::kUnary;
      bound.unary_op = expr.negated ? UnaryOp::kIsNotNull : UnaryOp::kIsNull;
      bound.type = ValueType::kInteger;
      bound.position = expr.position;
      bound.children.push_back(BindExpr(expr.children.at(0), context));
      // SUBSTRING of constant bounds is NULL exactly where its operand is.
      while (bound.children[0].kind == Expr::Kind::kSubstring) {
        Expr operand = std::move(bound.children[0].children[0]);
        bound.children[0] = std::move(operand);
      }
      return bound;
    }
    case ast::ExprKind::kCast: {
      Expr bound;
      bound.kind = Expr::Kind::kCast;
      bound.type = expr.cast_type;
      bound.position = expr.position;
      bound.children.push_back(BindExpr(expr.children.at(0), context));
      const NumericKind operand = NumericKindOf(bound.children[0]);
      if (expr.logical.kind != Logical::kNone || operand == NumericKind::kDate ||
          operand == NumericKind::kDecimal) {
        Expr cast = CastLogical(std::move(bound.children[0]), expr.cast_type, expr.logical,
                                expr.op_position);
        cast.position = expr.position;
        return cast;
      }
      if (bound.children[0].type == ValueType::kText) {
        throw SqlError(
            std::string("CAST of TEXT to ") + ValueTypeName(expr.cast_type) + " is not supported",
            expr.op_position);
      }
      return bound;
    }
    case ast::ExprKind::kFunction:
      return BindAggregate(expr, context);
    case ast::ExprKind::kCase:
      return BindCase(expr, context);
    case ast::ExprKind::kLike:
      return BindLike(expr, context);
    case ast::ExprKind::kSubstring:
      return BindSubstring(expr, context);
  }
  throw InternalError("unknown expression kind");
}

Expr Binder::BindUnary(const ast::Expr& expr, const ExprContext& context) {
  const ast::Expr& operand = expr.children.at(0);
  Expr child = BindExpr(operand, context);
  switch (expr.unary_op) {
    case ast::UnaryOperator::kPlus:
      // A no-op, as in SQLite; the position moves to the sign.
      child.position = expr.position;
      return child;
    case ast::UnaryOperator::kMinus: {
      if (child.type == ValueType::kText)
        throw SqlError("cannot apply '-' to TEXT", expr.op_position);
      if (child.kind == Expr::Kind::kConstant) {
        const Value& value = child.constant;
        constexpr std::int64_t kMinInteger = std::numeric_limits<std::int64_t>::min();
        if (value.type == ValueType::kInteger) {
          return Constant(value.integer == kMinInteger ? Value::Real(kTwoToThe63)
                                                       : Value::Integer(-value.integer),
                          expr.position);
        }
        if (value.type == ValueType::kReal && child.logical.is_decimal()) {
          Expr negated = Constant(Value::Real(-value.real), expr.position);
          negated.constant.integer = -value.integer;
          negated.logical = child.logical;
          return negated;
        }
        if (value.type == ValueType::kInteger && child.logical.kind != Logical::kNone &&
            value.integer != kMinInteger) {
          if (child.logical.is_date()) throw SqlError("cannot apply '-' to DATE", expr.op_position);
          Expr negated = Constant(Value::Integer(-value.integer), expr.position);
          negated.logical = child.logical;
          return negated;
        }
        if (value.type == ValueType::kReal) {
          // -9223372036854775808 is the one integer literal whose magnitude
          // only fits once negated.
          if (operand.kind == ast::ExprKind::kLiteral && operand.integer_literal &&
              value.real == kTwoToThe63)
            return Constant(Value::Integer(kMinInteger), expr.position);
          return Constant(Value::Real(-value.real), expr.position);
        }
        if (value.type == ValueType::kNull) return Constant(Value::Null(), expr.position);
      }
      if (child.logical.is_date()) throw SqlError("cannot apply '-' to DATE", expr.op_position);
      Expr bound;
      bound.kind = Expr::Kind::kUnary;
      bound.unary_op = UnaryOp::kNegate;
      bound.type = child.type;
      bound.logical = child.logical;
      bound.position = expr.position;
      bound.children.push_back(std::move(child));
      return bound;
    }
    case ast::UnaryOperator::kNot: {
      if (child.type == ValueType::kText)
        throw SqlError("cannot apply NOT to TEXT", expr.op_position);
      Expr bound = MakeNot(std::move(child));
      bound.position = expr.position;
      return bound;
    }
  }
  throw InternalError("unknown unary operator");
}

Expr Binder::BindBinary(const ast::Expr& expr, const ExprContext& context) {
  const ast::Expr& first = expr.children.at(0);
  const ast::Expr& second = expr.children.at(1);
  if (second.kind == ast::ExprKind::kInterval &&
      (expr.binary_op == BinaryOp::kAdd || expr.binary_op == BinaryOp::kSubtract)) {
    Expr date = ApplyInterval(BindExpr(first, context), second,
                              expr.binary_op == BinaryOp::kSubtract, expr.op_position);
    date.position = expr.position;
    return date;
  }
  if (first.kind == ast::ExprKind::kInterval && expr.binary_op == BinaryOp::kAdd) {
    Expr date = ApplyInterval(BindExpr(second, context), first, false, expr.op_position);
    date.position = expr.position;
    return date;
  }
  Expr bound;
  bound.kind = Expr::Kind::kBinary;
  bound.binary_op = expr.binary_op;
  bound.position = expr.position;
  bound.children.push_back(BindExpr(expr.children.at(0), context));
  bound.children.push_back(BindExpr(expr.children.at(1), context));
  const ValueType left = bound.children[0].type;
  const ValueType right = bound.children[1].type;
  const BinaryOp op = expr.binary_op;
  if (IsArithmetic(op) || IsLogical(op)) {
    if (left == ValueType::kText || right == ValueType::kText) {
      std::string message = "cannot apply ";
      if (IsLogical(op)) {
        message += BinaryOpName(op);
      } else {
        message.append("'").append(BinaryOpName(op)).append("'");
      }
      message.append(" to ").append(ValueTypeName(left)).append(" and ");
      message += ValueTypeName(right);
      throw SqlError(message, expr.op_position);
    }
    bound.type = IsLogical(op) ? ValueType::kInteger : ArithmeticType(left, right);
    if (IsArithmetic(op)) return TypeArithmetic(std::move(bound), expr.op_position);
  } else {
    TypeComparison(bound.children, expr.op_position);
    CheckComparable(bound.children[0].type, bound.children[1].type, expr.op_position);
    bound.type = ValueType::kInteger;
    return LowerSubstringComparison(std::move(bound));
  }
  return bound;
}

Expr Binder::BindAggregate(const ast::Expr& expr, const ExprContext& context) {
  const char* name = AggregateName(expr.function);
  if (context.in_aggregate) throw SqlError("aggregate functions cannot be nested", expr.position);
  if (!context.allow_aggregates) {
    throw SqlError(
        std::string("aggregate functions are not allowed in ") + ClauseName(context.clause),
        expr.position);
  }
  ExprContext inner = context;
  inner.in_aggregate = true;
  inner.allow_aggregates = false;

  Aggregate aggregate;
  aggregate.function = expr.function;
  aggregate.type = ValueType::kInteger;
  if (expr.function != AggregateFunction::kCountStar) {
    aggregate.argument = BindExpr(expr.children.at(0), inner);
    const ValueType type = aggregate.argument->type;
    switch (expr.function) {
      case AggregateFunction::kCountStar:
        break;
      case AggregateFunction::kCount:
        // SUBSTRING of constant bounds is NULL exactly where its operand is.
        while (aggregate.argument->kind == Expr::Kind::kSubstring) {
          Expr operand = std::move(aggregate.argument->children[0]);
          aggregate.argument = std::move(operand);
        }
        // COUNT of a TEXT value counts the rows where it is not NULL. The
        // engines read TEXT only in comparisons, so a nullable CHAR column
        // is counted as `column >= ''`: true for every string, NULL exactly
        // where the column is.
        // A LEFT JOIN's table's columns are nullable whatever it holds.
        if (type == ValueType::kText && aggregate.argument->kind == Expr::Kind::kColumnRef &&
            ((*sources_.at(aggregate.argument->source).schema)
                 .at(aggregate.argument->index)
                 .nullable ||
             select_.from.at(aggregate.argument->source).outer)) {
          const std::size_t position = aggregate.argument->position;
          aggregate.argument = MakeBoolean(BinaryOp::kGreaterEqual, std::move(*aggregate.argument),
                                           MakeConstant(Value::Text(""), position), position);
        }
        break;
      case AggregateFunction::kSum:
      case AggregateFunction::kAvg:
        if (type == ValueType::kText)
          throw SqlError(std::string("cannot compute ") + name + " of TEXT", expr.position);
        aggregate.type = expr.function == AggregateFunction::kAvg ? ValueType::kReal : type;
        break;
      case AggregateFunction::kMin:
      case AggregateFunction::kMax:
        aggregate.type = type;
        break;
      case AggregateFunction::kMedian:
      case AggregateFunction::kQuantile:
        if (type == ValueType::kText)
          throw SqlError(std::string(name) + " is not supported for TEXT", expr.position);
        aggregate.type = type;
        break;
    }
  }
  if (expr.function == AggregateFunction::kQuantile)
    aggregate.quantile = BindQuantile(expr.children.at(1), inner);
  TypeAggregate(aggregate, expr.position);

  std::size_t index = 0;
  while (index < select_.aggregates.size() &&
         !StructurallyEqual(select_.aggregates[index], aggregate))
    ++index;
  if (index == select_.aggregates.size()) select_.aggregates.push_back(std::move(aggregate));

  Expr ref;
  ref.kind = Expr::Kind::kAggregateRef;
  ref.index = index;
  ref.type = select_.aggregates[index].type;
  ref.logical = select_.aggregates[index].logical;
  ref.position = expr.position;
  return AverageOfDecimal(std::move(ref), select_.aggregates[index], expr.position);
}

double Binder::BindQuantile(const ast::Expr& q, const ExprContext& context) {
  const Expr bound = BindExpr(q, context);
  double value = -1;
  if (bound.kind == Expr::Kind::kConstant) {
    if (bound.type == ValueType::kInteger) value = static_cast<double>(bound.constant.integer);
    if (bound.type == ValueType::kReal) value = bound.constant.real;
  }
  if (!(value >= 0 && value <= 1)) {
    throw SqlError("QUANTILE's second argument must be a numeric constant between 0 and 1",
                   q.position);
  }
  return value;
}

}  // namespace clq::sql::detail

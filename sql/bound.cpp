#include "sql/bound.hpp"

#include "common/calendar.hpp"
#include "sql/sql_literal.hpp"

namespace clq::sql {

const char* UnaryOpName(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNegate:
      return "-";
    case UnaryOp::kNot:
      return "NOT";
    case UnaryOp::kIsNull:
      return "IS NULL";
    case UnaryOp::kIsNotNull:
      return "IS NOT NULL";
    case UnaryOp::kExtractYear:
      return "YEAR";
    case UnaryOp::kExtractMonth:
      return "MONTH";
    case UnaryOp::kExtractDay:
      return "DAY";
  }
  return "?";
}

bool IsExtract(UnaryOp op) {
  return op == UnaryOp::kExtractYear || op == UnaryOp::kExtractMonth || op == UnaryOp::kExtractDay;
}

std::int64_t ExtractFromDays(UnaryOp op, std::int64_t days) {
  const CivilDate civil = CivilFromDays(days);
  return op == UnaryOp::kExtractYear    ? civil.year
         : op == UnaryOp::kExtractMonth ? civil.month
                                        : civil.day;
}

Expr MakeConstant(Value value, std::size_t position) {
  Expr e;
  e.kind = Expr::Kind::kConstant;
  e.type = value.type;
  e.constant = std::move(value);
  e.position = position;
  return e;
}

Expr MakeBoolean(BinaryOp op, Expr left, Expr right, std::size_t position) {
  Expr e;
  e.kind = Expr::Kind::kBinary;
  e.type = ValueType::kInteger;
  e.binary_op = op;
  e.children = {std::move(left), std::move(right)};
  e.position = position;
  return e;
}

Expr MakeNot(Expr e) {
  Expr bound;
  bound.kind = Expr::Kind::kUnary;
  bound.unary_op = UnaryOp::kNot;
  bound.type = ValueType::kInteger;
  bound.position = e.position;
  bound.children.push_back(std::move(e));
  return bound;
}

void SplitChain(Expr expr, BinaryOp op, std::vector<Expr>& out) {
  if (expr.kind == Expr::Kind::kBinary && expr.binary_op == op) {
    SplitChain(std::move(expr.children[0]), op, out);
    SplitChain(std::move(expr.children[1]), op, out);
  } else {
    out.push_back(std::move(expr));
  }
}

Expr JoinChain(std::vector<Expr> parts, BinaryOp op) {
  Expr result = std::move(parts.at(0));
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t position = result.position;
    result = MakeBoolean(op, std::move(result), std::move(parts[i]), position);
  }
  return result;
}

BinaryOp MirroredComparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::kLess:
      return BinaryOp::kGreater;
    case BinaryOp::kLessEqual:
      return BinaryOp::kGreaterEqual;
    case BinaryOp::kGreater:
      return BinaryOp::kLess;
    case BinaryOp::kGreaterEqual:
      return BinaryOp::kLessEqual;
    default:
      return op;
  }
}

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSubtract:
      return "-";
    case BinaryOp::kMultiply:
      return "*";
    case BinaryOp::kDivide:
      return "/";
    case BinaryOp::kModulo:
      return "%";
    case BinaryOp::kEqual:
      return "=";
    case BinaryOp::kNotEqual:
      return "!=";
    case BinaryOp::kLess:
      return "<";
    case BinaryOp::kLessEqual:
      return "<=";
    case BinaryOp::kGreater:
      return ">";
    case BinaryOp::kGreaterEqual:
      return ">=";
    case BinaryOp::kAnd:
      return "AND";
    case BinaryOp::kOr:
      return "OR";
  }
  return "?";
}

const char* AggregateName(AggregateFunction f) {
  switch (f) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return "COUNT";
    case AggregateFunction::kSum:
      return "SUM";
    case AggregateFunction::kAvg:
      return "AVG";
    case AggregateFunction::kMin:
      return "MIN";
    case AggregateFunction::kMax:
      return "MAX";
    case AggregateFunction::kMedian:
      return "MEDIAN";
    case AggregateFunction::kQuantile:
      return "QUANTILE";
  }
  return "?";
}

namespace {

// Appends rather than concatenates: linear in the size of the tree, and it
// sidesteps GCC 12's false -Wrestrict on `"literal" + std::string&&`.
void Print(const Expr& expr, std::string& out, const LeafNamer* namer) {
  using Kind = Expr::Kind;
  switch (expr.kind) {
    case Kind::kColumnRef:
      if (namer != nullptr && *namer) {
        out += (*namer)(expr);
        return;
      }
      out.append("#").append(std::to_string(expr.source)).append(".");
      out += std::to_string(expr.index);
      return;
    case Kind::kConstant:
      out += SqlLiteral(expr.constant);
      return;
    case Kind::kUnary:
      if (IsExtract(expr.unary_op)) {
        out.append("EXTRACT(").append(UnaryOpName(expr.unary_op)).append(" FROM ");
        Print(expr.children.at(0), out, namer);
        out += ")";
        return;
      }
      out += "(";
      if (expr.unary_op == UnaryOp::kNegate || expr.unary_op == UnaryOp::kNot) {
        out += expr.unary_op == UnaryOp::kNegate ? "-" : "NOT ";
        Print(expr.children.at(0), out, namer);
      } else {
        Print(expr.children.at(0), out, namer);
        out.append(" ").append(UnaryOpName(expr.unary_op));
      }
      out += ")";
      return;
    case Kind::kBinary:
      out += "(";
      Print(expr.children.at(0), out, namer);
      out.append(" ").append(BinaryOpName(expr.binary_op)).append(" ");
      Print(expr.children.at(1), out, namer);
      out += ")";
      return;
    case Kind::kBetween:
      out += "(";
      Print(expr.children.at(0), out, namer);
      out += expr.negated ? " NOT BETWEEN " : " BETWEEN ";
      Print(expr.children.at(1), out, namer);
      out += " AND ";
      Print(expr.children.at(2), out, namer);
      out += ")";
      return;
    case Kind::kInList:
      out += "(";
      Print(expr.children.at(0), out, namer);
      out += expr.negated ? " NOT IN (" : " IN (";
      for (std::size_t i = 1; i < expr.children.size(); ++i) {
        if (i > 1) out += ", ";
        Print(expr.children[i], out, namer);
      }
      out += "))";
      return;
    case Kind::kCast:
      out += "CAST(";
      Print(expr.children.at(0), out, namer);
      out.append(" AS ").append(ValueTypeName(expr.type)).append(")");
      return;
    case Kind::kCase:
      out += "CASE";
      for (std::size_t i = 0; i + 1 < expr.children.size(); i += 2) {
        out += " WHEN ";
        Print(expr.children[i], out, namer);
        out += " THEN ";
        Print(expr.children[i + 1], out, namer);
      }
      out += " ELSE ";
      Print(expr.children.back(), out, namer);
      out += " END";
      return;
    case Kind::kSubstring:
      out += "SUBSTRING(";
      for (std::size_t i = 0; i < expr.children.size(); ++i) {
        if (i > 0) out += ", ";
        Print(expr.children[i], out, namer);
      }
      out += ")";
      return;
    case Kind::kTextOfCode:
      out += "TEXT_OF_CODE(";
      Print(expr.children.at(0), out, namer);
      out += ")";
      return;
    case Kind::kLike:
      out += "(";
      Print(expr.children.at(0), out, namer);
      out.append(expr.negated ? " NOT LIKE " : " LIKE ").append(SqlLiteral(expr.constant));
      out += ")";
      return;
    case Kind::kGroupRef:
      out.append("#g").append(std::to_string(expr.index));
      return;
    case Kind::kAggregateRef:
      out.append("#a").append(std::to_string(expr.index));
      return;
    case Kind::kOutputRef:
      out.append("#o").append(std::to_string(expr.index));
      return;
    case Kind::kSubqueryValue:
      out.append("#s").append(std::to_string(expr.index));
      return;
  }
}

}  // namespace

// Column references print as #source.column and references into the
// BoundSelect's lists as #g<i> (group key), #a<i> (aggregate), #o<i> (output),
// so that a plan printed by EXPLAIN shows exactly what the planner received.
std::string Expr::ToString() const {
  std::string text;
  Print(*this, text, nullptr);
  return text;
}

std::string Expr::ToString(const LeafNamer& namer) const {
  std::string text;
  Print(*this, text, &namer);
  return text;
}

}  // namespace clq::sql

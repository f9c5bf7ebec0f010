#include "sql/ast.hpp"

#include <cctype>

#include "common/calendar.hpp"
#include "sql/sql_literal.hpp"

namespace clq::sql::ast {
namespace {

void Print(const Expr& expr, std::string& out);

// A name as SQL reads it back: quoted unless it is a plain identifier.
void PrintName(const std::string& name, std::string& out) {
  bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (plain) {
    out += name;
    return;
  }
  out += '"';
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void PrintList(const std::vector<Expr>& exprs, std::size_t first, std::string& out) {
  for (std::size_t i = first; i < exprs.size(); ++i) {
    if (i > first) out += ", ";
    Print(exprs[i], out);
  }
}

// Appends rather than concatenates: linear in the size of the tree, and it
// sidesteps GCC 12's false -Wrestrict on `"literal" + std::string&&`.
void Print(const Expr& expr, std::string& out) {
  switch (expr.kind) {
    case ExprKind::kLiteral:
      if (expr.logical.is_date()) {
        out.append("DATE '").append(FormatDate(expr.literal.integer)).append("'");
        return;
      }
      if (expr.logical.is_decimal()) {
        // Its digits as written (the exact scaled value), not the nearest
        // double: the binder compares it exactly with DECIMAL columns.
        const std::int64_t value = expr.literal.integer;
        std::string digits = std::to_string(value < 0 ? -static_cast<std::uint64_t>(value)
                                                      : static_cast<std::uint64_t>(value));
        const std::size_t scale = expr.logical.scale;
        if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
        if (scale > 0) digits.insert(digits.size() - scale, ".");
        out.append(value < 0 ? "-" : "").append(digits);
        return;
      }
      out += SqlLiteral(expr.literal);
      return;
    case ExprKind::kInterval:
      out.append("INTERVAL '").append(std::to_string(expr.literal.integer)).append("' ");
      out += expr.interval_unit == IntervalUnit::kDay     ? "DAY"
             : expr.interval_unit == IntervalUnit::kMonth ? "MONTH"
                                                          : "YEAR";
      return;
    case ExprKind::kSubquery:
      out += "(";
      if (expr.subquery_kind == SubqueryKind::kIn) {
        Print(expr.children[0], out);
        out += expr.negated ? " NOT IN " : " IN ";
      } else if (expr.subquery_kind == SubqueryKind::kExists) {
        out += expr.negated ? "NOT EXISTS " : "EXISTS ";
      }
      out.append("(").append(ToString(*expr.subquery)).append("))");
      return;
    case ExprKind::kExtract:
      out.append("EXTRACT(").append(expr.name).append(" FROM ");
      Print(expr.children[0], out);
      out += ")";
      return;
    case ExprKind::kColumn:
      if (!expr.qualifier.empty()) {
        PrintName(expr.qualifier, out);
        out += '.';
      }
      PrintName(expr.name, out);
      return;
    case ExprKind::kUnary:
      out.append("(").append(UnaryOperatorName(expr.unary_op));
      if (expr.unary_op == UnaryOperator::kNot) out += " ";
      Print(expr.children[0], out);
      out += ")";
      return;
    case ExprKind::kBinary:
      out += "(";
      Print(expr.children[0], out);
      out.append(" ").append(BinaryOpName(expr.binary_op)).append(" ");
      Print(expr.children[1], out);
      out += ")";
      return;
    case ExprKind::kBetween:
      out += "(";
      Print(expr.children[0], out);
      out += expr.negated ? " NOT BETWEEN " : " BETWEEN ";
      Print(expr.children[1], out);
      out += " AND ";
      Print(expr.children[2], out);
      out += ")";
      return;
    case ExprKind::kInList:
      out += "(";
      Print(expr.children[0], out);
      out += expr.negated ? " NOT IN (" : " IN (";
      PrintList(expr.children, 1, out);
      out += "))";
      return;
    case ExprKind::kIsNull:
      out += "(";
      Print(expr.children[0], out);
      out += expr.negated ? " IS NOT NULL)" : " IS NULL)";
      return;
    case ExprKind::kCast:
      out += "CAST(";
      Print(expr.children[0], out);
      out.append(" AS ")
          .append(expr.logical.kind != Logical::kNone ? expr.logical.ToString()
                                                      : ValueTypeName(expr.cast_type))
          .append(")");
      return;
    case ExprKind::kSubstring:
      out += "SUBSTRING(";
      PrintList(expr.children, 0, out);
      out += ")";
      return;
    case ExprKind::kLike:
      out += "(";
      Print(expr.children[0], out);
      out += expr.negated ? " NOT LIKE " : " LIKE ";
      Print(expr.children[1], out);
      out += ")";
      return;
    case ExprKind::kCase: {
      out += "CASE";
      std::size_t i = 0;
      if (expr.has_operand) {
        out += " ";
        Print(expr.children[i++], out);
      }
      const std::size_t pairs_end = expr.children.size() - (expr.has_else ? 1 : 0);
      for (; i + 1 < pairs_end; i += 2) {
        out += " WHEN ";
        Print(expr.children[i], out);
        out += " THEN ";
        Print(expr.children[i + 1], out);
      }
      if (expr.has_else) {
        out += " ELSE ";
        Print(expr.children.back(), out);
      }
      out += " END";
      return;
    }
    case ExprKind::kFunction:
      if (expr.function == AggregateFunction::kCountStar) {
        out += "COUNT(*)";
        return;
      }
      out.append(AggregateName(expr.function)).append(expr.distinct ? "(DISTINCT " : "(");
      PrintList(expr.children, 0, out);
      out += ")";
      return;
  }
}

std::string Join(const std::vector<Expr>& exprs, std::size_t first) {
  std::string text;
  PrintList(exprs, first, text);
  return text;
}

std::string TableRefToString(const TableRef& ref) {
  std::string text;
  if (ref.subquery) {
    text = "(" + ToString(*ref.subquery) + ")";
  } else {
    PrintName(ref.name, text);
  }
  if (ref.alias) {
    text += " AS ";
    PrintName(*ref.alias, text);
  }
  if (!ref.column_aliases.empty()) {
    text += "(";
    for (std::size_t c = 0; c < ref.column_aliases.size(); ++c) {
      if (c > 0) text += ", ";
      PrintName(ref.column_aliases[c], text);
    }
    text += ")";
  }
  return text;
}

}  // namespace

const char* UnaryOperatorName(UnaryOperator op) {
  switch (op) {
    case UnaryOperator::kPlus:
      return "+";
    case UnaryOperator::kMinus:
      return "-";
    case UnaryOperator::kNot:
      return "NOT";
  }
  return "?";
}

std::string ToString(const Expr& expr) {
  std::string text;
  Print(expr, text);
  return text;
}

std::string ToString(const Statement& statement) {
  std::string text = statement.explain ? "EXPLAIN " : "";
  for (std::size_t i = 0; i < statement.with.size(); ++i) {
    const CommonTable& table = statement.with[i];
    text += i == 0 ? "WITH " : ", ";
    text += table.name;
    if (!table.column_aliases.empty()) {
      text += "(";
      for (std::size_t c = 0; c < table.column_aliases.size(); ++c)
        text += (c > 0 ? ", " : "") + table.column_aliases[c];
      text += ")";
    }
    text += " AS (" + ToString(*table.select) + ")";
  }
  if (!statement.with.empty()) text += " ";
  return text + ToString(statement.select);
}

std::string ToString(const Select& select) {
  std::string text = "SELECT ";
  if (select.distinct) text += "DISTINCT ";
  for (std::size_t i = 0; i < select.items.size(); ++i) {
    const SelectItem& item = select.items[i];
    if (i > 0) text += ", ";
    switch (item.kind) {
      case SelectItem::Kind::kStar:
        text += "*";
        break;
      case SelectItem::Kind::kTableStar:
        PrintName(item.qualifier, text);
        text += ".*";
        break;
      case SelectItem::Kind::kExpr:
        text += ToString(item.expr);
        break;
    }
    if (item.alias) {
      text += " AS ";
      PrintName(*item.alias, text);
    }
  }
  for (std::size_t i = 0; i < select.from.size(); ++i) {
    const FromItem& item = select.from[i];
    if (i == 0) {
      text += " FROM " + TableRefToString(item.table);
    } else if (item.on) {
      text += std::string(item.left_outer ? " LEFT" : "") + " JOIN " +
              TableRefToString(item.table) + " ON " + ToString(*item.on);
    } else {
      text += ", " + TableRefToString(item.table);
    }
  }
  if (select.where) text += " WHERE " + ToString(*select.where);
  if (!select.group_by.empty()) text += " GROUP BY " + Join(select.group_by, 0);
  if (select.having) text += " HAVING " + ToString(*select.having);
  for (std::size_t i = 0; i < select.order_by.size(); ++i) {
    text += i == 0 ? " ORDER BY " : ", ";
    text += ToString(select.order_by[i].expr);
    if (select.order_by[i].descending) text += " DESC";
  }
  if (select.limit) text += " LIMIT " + ToString(*select.limit);
  if (select.offset) text += " OFFSET " + ToString(*select.offset);
  return text;
}

}  // namespace clq::sql::ast

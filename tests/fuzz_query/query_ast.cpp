#include "tests/fuzz_query/query_ast.hpp"

#include <algorithm>

namespace clq::fuzz_query {

std::string Expr::Sql() const {
  switch (kind) {
    case Kind::kLeaf:
      return text;
    case Kind::kPrefix:
      return "(" + text + kids[0].Sql() + ")";
    case Kind::kPostfix:
      return "(" + kids[0].Sql() + text + ")";
    case Kind::kBinary:
      return "(" + kids[0].Sql() + " " + text + " " + kids[1].Sql() + ")";
    case Kind::kBetween:
      return "(" + kids[0].Sql() + " " + text + "BETWEEN " + kids[1].Sql() + " AND " +
             kids[2].Sql() + ")";
    case Kind::kIn: {
      std::string list;
      for (std::size_t i = 1; i < kids.size(); ++i)
        list += (i > 1 ? ", " : "") + kids[i].Sql();
      return "(" + kids[0].Sql() + " " + text + "IN (" + list + "))";
    }
    case Kind::kCall: {
      std::string args;
      for (std::size_t i = 0; i < kids.size(); ++i)
        args += (i > 0 ? ", " : "") + kids[i].Sql();
      return text + "(" + (kids.empty() ? "*" : args) + ")";
    }
    case Kind::kCast:
      return "CAST(" + kids[0].Sql() + " AS " + text + ")";
    case Kind::kCase: {
      const bool simple = text.find('S') != std::string::npos;
      const bool has_else = text.find('E') != std::string::npos;
      std::string sql = "CASE";
      std::size_t i = 0;
      if (simple && !kids.empty()) sql += " " + kids[i++].Sql();
      const std::size_t pairs_end = kids.size() - (has_else && !kids.empty() ? 1 : 0);
      for (; i + 2 <= pairs_end; i += 2)
        sql += " WHEN " + kids[i].Sql() + " THEN " + kids[i + 1].Sql();
      if (has_else && !kids.empty()) sql += " ELSE " + kids.back().Sql();
      return sql + " END";
    }
    case Kind::kLike:
      return "(" + kids[0].Sql() + " " + text + "LIKE " + kids[1].Sql() + ")";
  }
  return "?";
}

namespace {

std::string Conjunction(const std::vector<Expr>& conjuncts) {
  std::string sql;
  for (std::size_t i = 0; i < conjuncts.size(); ++i)
    sql += (i > 0 ? " AND " : "") + conjuncts[i].Sql();
  return sql;
}

}  // namespace

std::string Query::Sql() const {
  std::string sql = distinct ? "SELECT DISTINCT " : "SELECT ";
  for (std::size_t i = 0; i < items.size(); ++i)
    sql += (i > 0 ? ", " : "") + items[i].Sql() + " AS c" + std::to_string(i);
  sql += " FROM ";
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (i > 0 && i + 1 == from.size() && left_join_on) {
      sql += " LEFT JOIN " + from[i] + " ON " + left_join_on->Sql();
    } else {
      sql += (i > 0 ? ", " : "") + from[i];
    }
  }
  if (!where.empty()) sql += " WHERE " + Conjunction(where);
  for (std::size_t i = 0; i < group_by.size(); ++i)
    sql += (i == 0 ? " GROUP BY " : ", ") + group_by[i].Sql();
  if (!having.empty()) sql += " HAVING " + Conjunction(having);
  for (std::size_t i = 0; i < order_by.size(); ++i)
    sql += (i == 0 ? " ORDER BY " : ", ") + order_by[i].key.Sql() +
           (order_by[i].descending ? " DESC" : "");
  if (limit) sql += " LIMIT " + std::to_string(*limit) + " OFFSET " + std::to_string(offset);
  return sql;
}

bool Query::Ordered() const {
  std::vector<bool> covered(items.size(), false);
  for (const OrderTerm& term : order_by) {
    if (term.key.kind != Expr::Kind::kLeaf) return false;
    const std::string& t = term.key.text;
    if (t.empty() || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    const std::size_t position = std::stoul(t);
    if (position == 0 || position > items.size()) return false;
    covered[position - 1] = true;
    if (std::all_of(covered.begin(), covered.end(), [](bool c) { return c; })) return true;
  }
  return items.empty();
}

}  // namespace clq::fuzz_query

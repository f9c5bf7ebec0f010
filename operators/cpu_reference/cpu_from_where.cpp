#include "operators/cpu_reference/cpu_from_where.hpp"

#include <algorithm>
#include <optional>

#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_filter.hpp"
#include "operators/cpu_reference/expression_eval.hpp"
#include "operators/value_range.hpp"

namespace clq::cpu_reference {
namespace {

using sql::Expr;

struct Conjunct {
  const Expr* expr = nullptr;
  std::vector<std::size_t> sources;  // FROM indices it reads
  // For `a = b`: the sources of each side, to recognise join keys.
  std::vector<std::size_t> left_sources;
  std::vector<std::size_t> right_sources;
  // Can raise an overflow: with joins, it filters the joined rows after
  // every other conjunct, as the device plan does (plan/query_plan.cpp), so
  // that rows the joins drop never raise.
  bool after_joins = false;
  bool applied = false;
};

Conjunct Analyze(const Expr& expr, bool joins, const ColumnRangeFn& column_ranges) {
  Conjunct c;
  c.expr = &expr;
  c.after_joins = joins && MayOverflow(expr, column_ranges);
  c.sources = ReferencedSources(expr);
  if (expr.kind == Expr::Kind::kBinary && expr.binary_op == sql::BinaryOp::kEqual &&
      expr.children.size() == 2) {
    c.left_sources = ReferencedSources(expr.children[0]);
    c.right_sources = ReferencedSources(expr.children[1]);
  }
  return c;
}

bool HashableTypes(const Expr& a, const Expr& b) {
  return a.type == b.type &&
         (a.type == sql::ValueType::kInteger || a.type == sql::ValueType::kText);
}

// The conjunct as a key joining `joined` tables with table `next`, if it is one.
std::optional<JoinKey> AsJoinKey(const Conjunct& c, const std::vector<bool>& joined,
                                 std::size_t next) {
  if (c.applied || c.left_sources.size() != 1 || c.right_sources.size() != 1) return std::nullopt;
  const Expr& left = c.expr->children[0];
  const Expr& right = c.expr->children[1];
  if (!HashableTypes(left, right)) return std::nullopt;
  const std::size_t l = c.left_sources[0];
  const std::size_t r = c.right_sources[0];
  if (r == next && l != next && joined[l]) return JoinKey{&left, &right};
  if (l == next && r != next && joined[r]) return JoinKey{&right, &left};
  return std::nullopt;
}

bool AllJoined(const Conjunct& c, const std::vector<bool>& joined) {
  for (std::size_t s : c.sources)
    if (!joined[s]) return false;
  return true;
}

// The table to join next: the first one connected by an equality, else the
// first one not joined yet.
std::size_t ChooseNext(const std::vector<Conjunct>& conjuncts, const std::vector<bool>& joined) {
  std::optional<std::size_t> first_unjoined;
  for (std::size_t t = 0; t < joined.size(); ++t) {
    if (joined[t]) continue;
    if (!first_unjoined) first_unjoined = t;
    for (const Conjunct& c : conjuncts)
      if (AsJoinKey(c, joined, t)) return t;
  }
  CLQ_CHECK(first_unjoined.has_value(), "no table left to join");
  return *first_unjoined;
}

}  // namespace

JoinedRows EvaluateFromWhere(const sql::BoundSelect& select, std::uint64_t host_memory) {
  const std::vector<sql::TableRef>& from = select.from;
  std::vector<const Expr*> parts;
  if (select.where) SplitConjuncts(*select.where, parts);
  std::vector<Conjunct> conjuncts;
  const ColumnRangeFn column_ranges = TableColumnRanges(select);
  for (const Expr* part : parts) {
    conjuncts.push_back(Analyze(*part, from.size() > 1, column_ranges));
    for (std::size_t s : conjuncts.back().sources)
      CLQ_CHECK(s < from.size(), "column reference to a source outside FROM");
  }

  if (from.empty()) {
    JoinedRows one_row;
    one_row.size = 1;
    for (const Conjunct& c : conjuncts)
      one_row = FilterRows(from, one_row, *c.expr);
    return one_row;
  }

  // Filter each table by the conjuncts that read only it.
  std::vector<JoinedRows> tables;
  for (std::size_t s = 0; s < from.size(); ++s)
    tables.push_back(JoinedRows::AllRowsOf(from, s));
  for (Conjunct& c : conjuncts) {
    // A conjunct the WHERE implies (sql/common_conjuncts.hpp) is no
    // condition of its table's own: it runs with the joins, after the keys.
    if (c.sources.size() > 1 || c.after_joins || c.expr->implied) continue;
    const std::size_t s = c.sources.empty() ? 0 : c.sources[0];
    if (from[s].outer) continue;  // NULL-extended rows must meet it too: after the join
    tables[s] = FilterRows(from, tables[s], *c.expr);
    c.applied = true;
  }
  // A LEFT JOIN's ON: conjuncts of its own table filter it first; equalities
  // with the tables before it are hash keys; the rest is tested per pair.
  std::vector<std::vector<Conjunct>> on_conjuncts(from.size());
  bool any_outer = false;
  for (std::size_t s = 0; s < from.size(); ++s) {
    if (!from[s].outer) continue;
    any_outer = true;
    CLQ_CHECK(s > 0 && from[s].on.has_value(), "a LEFT JOIN without a left side or ON");
    std::vector<const Expr*> on_parts;
    SplitConjuncts(*from[s].on, on_parts);
    for (const Expr* part : on_parts) {
      Conjunct c = Analyze(*part, false, column_ranges);
      if (c.sources.size() == 1 && c.sources[0] == s) {
        tables[s] = FilterRows(from, tables[s], *c.expr);
        continue;
      }
      on_conjuncts[s].push_back(std::move(c));
    }
  }

  // Join keys that can overflow are computed on every row its own filters
  // pass, whatever the join order (plan/query_plan.cpp does the same): the
  // sides of an equality of two integer expressions of one table each (an
  // INTEGER compared with a REAL is no join key there, only a filter of the
  // joined rows).
  // A LEFT JOIN's ON equalities likewise (its table's own rows are those
  // its ON's conditions on it alone pass).
  if (from.size() > 1) {
    std::vector<const Conjunct*> equalities;
    for (const Conjunct& c : conjuncts)
      equalities.push_back(&c);
    for (const std::vector<Conjunct>& on : on_conjuncts)
      for (const Conjunct& c : on)
        equalities.push_back(&c);
    for (const Conjunct* equality : equalities) {
      const Conjunct& c = *equality;
      if (c.left_sources.size() != 1 || c.right_sources.size() != 1 ||
          c.left_sources[0] == c.right_sources[0] ||
          c.expr->children[0].type != sql::ValueType::kInteger ||
          c.expr->children[1].type != sql::ValueType::kInteger)
        continue;
      for (std::size_t side = 0; side < 2; ++side) {
        const Expr& key = c.expr->children[side];
        if (key.type != sql::ValueType::kInteger || !MayOverflow(key, column_ranges)) continue;
        const JoinedRows& rows = tables[side == 0 ? c.left_sources[0] : c.right_sources[0]];
        for (std::size_t begin = 0; begin < rows.size; begin += kBatchRows)
          Evaluate(key, ContextOf(from, rows, begin, std::min(kBatchRows, rows.size - begin)));
      }
    }
  }

  std::vector<bool> joined(from.size(), false);
  joined[0] = true;
  JoinedRows rows = std::move(tables[0]);
  for (std::size_t step = 1; step < from.size(); ++step) {
    // With a LEFT JOIN, tables join in statement order: each LEFT JOIN keeps
    // the rows of every table before it.
    const std::size_t next = any_outer ? step : ChooseNext(conjuncts, joined);
    std::vector<JoinKey> keys;
    if (from[next].outer) {
      std::vector<const Expr*> conditions;
      for (Conjunct& c : on_conjuncts[next]) {
        if (std::optional<JoinKey> key = AsJoinKey(c, joined, next)) {
          keys.push_back(*key);
        } else {
          conditions.push_back(c.expr);
        }
      }
      rows = LeftJoin(from, rows, tables[next], keys, conditions, host_memory);
    } else {
      for (Conjunct& c : conjuncts) {
        if (std::optional<JoinKey> key = AsJoinKey(c, joined, next)) {
          keys.push_back(*key);
          c.applied = true;
        }
      }
      rows = keys.empty() ? CrossJoin(rows, tables[next], host_memory)
                          : HashJoin(from, rows, tables[next], keys, host_memory);
    }
    joined[next] = true;
    for (Conjunct& c : conjuncts) {
      if (c.applied || c.after_joins || !AllJoined(c, joined)) continue;
      rows = FilterRows(from, rows, *c.expr);
      c.applied = true;
    }
  }
  for (Conjunct& c : conjuncts) {
    if (c.applied) continue;
    rows = FilterRows(from, rows, *c.expr);
    c.applied = true;
  }
  for (const Conjunct& c : conjuncts)
    CLQ_CHECK(c.applied, "a WHERE conjunct was not applied");
  return rows;
}

}  // namespace clq::cpu_reference

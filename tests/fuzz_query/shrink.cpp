#include "tests/fuzz_query/shrink.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace clq::fuzz_query {
namespace {

// Every expression of a query, in a fixed order (select items, WHERE,
// GROUP BY, HAVING, ORDER BY), depth first.
void ForEachExpr(Query& q, const std::function<void(Expr&)>& visit) {
  std::function<void(Expr&)> walk = [&](Expr& e) {
    visit(e);
    for (Expr& kid : e.kids)
      walk(kid);
  };
  for (Expr& e : q.items)
    walk(e);
  for (Expr& e : q.where)
    walk(e);
  for (Expr& e : q.group_by)
    walk(e);
  for (Expr& e : q.having)
    walk(e);
  for (OrderTerm& t : q.order_by)
    walk(t.key);
}

bool IsPosition(const Expr& e) {
  return e.kind == Expr::Kind::kLeaf && !e.text.empty() &&
         std::all_of(e.text.begin(), e.text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// With a LIMIT, ORDER BY must cover every output, so that ties cannot
// change which rows are kept.
bool Valid(const Query& q) {
  if (q.items.empty() || q.from.empty()) return false;
  if (!q.limit) return true;
  for (std::size_t i = 0; i < q.items.size(); ++i) {
    const std::string position = std::to_string(i + 1);
    if (std::none_of(q.order_by.begin(), q.order_by.end(), [&](const OrderTerm& t) {
          return IsPosition(t.key) && t.key.text == position;
        }))
      return false;
  }
  return true;
}

// Smaller constants for a leaf: 0, 1, half of an integer.
std::vector<std::string> SmallerConstants(const std::string& text) {
  std::string digits = text;
  digits.erase(std::remove_if(digits.begin(), digits.end(),
                              [](char c) { return c == '(' || c == ')' || c == '-'; }),
               digits.end());
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {};
  std::vector<std::string> smaller;
  for (const char* v : {"0", "1"})
    if (text != v) smaller.push_back(v);
  if (digits.size() <= 18) {
    const long long half = std::stoll(digits) / 2;
    if (half > 1)
      smaller.push_back(text.find('-') != std::string::npos ? "(-" + std::to_string(half) + ")"
                                                            : std::to_string(half));
  }
  return smaller;
}

std::vector<Query> Candidates(const Query& q) {
  std::vector<Query> out;
  auto add = [&](Query c) {
    if (Valid(c)) out.push_back(std::move(c));
  };
  if (q.distinct) {
    Query c = q;
    c.distinct = false;
    add(c);
  }
  if (q.limit) {
    Query c = q;
    c.limit.reset();
    c.offset = 0;
    add(c);
    if (q.offset != 0) {
      c = q;
      c.offset = 0;
      add(c);
    }
  }
  for (std::size_t i = 0; i < q.from.size(); ++i) {
    Query c = q;
    c.from.erase(c.from.begin() + static_cast<std::ptrdiff_t>(i));
    if (i + 1 == q.from.size()) c.left_join_on.reset();
    add(c);
  }
  if (q.left_join_on) {
    Query c = q;
    c.left_join_on.reset();
    c.where.push_back(*q.left_join_on);  // an inner join of the same tables
    add(c);
  }
  for (std::size_t i = 0; i < q.items.size(); ++i) {
    Query c = q;
    c.items.erase(c.items.begin() + static_cast<std::ptrdiff_t>(i));
    std::vector<OrderTerm> terms;
    for (OrderTerm t : c.order_by) {
      if (IsPosition(t.key)) {
        const std::size_t p = std::stoul(t.key.text);
        if (p == i + 1) continue;
        if (p > i + 1) t.key.text = std::to_string(p - 1);
      }
      terms.push_back(t);
    }
    c.order_by = terms;
    add(c);
  }
  auto drop_each = [&](auto member) {
    for (std::size_t i = 0; i < (q.*member).size(); ++i) {
      Query c = q;
      (c.*member).erase((c.*member).begin() + static_cast<std::ptrdiff_t>(i));
      add(c);
    }
  };
  drop_each(&Query::where);
  drop_each(&Query::having);
  drop_each(&Query::group_by);
  drop_each(&Query::order_by);
  // Expressions: each node replaced by one of its operands, a constant, or
  // (a constant) a smaller one.
  Query counter = q;
  std::size_t nodes = 0;
  ForEachExpr(counter, [&](Expr&) { ++nodes; });
  for (std::size_t n = 0; n < nodes; ++n) {
    Query probe = q;
    const Expr* node = nullptr;
    std::size_t index = 0;
    ForEachExpr(probe, [&](Expr& e) {
      if (index++ == n) node = &e;
    });
    std::vector<Expr> replacements;
    for (const Expr& kid : node->kids)
      replacements.push_back(kid);
    if (node->kind != Expr::Kind::kLeaf) {
      replacements.push_back(Expr::Leaf("1"));
      replacements.push_back(Expr::Leaf("NULL"));
    } else if (!IsPosition(*node)) {
      for (const std::string& s : SmallerConstants(node->text))
        replacements.push_back(Expr::Leaf(s));
    }
    if (node->kind == Expr::Kind::kIn && node->kids.size() > 2) {
      for (std::size_t k = 1; k < node->kids.size(); ++k) {
        Expr fewer = *node;
        fewer.kids.erase(fewer.kids.begin() + static_cast<std::ptrdiff_t>(k));
        replacements.push_back(fewer);
      }
    }
    for (const Expr& r : replacements) {
      Query c = q;
      index = 0;
      ForEachExpr(c, [&](Expr& e) {
        if (index++ == n) e = r;
      });
      add(c);
    }
  }
  return out;
}

}  // namespace

Query Shrink(const Query& failing, const std::function<bool(const Query&)>& still_fails,
             std::size_t max_checks) {
  Query best = failing;
  std::size_t checks = 0;
  for (bool progress = true; progress && checks < max_checks;) {
    progress = false;
    for (const Query& candidate : Candidates(best)) {
      if (checks++ >= max_checks) break;
      if (candidate.Sql().size() >= best.Sql().size()) continue;
      if (still_fails(candidate)) {
        best = candidate;
        progress = true;
        break;
      }
    }
  }
  return best;
}

}  // namespace clq::fuzz_query

// SUBSTRING: binding, and its comparisons with string constants rewritten
// as LIKE patterns and comparisons of its operand (which devices run; they
// have no string values to cut).
#include "common/errors.hpp"
#include "common/types.hpp"
#include "sql/binder_internal.hpp"
#include "sql/like_pattern.hpp"
#include "sql/substring.hpp"

namespace clq::sql {
namespace {

Expr TextConstant(std::string text, std::size_t position) {
  return MakeConstant(Value::Text(std::move(text)), position);
}

// `x >= ''`: true for every string, NULL where x is NULL.
Expr Known(const Expr& x) {
  return MakeBoolean(BinaryOp::kGreaterEqual, x, TextConstant("", x.position), x.position);
}

// x LIKE `pattern`; none where the pattern would take more '_' than any
// stored string has bytes (the comparison is then left to the host).
std::optional<Expr> Like(const Expr& x, std::uint64_t blanks_before, const std::string& text,
                         std::uint64_t blanks_after, bool open_end) {
  if (blanks_before > kMaxCharWidth || blanks_after > kMaxCharWidth) return std::nullopt;
  std::string pattern(blanks_before, '_');
  pattern += text;
  pattern.append(blanks_after, '_');
  if (open_end) pattern += '%';
  Expr bound;
  bound.kind = Expr::Kind::kLike;
  bound.type = ValueType::kInteger;
  bound.constant = Value::Text(std::move(pattern));
  bound.position = x.position;
  bound.children.push_back(x);
  return bound;
}

bool HasWildcard(std::string_view text) {
  return text.find_first_of("%_") != std::string_view::npos;
}

// Whether x holds `text` from byte `begin` on (and may go on after it).
std::optional<Expr> HoldsAt(const Expr& x, std::uint64_t begin, const std::string& text) {
  // One LIKE instruction on devices, where a range takes two comparisons.
  if (!HasWildcard(text)) return Like(x, begin, text, 0, true);
  if (begin == 0) {
    // A range of the bytes, which reads every byte of `text` literally.
    Expr range =
        MakeBoolean(BinaryOp::kGreaterEqual, x, TextConstant(text, x.position), x.position);
    if (const std::optional<std::string> upper = PrefixUpperBound(text))
      range =
          MakeBoolean(BinaryOp::kAnd, std::move(range),
                      MakeBoolean(BinaryOp::kLess, x, TextConstant(*upper, x.position), x.position),
                      x.position);
    return range;
  }
  // LIKE has no escape: '%' and '_' in `text` would be wildcards.
  return std::nullopt;
}

// Whether x holds `text` from byte `begin` and ends there.
std::optional<Expr> EndsAt(const Expr& x, std::uint64_t begin, const std::string& text) {
  if (begin == 0)
    return MakeBoolean(BinaryOp::kEqual, x, TextConstant(text, x.position), x.position);
  if (HasWildcard(text)) return std::nullopt;
  return Like(x, begin, text, 0, false);
}

// Whether x is at most `longest` bytes long.
std::optional<Expr> AtMost(const Expr& x, std::uint64_t longest) {
  if (longest == 0) return EndsAt(x, 0, "");
  std::optional<Expr> longer = Like(x, longest + 1, "", 0, true);
  if (!longer) return std::nullopt;
  return MakeNot(std::move(*longer));
}

// SUBSTRING(x, start, length) = text, as LIKE and comparisons of x: NULL
// where x is NULL, like the comparison; `never` when it is false wherever x
// is not NULL. None where LIKE cannot say it (a negative start with a
// negative length; '%' or '_' in `text` past the first byte or from the
// end; more '_' than kMaxCharWidth).
struct Equality {
  Expr expr;
  bool never = false;
};

// SUBSTRING(x, -k, n) = text, k > 0 and n >= 0 (kSubstringMax where none is
// given), as SQLite's substr counts: where x has k bytes or more, the
// window is min(n, k) bytes from x's k-th last byte; where it has fewer,
// the window is x's first n + len(x) - k bytes (none where that is not
// positive). The cases exclude each other, and each is NULL where x is.
std::optional<Equality> FromEndEquals(const Expr& x, std::int64_t k, std::int64_t n,
                                      const std::string& text) {
  if (HasWildcard(text)) return std::nullopt;
  const auto size = static_cast<std::int64_t>(text.size());
  const std::int64_t window = std::min(n, k);
  std::vector<Expr> cases;
  const auto add = [&cases](std::optional<Expr> e) {
    if (!e) return false;
    cases.push_back(std::move(*e));
    return true;
  };
  // At least k bytes (the pattern's length is k).
  if (size == window && !add(Like(x, 0, "%" + text, k - window, false))) return std::nullopt;
  // Fewer than k bytes.
  if (n >= k) {
    if (size < k && !add(EndsAt(x, 0, text))) return std::nullopt;  // the whole of x
  } else if (size > 0) {
    // x of size + k - n bytes (fewer than k) starting with `text`.
    if (size < n && !add(Like(x, 0, text, k - n, false))) return std::nullopt;
  } else if (!add(AtMost(x, std::min(k - n, k - 1)))) {
    return std::nullopt;
  }
  if (cases.empty()) return Equality{MakeNot(Known(x)), true};
  return Equality{JoinChain(std::move(cases), BinaryOp::kOr)};
}

std::optional<Equality> SubstringEquals(const Expr& substring, const std::string& text) {
  const Expr& x = substring.children[0];
  const std::int64_t start = substring.children[1].constant.integer;
  std::optional<std::int64_t> length;
  if (substring.children.size() > 2) length = substring.children[2].constant.integer;
  const std::optional<SubstringWindow> window = FixedSubstringWindow(start, length);
  if (!window) {
    // A negative start; a negative length with it is left to the host.
    if (length && *length < 0) return std::nullopt;
    return FromEndEquals(x, -start, length.value_or(kSubstringMax), text);
  }
  const std::uint64_t size = text.size();
  std::optional<Expr> equal;
  if (window->length && size > *window->length) return Equality{MakeNot(Known(x)), true};
  if (window->length && size == *window->length) {
    equal = size == 0 ? Known(x) : HoldsAt(x, window->begin, text);
  } else if (size > 0) {
    // The window reaches past x's end whenever it equals a shorter text: x
    // ends right after it.
    equal = EndsAt(x, window->begin, text);
  } else {
    // The empty text: x has no byte at `begin`.
    equal = AtMost(x, window->begin);
  }
  if (!equal) return std::nullopt;
  return Equality{std::move(*equal)};
}

}  // namespace

namespace detail {

Expr Binder::BindSubstring(const ast::Expr& expr, const ExprContext& context) {
  const std::size_t position = expr.position;
  Expr value = BindExpr(expr.children.at(0), context);
  if (value.type != ValueType::kText && value.type != ValueType::kNull)
    throw SqlError(std::string("SUBSTRING needs TEXT, not ") + NumericKindName(value),
                   expr.children[0].position);
  std::vector<Expr> bounds;
  bool null = value.type == ValueType::kNull;
  for (std::size_t i = 1; i < expr.children.size(); ++i) {
    const char* what = i == 1 ? "start" : "length";
    Expr bound = BindExpr(expr.children[i], context);
    if (bound.kind == Expr::Kind::kConstant && bound.type == ValueType::kNull) {
      null = true;
      continue;
    }
    const std::optional<std::int64_t> folded = FoldInteger(bound);
    if (!folded)
      throw SqlError(std::string("SUBSTRING's ") + what + " must be an integer constant",
                     expr.children[i].position);
    if (*folded < kSubstringMin || *folded > kSubstringMax)
      throw SqlError(std::string("SUBSTRING's ") + what + " " + std::to_string(*folded) +
                         " is out of range (from " + std::to_string(kSubstringMin) + " to " +
                         std::to_string(kSubstringMax) + ")",
                     expr.children[i].position);
    bounds.push_back(MakeConstant(Value::Integer(*folded), expr.children[i].position));
  }
  if (null) return MakeConstant(Value::Null(), position);
  if (value.kind == Expr::Kind::kConstant) {
    const std::optional<std::int64_t> length =
        bounds.size() > 1 ? std::optional<std::int64_t>(bounds[1].constant.integer) : std::nullopt;
    return TextConstant(
        std::string(Substring(value.constant.text, bounds[0].constant.integer, length)), position);
  }
  Expr bound;
  bound.kind = Expr::Kind::kSubstring;
  bound.type = ValueType::kText;
  bound.position = position;
  bound.children.push_back(std::move(value));
  for (Expr& b : bounds)
    bound.children.push_back(std::move(b));
  return bound;
}

}  // namespace detail

Expr LowerSubstringComparison(Expr bound) {
  const auto is_substring = [](const Expr& e) { return e.kind == Expr::Kind::kSubstring; };
  const auto is_text = [](const Expr& e) {
    return e.kind == Expr::Kind::kConstant && e.type == ValueType::kText;
  };
  const auto is_null = [](const Expr& e) {
    return e.kind == Expr::Kind::kConstant && e.type == ValueType::kNull;
  };
  if (bound.kind == Expr::Kind::kBinary && bound.children.size() == 2 &&
      ((is_substring(bound.children[0]) && is_null(bound.children[1])) ||
       (is_substring(bound.children[1]) && is_null(bound.children[0]))))
    return MakeConstant(Value::Null(), bound.position);  // any comparison with NULL
  if (bound.kind == Expr::Kind::kBinary &&
      (bound.binary_op == BinaryOp::kEqual || bound.binary_op == BinaryOp::kNotEqual)) {
    const bool left = is_substring(bound.children[0]) && is_text(bound.children[1]);
    const bool right = is_substring(bound.children[1]) && is_text(bound.children[0]);
    if (!left && !right) return bound;
    const Expr& substring = bound.children[left ? 0 : 1];
    std::optional<Equality> equal =
        SubstringEquals(substring, bound.children[left ? 1 : 0].constant.text);
    if (!equal) return bound;
    equal->expr.position = bound.position;
    return bound.binary_op == BinaryOp::kEqual ? std::move(equal->expr)
                                               : MakeNot(std::move(equal->expr));
  }
  if (bound.kind == Expr::Kind::kInList && is_substring(bound.children[0])) {
    std::vector<Expr> matches;
    std::optional<Expr> never;  // an item longer than the substring can be
    for (std::size_t i = 1; i < bound.children.size(); ++i) {
      const Expr& item = bound.children[i];
      if (item.kind == Expr::Kind::kConstant && item.type == ValueType::kNull) {
        matches.push_back(item);  // x = NULL is NULL
        continue;
      }
      if (!is_text(item)) return bound;
      std::optional<Equality> equal = SubstringEquals(bound.children[0], item.constant.text);
      if (!equal) return bound;
      // Each comparison is NULL exactly where x is, so one that is false
      // wherever x is not changes no OR of them.
      if (equal->never) {
        never = std::move(equal->expr);
      } else {
        matches.push_back(std::move(equal->expr));
      }
    }
    if (matches.empty()) matches.push_back(std::move(*never));
    Expr any = JoinChain(std::move(matches), BinaryOp::kOr);
    any.position = bound.position;
    return bound.negated ? MakeNot(std::move(any)) : any;
  }
  return bound;
}

}  // namespace clq::sql

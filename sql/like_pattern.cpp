#include "sql/like_pattern.hpp"

#include <cstddef>

namespace clq::sql {

bool LikeMatches(std::string_view value, std::string_view pattern) {
  std::size_t v = 0;
  std::size_t p = 0;
  // The position after the last '%' and the value byte it was tried from.
  std::size_t star = std::string_view::npos;
  std::size_t mark = 0;
  // After the last '%' the pattern is the value's suffix: tested at the
  // value's end once (the earlier parts, matched as far left as they go,
  // leave it the most room), as the device's matcher does.
  const std::size_t last_star = pattern.rfind('%');
  while (v < value.size()) {
    if (p < pattern.size() && pattern[p] == '%') {
      star = ++p;
      if (p == pattern.size()) return true;  // a trailing '%' takes the rest
      if (p == last_star + 1) {
        const std::size_t rest = pattern.size() - p;
        if (value.size() - v < rest) return false;
        for (std::size_t i = 0; i < rest; ++i)
          if (pattern[p + i] != '_' && pattern[p + i] != value[value.size() - rest + i])
            return false;
        return true;
      }
      mark = v;
    } else if (p < pattern.size() && (pattern[p] == '_' || pattern[p] == value[v])) {
      ++p;
      ++v;
    } else if (star != std::string_view::npos) {
      // The last '%' swallows one more byte; earlier '%'s need not be
      // revisited, since whatever they matched, the last one can absorb.
      p = star;
      v = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '%')
    ++p;
  return p == pattern.size();
}

std::optional<std::string> LikeExactText(std::string_view pattern) {
  if (pattern.find_first_of("%_") != std::string_view::npos) return std::nullopt;
  return std::string(pattern);
}

std::optional<std::string> LikePrefix(std::string_view pattern) {
  const std::size_t first = pattern.find_first_of("%_");
  if (first == std::string_view::npos || pattern[first] != '%') return std::nullopt;
  if (pattern.find_first_not_of('%', first) != std::string_view::npos) return std::nullopt;
  return std::string(pattern.substr(0, first));
}

std::optional<std::string> PrefixUpperBound(std::string_view prefix) {
  std::string bound(prefix);
  while (!bound.empty() && static_cast<unsigned char>(bound.back()) == 0xFF)
    bound.pop_back();
  if (bound.empty()) return std::nullopt;
  bound.back() = static_cast<char>(static_cast<unsigned char>(bound.back()) + 1);
  return bound;
}

}  // namespace clq::sql

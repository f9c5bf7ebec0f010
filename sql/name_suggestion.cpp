#include "sql/name_suggestion.hpp"

#include <algorithm>
#include <cctype>

namespace clq::sql {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

namespace {

template <typename NameOf>
std::optional<std::size_t> ClosestIndex(std::string_view name, std::size_t count, NameOf name_of) {
  const std::size_t reach = std::max<std::size_t>(1, name.size() / 3);
  std::optional<std::size_t> best;
  std::size_t best_distance = reach + 1;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t distance = EditDistance(name, name_of(i));
    if (distance < best_distance && distance < name.size()) {
      best = i;
      best_distance = distance;
    }
  }
  return best;
}

std::string Suggestion(const std::string& display) {
  return "; did you mean '" + display + "'?";
}

}  // namespace

std::optional<std::string> ClosestName(std::string_view name,
                                       const std::vector<std::string>& candidates) {
  const auto index = ClosestIndex(name, candidates.size(),
                                  [&](std::size_t i) -> std::string_view { return candidates[i]; });
  if (!index) return std::nullopt;
  return candidates[*index];
}

std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::optional<std::string> closest = ClosestName(name, candidates);
  return closest ? Suggestion(*closest) : "";
}

std::string DidYouMean(std::string_view name, const std::vector<NameCandidate>& candidates) {
  const auto index = ClosestIndex(name, candidates.size(), [&](std::size_t i) -> std::string_view {
    return candidates[i].name;
  });
  return index ? Suggestion(candidates[*index].display) : "";
}

}  // namespace clq::sql

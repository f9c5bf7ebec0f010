// "Did you mean ...?" for unknown table and column names: the candidate
// closest to a misspelt name by case-insensitive edit distance, offered only
// when it is close enough to be a plausible typo.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clq::sql {

// Levenshtein distance, ignoring ASCII case.
std::size_t EditDistance(std::string_view a, std::string_view b);

// The first closest candidate within reach of `name` (at most a third of its
// length, at least 1, and fewer edits than it has characters), if any.
std::optional<std::string> ClosestName(std::string_view name,
                                       const std::vector<std::string>& candidates);

// "; did you mean 'x'?" when ClosestName finds one, else "".
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

// A name compared by `name` but offered as `display` (a column as "t1.a"
// when the bare name would be ambiguous).
struct NameCandidate {
  std::string name;
  std::string display;
};
std::string DidYouMean(std::string_view name, const std::vector<NameCandidate>& candidates);

}  // namespace clq::sql

// The kernels a step launches, by name, as the physical plan lists them for
// EXPLAIN: those it always launches for inputs within its bounds, and those
// it launches only when the sizes or the data call for them (a second scan
// level past one tile of tile counts, a join's fallback table when the build
// keys repeat). Names keep the order they were added in.
#pragma once

#include <string>
#include <vector>

namespace clq {

class KernelSet {
 public:
  KernelSet() = default;
  KernelSet(std::initializer_list<std::string> always);

  void Add(const std::string& name);
  void AddWhenNeeded(const std::string& name);
  // Another set's kernels, each keeping its kind (always wins over when
  // needed); or, with `when_needed`, all of them as when needed.
  void Add(const KernelSet& other, bool when_needed = false);

  const std::vector<std::string>& always() const { return always_; }
  const std::vector<std::string>& when_needed() const { return when_needed_; }
  bool Contains(const std::string& name) const;
  bool empty() const { return always_.empty() && when_needed_.empty(); }
  // "a, b; when needed: c".
  std::string ToString() const;

 private:
  std::vector<std::string> always_;
  std::vector<std::string> when_needed_;
};

}  // namespace clq

#include "operators/kernel_set.hpp"

#include <algorithm>

namespace clq {
namespace {

bool Has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

KernelSet::KernelSet(std::initializer_list<std::string> always) {
  for (const std::string& name : always)
    Add(name);
}

void KernelSet::Add(const std::string& name) {
  if (Has(always_, name)) return;
  always_.push_back(name);
  when_needed_.erase(std::remove(when_needed_.begin(), when_needed_.end(), name),
                     when_needed_.end());
}

void KernelSet::AddWhenNeeded(const std::string& name) {
  if (!Has(always_, name) && !Has(when_needed_, name)) when_needed_.push_back(name);
}

void KernelSet::Add(const KernelSet& other, bool when_needed) {
  for (const std::string& name : other.always_) {
    if (when_needed) {
      AddWhenNeeded(name);
    } else {
      Add(name);
    }
  }
  for (const std::string& name : other.when_needed_)
    AddWhenNeeded(name);
}

bool KernelSet::Contains(const std::string& name) const {
  return Has(always_, name) || Has(when_needed_, name);
}

std::string KernelSet::ToString() const {
  std::string text;
  for (const std::string& name : always_)
    text += (text.empty() ? "" : ", ") + name;
  if (!when_needed_.empty()) {
    text += std::string(text.empty() ? "" : "; ") + "when needed:";
    for (std::size_t i = 0; i < when_needed_.size(); ++i)
      text += (i ? ", " : " ") + when_needed_[i];
  }
  return text;
}

}  // namespace clq

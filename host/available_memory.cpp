#include "host/available_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "common/host_memory.hpp"

namespace clq {
namespace {

// A limit at or past this is "no limit" (cgroup v1 writes 2^63 rounded to pages).
constexpr std::uint64_t kNoCgroupLimit = std::uint64_t{1} << 62;

// The value of `key` ("MemAvailable:", "inactive_file") in a file of
// "key value [unit]" lines, times 1024 when the unit is kB.
std::optional<std::uint64_t> FieldOf(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name, unit;
    std::uint64_t value = 0;
    if (!(fields >> name >> value) || name != key) continue;
    fields >> unit;
    return unit == "kB" ? value * 1024 : value;
  }
  return std::nullopt;
}

// The number a cgroup file holds ("max" and unreadable files: none).
std::optional<std::uint64_t> NumberIn(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

// The memory cgroup's directory under /sys/fs/cgroup and its files' names
// (v2 unified, or v1's memory controller), from /proc/self/cgroup.
struct CgroupFiles {
  std::string directory, limit, usage, inactive_file;
};

std::optional<CgroupFiles> MemoryCgroup() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  std::optional<CgroupFiles> found;
  while (std::getline(in, line)) {
    // "hierarchy-id:controllers:path"
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (("," + controllers + ",").find(",memory,") != std::string::npos)
      return CgroupFiles{"/sys/fs/cgroup/memory" + path, "memory.limit_in_bytes",
                         "memory.usage_in_bytes", "total_inactive_file"};
    if (line.starts_with("0::"))
      found = CgroupFiles{"/sys/fs/cgroup" + path, "memory.max", "memory.current", "inactive_file"};
  }
  return found;
}

// What one cgroup directory's limit leaves, if it sets one.
std::optional<std::uint64_t> HeadroomIn(const std::string& directory, const CgroupFiles& files) {
  std::optional<std::uint64_t> limit = NumberIn(directory + "/" + files.limit);
  // cgroup v1 states the limit its ancestors impose too.
  if (const std::optional<std::uint64_t> hierarchical =
          FieldOf(directory + "/memory.stat", "hierarchical_memory_limit"))
    limit = limit ? std::min(*limit, *hierarchical) : *hierarchical;
  if (!limit || *limit >= kNoCgroupLimit) return std::nullopt;
  const std::uint64_t usage = NumberIn(directory + "/" + files.usage).value_or(0);
  const std::uint64_t inactive =
      FieldOf(directory + "/memory.stat", files.inactive_file).value_or(0);
  const std::uint64_t working = usage - std::min(usage, inactive);
  return *limit - std::min(*limit, working);
}

// The least that the limits of the process's memory cgroup and of its
// ancestors leave, if any sets one. A cgroup namespace may hide the path
// /proc/self/cgroup names: then only the mount's root is looked at.
std::optional<std::uint64_t> CgroupHeadroom() {
  const std::optional<CgroupFiles> files = MemoryCgroup();
  if (!files) return std::nullopt;
  const std::string root =
      files->limit == "memory.max" ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
  std::optional<std::uint64_t> least;
  for (std::string directory = files->directory;; directory.erase(directory.rfind('/'))) {
    if (const std::optional<std::uint64_t> headroom = HeadroomIn(directory, *files))
      least = least ? std::min(*least, *headroom) : *headroom;
    if (directory.size() <= root.size()) break;
  }
  return least;
}

}  // namespace

std::uint64_t AvailableHostMemory() {
  std::optional<std::uint64_t> available = FieldOf("/proc/meminfo", "MemAvailable:");
  if (!available) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return kUnlimitedHostMemory;
    available = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
  }
  if (const std::optional<std::uint64_t> headroom = CgroupHeadroom())
    return std::min(*available, *headroom);
  return *available;
}

}  // namespace clq

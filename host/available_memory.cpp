#include "host/available_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/host_memory.hpp"

namespace clq {
namespace {

// A limit at or past this is "no limit" (cgroup v1 writes 2^63 rounded to pages).
constexpr std::uint64_t kNoCgroupLimit = std::uint64_t{1} << 62;

// The whitespace-separated words of a line.
std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    const std::size_t begin = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > begin) words.push_back(line.substr(begin, i - begin));
  }
  return words;
}

// Decimal digits, parsed without the streams: a process that embeds clq
// (Python, with DuckDB loaded) may have set a global locale under which
// `stream >> number` reads these files' numbers wrongly.
std::optional<std::uint64_t> Number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The value of `key` ("MemAvailable:", "inactive_file") in a file of
// "key value [unit]" lines, times 1024 when the unit is kB.
std::optional<std::uint64_t> FieldOf(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string_view> words = Words(line);
    if (words.size() < 2 || words[0] != key) continue;
    const std::optional<std::uint64_t> value = Number(words[1]);
    if (!value) return std::nullopt;
    return words.size() > 2 && words[2] == "kB" ? *value * 1024 : *value;
  }
  return std::nullopt;
}

// The number a cgroup file holds ("max" and unreadable files: none).
std::optional<std::uint64_t> NumberIn(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const std::vector<std::string_view> words = Words(line);
  return words.size() == 1 ? Number(words[0]) : std::nullopt;
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

// On-disk cache of compiled OpenCL program binaries, so that a second start of
// clq on the same device does not compile.
//
// An entry is keyed by a text that names everything the binary depends on
// (platform, device, driver version, build options, hash of the sources); the
// file name is a hash of that text and the file repeats the text, so a hash
// collision is detected. A missing, truncated, corrupt or stale entry is a
// miss: the caller rebuilds from source and stores again. Writes go to a
// temporary file renamed into place, so a crash never leaves a torn entry.
// Failure to write (read-only home, full disk) is silent: the cache is an
// optimisation, never a reason to fail a query.
//
// Not thread-safe; one cache per engine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace clq {

class ProgramCache {
 public:
  // An empty `directory` disables the cache (every Load misses, Store does nothing).
  explicit ProgramCache(std::filesystem::path directory);

  bool enabled() const { return !directory_.empty(); }
  const std::filesystem::path& directory() const { return directory_; }

  // The file an entry with this key lives in.
  std::filesystem::path PathFor(const std::string& key) const;

  std::optional<std::vector<unsigned char>> Load(const std::string& key) const;
  void Store(const std::string& key, const std::vector<unsigned char>& binary) const;

 private:
  std::filesystem::path directory_;
};

}  // namespace clq

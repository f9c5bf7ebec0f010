#include "runtime/program_cache.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <span>

#include "common/hash.hpp"

namespace clq {
namespace {

constexpr char kMagic[8] = {'C', 'L', 'Q', 'P', 'R', 'O', 'G', '1'};

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

template <typename T>
bool Get(const std::string& in, std::size_t& pos, T& value) {
  if (in.size() - pos < sizeof(T)) return false;
  std::memcpy(&value, in.data() + pos, sizeof(T));
  pos += sizeof(T);
  return true;
}

std::uint64_t PayloadChecksum(const unsigned char* data, std::size_t size) {
  return Checksum64(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size));
}

}  // namespace

ProgramCache::ProgramCache(std::filesystem::path directory) : directory_(std::move(directory)) {}

std::filesystem::path ProgramCache::PathFor(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.bin", static_cast<unsigned long long>(Fnv1a64(key)));
  return directory_ / name;
}

std::optional<std::vector<unsigned char>> ProgramCache::Load(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  std::ifstream file(PathFor(key), std::ios::binary);
  if (!file) return std::nullopt;
  const std::string content((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
  if (content.size() < sizeof(kMagic) || std::memcmp(content.data(), kMagic, sizeof(kMagic)) != 0)
    return std::nullopt;
  std::size_t pos = sizeof(kMagic);
  std::uint64_t key_size = 0;
  if (!Get(content, pos, key_size) || content.size() - pos < key_size) return std::nullopt;
  if (content.compare(pos, key_size, key) != 0 || key_size != key.size()) return std::nullopt;
  pos += key_size;
  std::uint64_t payload_size = 0;
  std::uint64_t checksum = 0;
  if (!Get(content, pos, payload_size) || !Get(content, pos, checksum)) return std::nullopt;
  if (content.size() - pos != payload_size || payload_size == 0) return std::nullopt;
  std::vector<unsigned char> binary(content.begin() + static_cast<std::ptrdiff_t>(pos),
                                    content.end());
  if (PayloadChecksum(binary.data(), binary.size()) != checksum) return std::nullopt;
  return binary;
}

void ProgramCache::Store(const std::string& key, const std::vector<unsigned char>& binary) const {
  if (!enabled() || binary.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) return;
  std::string content(kMagic, sizeof(kMagic));
  Put(content, static_cast<std::uint64_t>(key.size()));
  content += key;
  Put(content, static_cast<std::uint64_t>(binary.size()));
  Put(content, PayloadChecksum(binary.data(), binary.size()));
  content.append(reinterpret_cast<const char*>(binary.data()), binary.size());

  const std::filesystem::path target = PathFor(key);
  std::filesystem::path temporary = target;
  temporary += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) return;
    file.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!file) {
      file.close();
      std::filesystem::remove(temporary, error);
      return;
    }
  }
  std::filesystem::rename(temporary, target, error);
  if (error) std::filesystem::remove(temporary, error);
}

}  // namespace clq

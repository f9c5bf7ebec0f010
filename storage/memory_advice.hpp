// AdviseHugePages: asks the kernel to back a large, not yet written buffer
// with transparent huge pages. Filling multi-GB columns is otherwise bound by
// first-touch page faults: with 2 MiB pages instead of 4 KiB ones the same
// writes ran several times faster (THP in "madvise" mode, as on Debian). A
// hint only: no effect on results, a no-op for small buffers or where
// unsupported. Thread-safe.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace clq {

inline void AdviseHugePages(void* data, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePage - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace clq

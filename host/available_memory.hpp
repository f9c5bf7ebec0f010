// How much host memory this process can take now, read once at the
// program's edge as the default host-memory budget (QueryOptions::host_memory).
//
// MemAvailable of /proc/meminfo: the kernel's estimate of what can be
// allocated without swapping, free memory plus the page cache and slabs it
// would reclaim. Not MemTotal (physical pages): other processes' memory is
// not clq's to take; not MemFree: a machine that has read files for a while
// shows little free memory that is nonetheless there for the asking. Where
// the process runs in a memory cgroup (a container, a systemd slice) whose
// limit leaves less, that headroom: the limit less what the group uses,
// its inactive file cache not counted (the kernel reclaims that before it
// kills). Without /proc: the physical memory (sysconf), or no budget at all.
#pragma once

#include <cstdint>

namespace clq {

std::uint64_t AvailableHostMemory();

}  // namespace clq

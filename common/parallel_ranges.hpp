// Splitting a host loop over a large range across threads.
//
// Host passes over results of hundreds of megabytes (copies out of pinned
// staging, INT32 widened to INTEGER) run at what one core moves, and the
// first touch of fresh result memory faults its pages in on that one core
// too; split, each thread faults in and fills its own part.
#pragma once

#include <cstddef>
#include <functional>

namespace clq {

// Calls body(begin, end) over consecutive parts of [0, count) that together
// cover it, on up to 8 threads (the caller's included), each part at least
// `min_per_thread` long and its begin a multiple of `align`; returns when
// all are done. Small ranges run on the calling thread alone. What a body
// throws is rethrown here once every part has finished (the first part's,
// in order, when several throw).
void ParallelRanges(std::size_t count, std::size_t min_per_thread, std::size_t align,
                    const std::function<void(std::size_t begin, std::size_t end)>& body);

}  // namespace clq

#include "common/parallel_ranges.hpp"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace clq {

void ParallelRanges(std::size_t count, std::size_t min_per_thread, std::size_t align,
                    const std::function<void(std::size_t begin, std::size_t end)>& body) {
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::min<std::size_t>({hardware, 8, count / std::max<std::size_t>(1, min_per_thread)});
  if (threads <= 1) {
    if (count > 0) body(0, count);
    return;
  }
  const std::size_t unit = std::max<std::size_t>(1, align);
  const std::size_t share = (count / threads + unit - 1) / unit * unit;
  // One slot per part for what its body threw; every started thread is
  // joined before the first of them is rethrown (a joinable std::thread
  // destroyed by unwinding would terminate the process).
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  const auto run = [&](std::size_t part, std::size_t begin, std::size_t end) {
    try {
      body(begin, end);
    } catch (...) {
      errors[part] = std::current_exception();
    }
  };
  try {
    for (std::size_t t = 1; t < threads; ++t) {
      const std::size_t begin = std::min(count, t * share);
      const std::size_t end = t + 1 == threads ? count : std::min(count, begin + share);
      if (begin < end) workers.emplace_back(run, t, begin, end);
    }
  } catch (...) {
    errors[0] = std::current_exception();  // a thread could not be started
  }
  if (!errors[0]) run(0, 0, std::min(count, share));
  for (std::thread& w : workers)
    w.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace clq

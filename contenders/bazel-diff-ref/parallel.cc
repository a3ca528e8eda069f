#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pe::refdiff {

int EffectiveThreads(int requested) {
  if (requested > 0) return requested;
  unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

void ParallelFor(std::size_t count, std::size_t grain, int threads,
                 const std::function<void(std::size_t, std::size_t)>& body) {
  if (count == 0) return;
  grain = std::max<std::size_t>(grain, 1);
  std::size_t chunks = (count + grain - 1) / grain;
  std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), chunks);
  if (workers <= 1) {
    for (std::size_t begin = 0; begin < count; begin += grain) body(begin, std::min(count, begin + grain));
    return;
  }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&] {
    while (!failed.load(std::memory_order_relaxed)) {
      std::size_t begin = next.fetch_add(grain, std::memory_order_relaxed);
      if (begin >= count) return;
      try {
        body(begin, std::min(count, begin + grain));
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(workers - 1);
  for (std::size_t i = 1; i < workers; ++i) helpers.emplace_back(work);
  work();
  for (auto& helper : helpers) helper.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace pe::refdiff

// The candidate's thread pool, reduced to the one shape the pipeline needs: a parallel loop over
// independent items (stream frames, files, targets of one dependency level).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

namespace pe::refdiff {

// Resolves a --threads value: 0 means all cores.
int EffectiveThreads(int requested);

// Calls body(begin, end) over [0, count) in chunks of at most `grain` items, on up to `threads`
// threads (the calling thread is one of them); chunks are handed out dynamically so uneven work
// balances. With threads <= 1, or a single chunk, everything runs on the caller, in order.
// The first exception thrown by `body` stops the hand-out of new chunks and is rethrown here.
void ParallelFor(std::size_t count, std::size_t grain, int threads,
                 const std::function<void(std::size_t begin, std::size_t end)>& body);

// std::sort over `threads` threads: equal slices sorted in parallel, then merged pairwise.
// Same result as std::sort for a strict weak order with no equal elements (ties may land in
// either order, as with std::sort).
template <typename Iterator, typename Less>
void ParallelSort(Iterator first, Iterator last, int threads, Less less) {
  std::size_t count = static_cast<std::size_t>(last - first);
  std::size_t slices = 1;
  while (slices * 2 <= static_cast<std::size_t>(threads > 0 ? threads : 1) && count / (slices * 2) >= 4096) {
    slices *= 2;
  }
  if (slices == 1) {
    std::sort(first, last, less);
    return;
  }
  std::size_t slice = (count + slices - 1) / slices;
  auto at = [&](std::size_t i) { return first + static_cast<std::ptrdiff_t>(std::min(count, i * slice)); };
  ParallelFor(slices, 1, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) std::sort(at(i), at(i + 1), less);
  });
  for (std::size_t width = 1; width < slices; width *= 2) {
    std::size_t merges = slices / (2 * width);
    ParallelFor(merges, 1, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t m = begin; m < end; ++m) {
        std::size_t left = m * 2 * width;
        std::inplace_merge(at(left), at(left + width), at(left + 2 * width), less);
      }
    });
  }
}

}  // namespace pe::refdiff

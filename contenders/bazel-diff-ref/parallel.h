// The candidate's thread pool, reduced to the one shape the pipeline needs: a parallel loop over
// independent items (stream frames, files, targets of one dependency level).
#pragma once

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

}  // namespace pe::refdiff

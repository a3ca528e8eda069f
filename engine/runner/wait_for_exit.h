// Sleeping until a child is done, a deadline passes or the engine is interrupted, whichever
// comes first, without busy polling and without reaping (ReapChild collects the result).
#pragma once

#include <chrono>
#include <optional>

namespace pe::runner {

enum class WaitEnd {
  kExited,       // the child's result is ready for ReapChild
  kTimedOut,     // the deadline passed first
  kInterrupted,  // SIGINT, SIGTERM or SIGHUP arrived first
};

// Polls `done_fd` (Spawned::done, readable once the spawner has the child's result) together
// with interrupt::WakeFd().
WaitEnd WaitForExit(int done_fd, std::optional<std::chrono::steady_clock::time_point> deadline);

// True once `done_fd` is readable, without waiting.
bool IsDone(int done_fd);

}  // namespace pe::runner

// Sleeping until a child exits, a deadline passes or the engine is interrupted, whichever
// comes first, without busy polling and without reaping (the caller reaps with wait4 to get
// the child's own rusage).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>

namespace pe {

enum class WaitEnd {
  kExited,       // the child is a zombie now, ready for wait4
  kTimedOut,     // the deadline passed first
  kInterrupted,  // SIGINT or SIGTERM arrived first
};

// Polls a pidfd for the child together with interrupt::WakeFd(); where pidfd_open is
// unavailable it falls back to checking with waitid(WNOWAIT) every few milliseconds.
WaitEnd WaitForExit(pid_t pid, std::optional<std::chrono::steady_clock::time_point> deadline);

}  // namespace pe

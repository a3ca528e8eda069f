#include "engine/runner/wait_for_exit.h"

#include <poll.h>

#include <cerrno>

#include "engine/process/interrupt.h"

namespace pe::runner {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds to the deadline for poll(), rounded up so we never wake early and spin.
int PollTimeoutMs(std::optional<Clock::time_point> deadline) {
  if (!deadline) return -1;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 1'000'000 ? 1'000'000 : static_cast<int>(left);
}

bool Expired(std::optional<Clock::time_point> deadline) { return deadline && Clock::now() >= *deadline; }

}  // namespace

bool IsDone(int done_fd) {
  if (done_fd < 0) return true;
  pollfd fd = {done_fd, POLLIN, 0};
  return ::poll(&fd, 1, 0) > 0;
}

WaitEnd WaitForExit(int done_fd, std::optional<Clock::time_point> deadline) {
  if (done_fd < 0) return WaitEnd::kExited;
  for (;;) {
    if (interrupt::Interrupted()) return WaitEnd::kInterrupted;
    pollfd fds[2] = {{done_fd, POLLIN, 0}, {interrupt::WakeFd(), POLLIN, 0}};
    const int ready = ::poll(fds, fds[1].fd >= 0 ? 2 : 1, PollTimeoutMs(deadline));
    if (ready < 0 && errno != EINTR) return WaitEnd::kExited;  // ReapChild will say what broke
    if (ready > 0 && fds[0].revents != 0) return WaitEnd::kExited;
    if (interrupt::Interrupted()) return WaitEnd::kInterrupted;
    if (Expired(deadline)) return WaitEnd::kTimedOut;
  }
}

}  // namespace pe::runner

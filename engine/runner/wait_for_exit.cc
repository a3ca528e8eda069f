#include "engine/runner/wait_for_exit.h"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "engine/runner/interrupt.h"

namespace pe {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds to the deadline for poll(), rounded up so we never wake early and spin.
int PollTimeoutMs(std::optional<Clock::time_point> deadline, int cap_ms) {
  if (!deadline) return cap_ms;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  if (left <= 0) return 0;
  if (cap_ms >= 0 && left > cap_ms) return cap_ms;
  return static_cast<int>(left);
}

// glibc 2.36's <sys/pidfd.h> lacks extern "C", so its pidfd_open does not link from C++;
// the raw syscall is the same call.
int PidfdOpen(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

bool HasExited(pid_t pid) {
  siginfo_t info = {};
  // WNOWAIT leaves the zombie in place for the caller's wait4.
  if (::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == ECHILD;
  return info.si_pid == pid;
}

bool Expired(std::optional<Clock::time_point> deadline) {
  return deadline && Clock::now() >= *deadline;
}

WaitEnd WaitBySleeping(pid_t pid, std::optional<Clock::time_point> deadline);

WaitEnd WaitWithPidfd(pid_t pid, int pidfd, std::optional<Clock::time_point> deadline) {
  for (;;) {
    if (interrupt::Interrupted()) return WaitEnd::kInterrupted;
    pollfd fds[2] = {{pidfd, POLLIN, 0}, {interrupt::WakeFd(), POLLIN, 0}};
    int ready = ::poll(fds, fds[1].fd >= 0 ? 2 : 1, PollTimeoutMs(deadline, -1));
    if (ready < 0 && errno != EINTR) return WaitBySleeping(pid, deadline);
    if (fds[0].revents != 0) return WaitEnd::kExited;
    if (interrupt::Interrupted()) return WaitEnd::kInterrupted;
    if (ready == 0 && Expired(deadline)) return WaitEnd::kTimedOut;
  }
}

WaitEnd WaitBySleeping(pid_t pid, std::optional<Clock::time_point> deadline) {
  constexpr int kStepMs = 5;
  for (;;) {
    if (HasExited(pid)) return WaitEnd::kExited;
    if (interrupt::Interrupted()) return WaitEnd::kInterrupted;
    if (Expired(deadline)) return WaitEnd::kTimedOut;
    pollfd wake = {interrupt::WakeFd(), POLLIN, 0};
    ::poll(&wake, wake.fd >= 0 ? 1 : 0, PollTimeoutMs(deadline, kStepMs));
  }
}

}  // namespace

WaitEnd WaitForExit(pid_t pid, std::optional<Clock::time_point> deadline) {
  int pidfd = PidfdOpen(pid);
  if (pidfd < 0) return WaitBySleeping(pid, deadline);
  WaitEnd end = WaitWithPidfd(pid, pidfd, deadline);
  ::close(pidfd);
  return end;
}

}  // namespace pe

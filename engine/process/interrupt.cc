// The handler may run on any thread at any moment, so everything it touches is a lock-free
// atomic or a syscall that signal-safety(7) allows: no locks, no allocation, no stdio.
#include "engine/process/interrupt.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>

namespace pe::interrupt {
namespace {

// More than the engine ever runs at once (it runs one command at a time); if the table is
// full the group is still killed by the runner itself when it sees Interrupted().
constexpr int kMaxGroups = 64;

std::atomic<pid_t> groups[kMaxGroups];
std::atomic<int> signal_number{0};
// CleanupWindow: while `cleaning`, the interrupt to report afterwards is held in `deferred`.
std::atomic<bool> cleaning{false};
std::atomic<int> deferred{0};
std::atomic<bool> installed{false};
// Self-pipe: the handler writes a byte, poll() on the read end wakes. Both ends are
// non-blocking so the handler never blocks on a full pipe and a drain never hangs.
int wake_pipe[2] = {-1, -1};
std::once_flag pipe_once;

static_assert(std::atomic<pid_t>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);

void EnsurePipe() {
  std::call_once(pipe_once, [] {
    if (::pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) wake_pipe[0] = wake_pipe[1] = -1;
  });
}

void KillRegistered() {
  for (auto& slot : groups) {
    pid_t pgid = slot.load(std::memory_order_acquire);
    if (pgid > 0) ::kill(-pgid, SIGKILL);
  }
}

void DrainWakePipe() {
  char buffer[64];
  if (wake_pipe[0] >= 0) {
    while (::read(wake_pipe[0], buffer, sizeof buffer) > 0) {
    }
  }
}

void Handle(int sig) {
  int saved_errno = errno;
  int none = 0;
  if (cleaning.load()) {
    // The first interrupt lets the cleanup finish; another one is "stop now".
    if (deferred.compare_exchange_strong(none, sig)) {
      errno = saved_errno;
      return;
    }
    KillRegistered();
    ::_exit(130);
  }
  const bool second = !signal_number.compare_exchange_strong(none, sig);
  KillRegistered();
  // A second Ctrl-C means "stop now", whatever the engine is still finishing (writing
  // reports, removing a large scratch tree): the children are already dead.
  if (second) ::_exit(130);
  if (wake_pipe[1] >= 0) {
    char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_pipe[1], &byte, 1);
  }
  errno = saved_errno;
}

}  // namespace

void InstallHandlers() {
  EnsurePipe();
  if (installed.exchange(true)) return;
  struct sigaction action = {};
  action.sa_handler = Handle;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking poll() or wait4() must return EINTR so its caller notices.
  action.sa_flags = 0;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  // A closed terminal or an SSH session that drops must stop the run as cleanly as SIGTERM
  // does: without this, SIGHUP's default action would end the engine mid-round.
  ::sigaction(SIGHUP, &action, nullptr);
}

bool Interrupted() { return signal_number.load() != 0; }

int Signal() { return signal_number.load(); }

int WakeFd() {
  EnsurePipe();
  return wake_pipe[0];
}

void RegisterGroup(pid_t pgid) {
  if (pgid <= 0) return;
  for (auto& slot : groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pgid)) break;
  }
  // A signal that arrived before the group was in the table found nothing to kill.
  if (Interrupted()) ::kill(-pgid, SIGKILL);
}

void UnregisterGroup(pid_t pgid) {
  if (pgid <= 0) return;
  for (auto& slot : groups) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) break;
  }
}

void KillAllGroups() { KillRegistered(); }

void ResetForTesting() {
  EnsurePipe();
  signal_number.store(0);
  cleaning.store(false);
  deferred.store(0);
  for (auto& slot : groups) slot.store(0);
  DrainWakePipe();
}

CleanupWindow::CleanupWindow() {
  EnsurePipe();
  // `cleaning` first: a signal from here on is held in `deferred` (or ends the engine).
  cleaning.store(true);
  int earlier = signal_number.exchange(0);
  int none = 0;
  if (earlier != 0 && !deferred.compare_exchange_strong(none, earlier)) {
    // A signal arrived between the two stores: this one is the second.
    KillRegistered();
    ::_exit(130);
  }
  // The byte the interrupt left would wake every poll() at once, forever.
  DrainWakePipe();
}

CleanupWindow::~CleanupWindow() {
  // `cleaning` first: a signal from here on takes the ordinary path and is seen below.
  cleaning.store(false);
  const int held = deferred.exchange(0);
  if (held == 0) return;
  int none = 0;
  if (!signal_number.compare_exchange_strong(none, held)) {
    ::_exit(130);  // a second signal came as the window closed; the handler killed the groups
  }
  if (wake_pipe[1] >= 0) {
    char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_pipe[1], &byte, 1);
  }
}

}  // namespace pe::interrupt

// SIGINT/SIGTERM/SIGHUP handling shared by every place that waits on a child.
// The handler only records the signal and kills the live process groups (kill() is
// async-signal-safe); runners then see Interrupted() and unwind as data, never exit().
#pragma once

#include <sys/types.h>

namespace pe::interrupt {

// Installs handlers for SIGINT, SIGTERM and SIGHUP (a hang-up is treated like SIGTERM).
// Idempotent.
void InstallHandlers();
// True once SIGINT, SIGTERM or SIGHUP arrived.
bool Interrupted();
// The signal that interrupted us, or 0.
int Signal();
// A file descriptor that becomes readable when interrupted, for poll().
int WakeFd();
// Live process groups the handler kills with SIGKILL on interrupt.
void RegisterGroup(pid_t pgid);
void UnregisterGroup(pid_t pgid);
// Kills every registered group with SIGKILL now, for callers that unwind for another reason
// (an exception, a fatal error) and must not leave children behind.
void KillAllGroups();
// For tests: forget a previous interrupt.
void ResetForTesting();

// Cleanup after an interrupt (bisect's `git bisect reset` and worktree removal): while one
// lives, Interrupted() is false, so runners start and wait for commands again; bound each one
// with Command::timeout_s. The interrupt that came before, or a first one that arrives while
// it lives, is not lost: it is Interrupted() again once the window closes. Another signal
// while it lives means "stop now", as a second Ctrl-C always does: the handler kills the
// cleanup's children and exits 130. Not nested; one at a time.
class CleanupWindow {
 public:
  CleanupWindow();
  ~CleanupWindow();
  CleanupWindow(const CleanupWindow&) = delete;
  CleanupWindow& operator=(const CleanupWindow&) = delete;
};

}  // namespace pe::interrupt

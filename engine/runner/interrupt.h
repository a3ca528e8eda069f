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

}  // namespace pe::interrupt

#include "engine/runner/process_group.h"

#include <sys/wait.h>

#include <cerrno>
#include <csignal>

namespace pe::runner {

void KillGroup(pid_t pgid) {
  if (pgid > 0) ::kill(-pgid, SIGKILL);
}

void ReapGroup(pid_t pgid) {
  if (pgid <= 0) return;
  // Each reaped member hands its own children to us before it becomes reapable, so looping
  // until ECHILD collects the whole tree, however deep.
  for (;;) {
    pid_t pid = ::waitpid(-pgid, nullptr, __WALL);
    if (pid > 0) continue;
    if (errno == EINTR) continue;
    return;
  }
}

}  // namespace pe::runner

// Killing a child's whole process group, on timeout or Ctrl-C. (perfengine-spawner reaps the
// children it starts and kills what they leave; ReapGroup is for processes forked directly.)
#pragma once

#include <sys/types.h>

namespace pe::runner {

// SIGKILL to every process in the group; a group that is already gone is not an error.
void KillGroup(pid_t pgid);

// Waits for every child of ours still in the group (orphans handed to us as subreaper) so none
// is left as a zombie. Call after KillGroup; returns at once when there is nothing to reap.
void ReapGroup(pid_t pgid);

}  // namespace pe::runner

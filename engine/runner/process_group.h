// Killing and reaping a child's whole process group, so nothing a contender started outlives
// its run: not on timeout, not on Ctrl-C, not when the contender itself exits normally.
#pragma once

#include <sys/types.h>

namespace pe {

// Makes this process the reaper of orphaned descendants (PR_SET_CHILD_SUBREAPER), so a
// grandchild whose parent has exited becomes our child and ReapGroup can collect it even when
// PID 1 of a container does not reap. Idempotent; returns false where unsupported.
bool BecomeSubreaper();

// SIGKILL to every process in the group; a group that is already gone is not an error.
void KillGroup(pid_t pgid);

// Waits for every child of ours still in the group (orphans handed to us as subreaper) so none
// is left as a zombie. Call after KillGroup; returns at once when there is nothing to reap.
void ReapGroup(pid_t pgid);

}  // namespace pe

// Counting processes from /proc, so tests can prove that none was left behind.
#pragma once

#include <sys/types.h>

namespace pe::testing {

// Processes (zombies included) whose process group is `pgid`.
int CountInGroup(pid_t pgid);
// Processes (zombies included) whose parent is `ppid`.
int CountChildrenOf(pid_t ppid);
// True when `pid` no longer exists at all, not even as a zombie.
bool Gone(pid_t pid);
// Processes we started that still exist, zombies included: our children other than
// perfengine-spawner, and the spawner's children (one per child being minded). A minder
// reports before it exits, so this waits up to a second for the count to reach zero.
int CountLeftOver();

}  // namespace pe::testing

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

}  // namespace pe::testing

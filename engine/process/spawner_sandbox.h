// The sandbox perfengine-spawner's minder builds around a child that asks for one
// (kSpawnSandbox; docs/threat-model.md says what it guarantees and which test checks each part).
// Part of the static spawner only: no allocation, no stdio stream.
//
// The minder, before the child's clock starts:
//  1. unshares user, mount and pid namespaces (as root too: a root child must not hold
//     capabilities over the host's mounts), mapping its own uid and gid to themselves;
//  2. takes a detached copy of each writable path, makes every mount read-only, then, outermost
//     path first, attaches each writable copy again (read-write) or lays an empty read-only tmpfs
//     over each hidden path (with the folders leading to writable paths inside it), and puts a
//     fresh tmpfs on /dev/shm;
//  3. starts the namespace's init (pid 1), which mounts the namespace's own /proc and then only
//     reaps orphans: the child is pid 2, with ordinary signal handling, and a process it leaves
//     behind, in any group or session, dies when the minder kills init;
//  4. unshares a user and a mount namespace once more, which locks every mount it inherits
//     (mount_namespaces(7)): the child, root in its namespace or not, can neither unmount a hidden
//     path's tmpfs nor make a read-only mount writable again.
// The same steps as bubblewrap's, done in the minder so that they cost the timed window nothing.
#pragma once

#include <sys/types.h>

namespace pe::spawner {

struct SandboxPath {
  char kind = 'w';  // 'w' writable, 'h' hidden (spawner_protocol.h)
  const char* path = nullptr;
};

// The /proc of the spawner's own pid namespace, opened when the spawner starts: a sandboxed
// minder's "/proc" is its child's, where the pids the minder sees (its own, a tracee's) mean nothing.
int HostProc();
void OpenHostProc();

// Builds the sandbox in the calling minder (steps 1-4 above). Returns 0 and init's pid, or an
// errno with *step set to the failed step (an index into kSandboxSteps). Not reversible: a minder
// whose sandbox failed reports it and exits.
int EnterSandbox(const SandboxPath* paths, int count, pid_t* init, int* step);

// Whether this kernel lets the spawner build a sandbox: 0, or why not (the errno of unshare or of
// the first step that failed, with *step). Found once, by a child that builds one with no paths.
int ProbeSandbox(int* step);

// How many processes of the sandbox's pid namespace are alive besides its init: what the child
// left behind. Read from the namespace's own /proc, which the minder sees.
int CountSandboxed();

}  // namespace pe::spawner

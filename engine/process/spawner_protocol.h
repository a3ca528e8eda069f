// The messages between the engine and perfengine-spawner (spawner_main.cc), the small helper
// process that starts every child. Why a helper at all: Linux carries the high-water RSS of
// the memory a process had before exec into its ru_maxrss, and with fork(), vfork() and
// posix_spawn() alike that memory is the engine's (fork: what the engine held at the fork;
// vfork/posix_spawn: the engine's peak ever). Started from a process of a few hundred KiB,
// a contender's ru_maxrss is its own.
//
// One request is one SOCK_SEQPACKET message: a SpawnHeader, `nlimits` SpawnLimits, then
// NUL-terminated strings (program, cwd, argv..., env...), with the descriptors passed as
// SCM_RIGHTS in this order: stdin, stdout, stderr, the result pipe's write end, and with
// kSpawnHold the read end of the "go" pipe, then with kSpawnTraceMaps the maps file, then with kSpawnQuietStart the
// pid pipe's write end. With kSpawnSandbox the strings go on with `npaths` sandbox paths, each a
// kind letter ('w' writable, 'h' hidden) followed by an absolute path. Replies go to the result pipe: a SpawnStarted,
// then (unless the start failed) a SpawnDone once the child exited and everything it left behind was killed and reaped.
#pragma once

#include <cstdint>

namespace pe::spawner {

inline constexpr std::uint32_t kMagic = 0x70655370;  // "peSp"
inline constexpr std::uint32_t kSpawnHold = 1;       // wait for the go pipe to close before exec
// Trace the child and every process and thread it starts (ptrace: PTRACE_SEIZE before exec,
// PTRACE_O_TRACEFORK/VFORK/CLONE) and, as each one exits (PTRACE_O_TRACEEXIT, while its address
// space is still there), write the files it has mapped executable to the maps descriptor, one
// line each: "PID PATH\n". For parity executions only: tracing costs time.
inline constexpr std::uint32_t kSpawnTraceMaps = 2;
// A quiet start: the SpawnStarted is written to the result pipe only at the end, just before the
// SpawnDone, so nothing wakes the engine while the child starts and runs (a woken engine can take
// the CPU the child is starting on). The child's pid goes at once to the pid pipe, which the engine
// reads only when it must signal the child before its end (a timeout, Ctrl-C). Not with
// kSpawnHold or kSpawnTraceMaps, whose callers need the pid at the start.
inline constexpr std::uint32_t kSpawnQuietStart = 4;
// Run the child in a sandbox of its own (spawner_sandbox.h, docs/threat-model.md): pid, mount and
// user namespaces, the file system read-only but for the 'w' paths, an empty directory at each 'h'
// path, its own /proc and /dev/shm. Built by the minder before the child's clock starts. When the
// kernel refuses namespaces (found once, when the spawner starts) the child runs without one and
// SpawnDone::sandbox_errno says why.
inline constexpr std::uint32_t kSpawnSandbox = 8;
// Exec the child with the kernel's address-space randomization off (personality
// ADDR_NO_RANDOMIZE, as `setarch -R`): a worker whose layout the round's seed draws instead
// ([run] randomize_addresses = false, docs/workers.md "Layout"). A kernel that refuses it (a
// container's seccomp profile) fails the start with that errno.
inline constexpr std::uint32_t kSpawnNoAslr = 16;
inline constexpr int kMaxRequestBytes = 256 * 1024;
inline constexpr std::uint32_t kMaxSandboxPaths = 32;

struct SpawnHeader {
  std::uint32_t magic = kMagic;
  std::uint32_t flags = 0;
  std::uint32_t argc = 0;
  std::uint32_t envc = 0;
  std::uint32_t nlimits = 0;
  std::uint32_t npaths = 0;  // kSpawnSandbox: how many sandbox paths follow the environment
};

struct SpawnLimit {
  std::int32_t resource = 0;  // RLIMIT_*
  std::int32_t reserved = 0;
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
};

struct SpawnStarted {
  std::int32_t pid = -1;          // the child, also its process group id; -1 when not started
  std::int32_t exec_errno = 0;    // set when the child could not be set up or exec failed
  std::int32_t sandbox_step = 0;  // > 0: exec_errno is from this step of the sandbox (kSandboxSteps)
  std::int32_t reserved = 0;      // a multiple of 8 bytes: a quiet start sends it and a SpawnDone as one
};
static_assert(sizeof(SpawnStarted) % alignof(std::int64_t) == 0, "no padding between a SpawnStarted and a SpawnDone");

// What sandbox_step names, from 1.
inline constexpr const char* kSandboxSteps[] = {
    "",
    "unshare",
    "its user and group ids",
    "making its mounts private",
    "a writable path",
    "a hidden path",
    "making the file system read-only",
    "putting back a writable path",
    "its /dev/shm",
    "its init process",
    "its /proc",
    "locking its mounts",
};

struct SpawnDone {
  std::int32_t status = 0;      // as from wait4
  std::int32_t exec_errno = 0;  // a held child's exec failure, found only after it was let go
  std::int64_t user_us = 0;     // the child's own rusage, from wait4 on its pid
  std::int64_t sys_us = 0;
  std::int64_t max_rss_kib = 0;
  std::int64_t wall_ns = 0;        // from just before the child was created to its reaping
  std::int32_t leftovers = 0;      // descendants still alive after it exited, killed by the helper
  std::int32_t sandbox_errno = 0;  // kSpawnSandbox asked, but the kernel refused namespaces: why
};

}  // namespace pe::spawner

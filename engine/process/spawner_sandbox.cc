#include "engine/process/spawner_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>

#include "engine/process/spawner_protocol.h"

namespace pe::spawner {
namespace {

// Step numbers: indices into kSandboxSteps (spawner_protocol.h).
enum Step {
  kUnshare = 1,
  kIds,
  kPrivate,
  kWritable,
  kHidden,
  kReadOnly,
  kAttach,
  kShm,
  kInit,
  kProc,
  kLock,
};

int g_host_proc = -1;

int WriteProcFile(const char* name, const char* text) {
  const int fd = openat(HostProc(), name, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const size_t size = strlen(text);
  const ssize_t written = write(fd, text, size);
  const int error = errno;
  close(fd);
  errno = error;
  return written == static_cast<ssize_t>(size) ? 0 : -1;
}

// Maps the caller's uid and gid to themselves in the user namespace it has just entered: a child
// keeps the identity, and so the file access, it had (root stays uid 0, without the host's
// capabilities). "self" in the host's /proc: the sandbox's /proc does not know the minder.
int MapOwnIds(uid_t uid, gid_t gid) {
  char text[64];
  if (WriteProcFile("self/setgroups", "deny") != 0 && errno != ENOENT) return -1;
  snprintf(text, sizeof text, "%u %u 1\n", static_cast<unsigned>(uid), static_cast<unsigned>(uid));
  if (WriteProcFile("self/uid_map", text) != 0) return -1;
  snprintf(text, sizeof text, "%u %u 1\n", static_cast<unsigned>(gid), static_cast<unsigned>(gid));
  return WriteProcFile("self/gid_map", text);
}

// How many folders deep `path` is: "/a/b" is 2.
int Depth(const char* path) {
  int depth = 0;
  for (const char* c = path; *c != '\0'; ++c) depth += *c == '/' && c[1] != '\0' ? 1 : 0;
  return depth;
}

// True when `path` lies strictly inside `dir`.
bool Inside(const char* path, const char* dir) {
  const size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && (path[n] == '/' || (n == 1 && dir[0] == '/' && path[1] != '\0'));
}

// Makes the folders from `dir` down to `path` (inside it), as mkdir -p does, in the tmpfs that
// now hides `dir`, so a writable path there can be attached again.
int MakeFoldersDown(const char* path, const char* dir) {
  static char buffer[PATH_MAX];
  if (snprintf(buffer, sizeof buffer, "%s", path) >= static_cast<int>(sizeof buffer)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char* p = buffer + strlen(dir) + 1; *p != '\0'; ++p) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buffer, 0755) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(buffer, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

// pid 1 of the sandbox: mounts the namespace's /proc, says how that went, then only reaps the
// orphans handed to it (an ignored SIGCHLD reaps them) until the minder kills it, which kills
// everything left in the namespace.
[[noreturn]] void InitMain(int ready) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Init holds capabilities in the outer user namespace, where the mounts are not locked: the
  // child, root in its own namespace and with init's uid, must not ptrace it, read its memory or
  // enter its namespaces through /proc/1. Not dumpable, init asks for a capability the child lacks.
  // (The minder's unshare already made it so, by changing its credentials; said here on purpose.)
  prctl(PR_SET_DUMPABLE, 0);
  int error = 0;
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) error = errno;
  while (write(ready, &error, sizeof error) < 0 && errno == EINTR) {
  }
  syscall(SYS_close_range, 0U, ~0U, 0U);
  signal(SIGCHLD, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (;;) pause();
}

pid_t StartInit(int* error) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) {
    *error = errno;
    return -1;
  }
  // A raw fork, as the spawner forks its minders (no libc bookkeeping to copy).
  const pid_t init = static_cast<pid_t>(syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, 0));
  if (init == 0) InitMain(ready[1]);
  *error = init < 0 ? errno : 0;
  close(ready[1]);
  if (init > 0 && read(ready[0], error, sizeof *error) != sizeof *error) *error = EIO;
  close(ready[0]);
  return init;
}

int Fail(int step, int* out_step) {
  *out_step = step;
  return errno != 0 ? errno : EINVAL;
}

}  // namespace

int HostProc() { return g_host_proc; }

void OpenHostProc() {
  if (g_host_proc < 0) g_host_proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int EnterSandbox(const SandboxPath* paths, int count, pid_t* init, int* step) {
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0) return Fail(kUnshare, step);
  if (MapOwnIds(uid, gid) != 0) return Fail(kIds, step);
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return Fail(kPrivate, step);
  // Copies of the writable paths, taken before anything covers them.
  int trees[kMaxSandboxPaths];
  for (int i = 0; i < count; ++i) {
    trees[i] = -1;
    if (paths[i].kind != 'w') continue;
    trees[i] = open_tree(AT_FDCWD, paths[i].path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (trees[i] < 0) return Fail(kWritable, step);
  }
  mount_attr read_only = {};
  read_only.attr_set = MOUNT_ATTR_RDONLY;
  if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &read_only, sizeof read_only) != 0) return Fail(kReadOnly, step);
  // Outermost first, so each path is laid over the ones around it: a folder hidden inside a
  // writable one stays hidden, and a writable folder inside a hidden one is put back on top.
  int order[kMaxSandboxPaths];
  for (int i = 0; i < count; ++i) {
    int at = i;
    while (at > 0 && Depth(paths[order[at - 1]].path) > Depth(paths[i].path)) {
      order[at] = order[at - 1];
      --at;
    }
    order[at] = i;
  }
  for (int k = 0; k < count; ++k) {
    const int i = order[k];
    if (paths[i].kind == 'w') {
      if (move_mount(trees[i], "", AT_FDCWD, paths[i].path, MOVE_MOUNT_F_EMPTY_PATH) != 0) return Fail(kAttach, step);
      close(trees[i]);
      continue;
    }
    if (mount("none", paths[i].path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,nr_inodes=256,mode=755") !=
        0) {
      return Fail(kHidden, step);
    }
    for (int j = 0; j < count; ++j) {
      if (paths[j].kind == 'w' && Inside(paths[j].path, paths[i].path) &&
          MakeFoldersDown(paths[j].path, paths[i].path) != 0) {
        return Fail(kHidden, step);
      }
    }
    if (mount_setattr(AT_FDCWD, paths[i].path, 0, &read_only, sizeof read_only) != 0) return Fail(kHidden, step);
  }
  struct stat shm = {};
  if (stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode) &&
      mount("none", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
    return Fail(kShm, step);
  }
  int init_error = 0;
  *init = StartInit(&init_error);
  if (*init < 0) {
    errno = init_error;
    return Fail(kInit, step);
  }
  if (init_error != 0) {
    errno = init_error;
    return Fail(kProc, step);
  }
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 || MapOwnIds(uid, gid) != 0) return Fail(kLock, step);
  return 0;
}

int ProbeSandbox(int* step) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno;
  const pid_t probe = static_cast<pid_t>(syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, 0));
  if (probe == 0) {
    pid_t init = -1;
    int result[2] = {0, 0};
    result[0] = EnterSandbox(nullptr, 0, &init, &result[1]);
    while (write(report[1], result, sizeof result) < 0 && errno == EINTR) {
    }
    _exit(0);  // its init dies with it (PR_SET_PDEATHSIG)
  }
  close(report[1]);
  int result[2] = {probe < 0 ? errno : EIO, kUnshare};
  if (probe > 0 && read(report[0], result, sizeof result) != sizeof result) {
    result[0] = EIO;
    result[1] = kUnshare;
  }
  close(report[0]);
  if (probe > 0) {
    while (waitpid(probe, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  *step = result[1];
  return result[0];
}

int CountSandboxed() {
  const int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  alignas(8) static char buffer[8192];
  int alive = 0;
  for (;;) {
    const long n = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      struct Entry {
        std::uint64_t inode;
        std::int64_t offset;
        unsigned short length;
        unsigned char type;
        char name[1];
      };
      const Entry* entry = reinterpret_cast<const Entry*>(buffer + at);
      at += entry->length;
      const char* name = entry->name;
      if (name[0] < '1' || name[0] > '9' || strcmp(name, "1") == 0) continue;
      bool digits = true;
      for (const char* c = name; *c != '\0'; ++c) digits = digits && *c >= '0' && *c <= '9';
      alive += digits ? 1 : 0;
    }
  }
  close(fd);
  return alive;
}

}  // namespace pe::spawner

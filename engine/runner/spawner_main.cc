// perfengine-spawner: the small process every child of the engine is started from (see
// spawner_protocol.h for why). It is linked statically and allocates almost nothing, so the
// memory a child inherits the high-water mark of is a few hundred KiB.
//
// The spawner is a child subreaper: every orphaned descendant of a child it started is
// reparented to it, whatever its process group or session. It starts a child with
// clone(CLONE_VM | CLONE_VFORK), reaps it with wait4, then SIGKILLs everything that child left
// behind, and only then reports. One child at a time is minded by the spawner itself ("inline"):
// that is the common case (one contender after another), and it costs no process but the child.
// A request that arrives while an inline child runs (a load client beside a server), or one for
// a held child (the engine attaches before exec, so that child is a real fork), gets a "minder":
// a fork of the spawner that is a subreaper of its own, minds that one child the same way and
// exits. Descendants are thus always reparented to the one process that knows whose they are.
//
// Lifetime: the spawner exits when the engine's end of the socket closes (the engine exited or
// was SIGKILLed), after killing its inline child and all it left; each minder has
// PR_SET_PDEATHSIG=SIGTERM on the spawner and each child PR_SET_PDEATHSIG=SIGKILL on its
// parent (the spawner or its minder), so a dead engine leaves no contender behind.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <initializer_list>

#include "engine/runner/spawner_protocol.h"

namespace {

using namespace pe::spawner;

constexpr int kSocketFd = 3;
constexpr int kSignalFd = 4;  // the spawner's signalfd, at a fixed number so minders find it
constexpr int kMaxFds = 5;

// In .bss: only the pages a request actually fills count towards our RSS.
alignas(16) char g_request[kMaxRequestBytes];

struct Plan {
  std::uint32_t flags = 0;
  const SpawnLimit* limits = nullptr;
  std::uint32_t nlimits = 0;
  const char* program = nullptr;
  const char* cwd = nullptr;  // nullptr: stay where the spawner is
  char** argv = nullptr;
  char** envp = nullptr;
  int in = -1, out = -1, err = -1, result = -1, go = -1;
  int error_pipe = -1;  // the write end; the child reports a failing step's errno here
  pid_t minder = 0;
};

std::int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the engine is gone; nobody to tell
    p += n;
    size -= static_cast<size_t>(n);
  }
}

// --- the child, between clone and exec: async-signal-safe calls only --------------------

[[noreturn]] void FailChild(const Plan& plan) {
  int error = errno;
  WriteAll(plan.error_pipe, &error, sizeof error);
  _exit(127);
}

void Redirect(const Plan& plan, int from, int to) {
  if (from == to) {
    if (fcntl(to, F_SETFD, 0) != 0) FailChild(plan);  // dup2 onto itself keeps O_CLOEXEC
  } else if (dup2(from, to) < 0) {
    FailChild(plan);
  }
}

int ExecChild(void* arg) {
  const Plan& plan = *static_cast<const Plan*>(arg);
  // Our own group, so a timeout or Ctrl-C kills the child and all it started at once.
  if (setpgid(0, 0) != 0) FailChild(plan);
  // The minder is single-threaded, so "parent thread exits" means "minder exits".
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) FailChild(plan);
  if (getppid() != plan.minder) _exit(127);
  for (std::uint32_t i = 0; i < plan.nlimits; ++i) {
    rlimit limit = {static_cast<rlim_t>(plan.limits[i].soft), static_cast<rlim_t>(plan.limits[i].hard)};
    if (setrlimit(plan.limits[i].resource, &limit) != 0) FailChild(plan);
  }
  // The minder ignores SIGPIPE (the engine may be gone); the contender must not inherit that.
  struct sigaction deflt = {};
  deflt.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &deflt, nullptr);
  Redirect(plan, plan.in, STDIN_FILENO);
  Redirect(plan, plan.out, STDOUT_FILENO);
  Redirect(plan, plan.err, STDERR_FILENO);
  if (plan.cwd != nullptr && chdir(plan.cwd) != 0) FailChild(plan);
  // Anything not opened with O_CLOEXEC must not leak into the contender.
  syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
  if (plan.go >= 0) {
    char byte;
    while (read(plan.go, &byte, 1) < 0 && errno == EINTR) {
    }
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(plan.program, plan.argv, plan.envp);
  FailChild(plan);
}

// --- starting and reaping, shared by the spawner and its minders ------------------------

alignas(16) char g_stack[64 * 1024];  // the vforked child's, until it execs

// Children of ours that are minders, so that killing what an inline child left behind spares
// them. Only the spawner fills it; a minder's copy is cleared.
constexpr int kMaxMinders = 4096;
pid_t g_minders[kMaxMinders];
int g_minder_count = 0;

bool IsMinder(pid_t pid) {
  for (int i = 0; i < g_minder_count; ++i) {
    if (g_minders[i] == pid) return true;
  }
  return false;
}

void ForgetMinder(pid_t pid) {
  for (int i = 0; i < g_minder_count; ++i) {
    if (g_minders[i] == pid) {
      g_minders[i] = g_minders[--g_minder_count];
      return;
    }
  }
}

// Reaps every child that has exited, minders included, without waiting. False when no child
// at all is left.
bool ReapExited() {
  for (;;) {
    const pid_t done = waitpid(-1, nullptr, WNOHANG | __WALL);
    if (done > 0) {
      ForgetMinder(done);
      continue;
    }
    if (done < 0 && errno == EINTR) continue;
    return done == 0;
  }
}

// SIGKILLs every remaining child of ours but the minders (the contender's orphans, whatever
// their group or session) and reaps it; each one killed hands its own children to us, so this
// loops until there are none. Returns how many were killed.
int KillEverythingLeft() {
  int killed = 0;
  char path[64];
  const pid_t self = getpid();
  snprintf(path, sizeof path, "/proc/%d/task/%d/children", self, self);
  for (;;) {
    // No child at all (the usual case) needs no look at /proc.
    if (!ReapExited()) return killed;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char text[4096];
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0) close(fd);
    pid_t first = 0;
    if (n > 0) {
      text[n] = '\0';
      for (char* p = text; *p != '\0';) {
        char* end;
        const long pid = strtol(p, &end, 10);
        if (end == p) break;
        p = end;
        if (pid <= 0 || IsMinder(static_cast<pid_t>(pid))) continue;
        if (kill(static_cast<pid_t>(pid), SIGKILL) == 0) ++killed;
        if (first == 0) first = static_cast<pid_t>(pid);
      }
    }
    if (first == 0) return killed;
    // Blocks until that one is gone; the next pass sees its children, now ours.
    while (waitpid(first, nullptr, __WALL) < 0 && errno == EINTR) {
    }
  }
}

bool ParseRequest(size_t size, Plan* plan) {
  if (size < sizeof(SpawnHeader)) return false;
  SpawnHeader header;
  memcpy(&header, g_request, sizeof header);
  if (header.magic != kMagic) return false;
  size_t offset = sizeof header;
  if (header.nlimits > 64 || offset + header.nlimits * sizeof(SpawnLimit) > size) return false;
  plan->flags = header.flags;
  plan->limits = reinterpret_cast<const SpawnLimit*>(g_request + offset);
  plan->nlimits = header.nlimits;
  offset += header.nlimits * sizeof(SpawnLimit);
  // argv and envp share one table: argv..., nullptr, env..., nullptr.
  const size_t count = static_cast<size_t>(header.argc) + header.envc;
  char** table = static_cast<char**>(calloc(count + 2, sizeof(char*)));
  if (table == nullptr) return false;
  plan->argv = table;  // freed by the caller, parsed or not
  for (size_t i = 0; i < count + 2; ++i) {
    if (offset >= size) return false;
    char* text = g_request + offset;
    const void* nul = memchr(text, '\0', size - offset);
    if (nul == nullptr) return false;
    offset = static_cast<size_t>(static_cast<const char*>(nul) - g_request) + 1;
    if (i == 0) {
      plan->program = text;
    } else if (i == 1) {
      plan->cwd = text[0] != '\0' ? text : nullptr;
    } else if (i - 2 < header.argc) {
      table[i - 2] = text;
    } else {
      table[i - 1] = text;  // skips the argv terminator
    }
  }
  plan->envp = table + header.argc + 1;
  return header.argc > 0;
}

Plan PlanFor(const int* fds, int nfds) {
  Plan plan;
  plan.minder = getpid();
  plan.in = fds[0];
  plan.out = fds[1];
  plan.err = fds[2];
  plan.result = fds[3];
  plan.go = nfds > 4 ? fds[4] : -1;
  return plan;
}

// One child being minded: what its report needs once it is reaped.
struct Minded {
  pid_t pid = 0;  // 0: none
  int result = -1;
  std::int64_t start_ns = 0;
  int exec_errno = 0;
  int error_pipe = -1;  // a held child's: its exec failure shows here only after it is let go
};

// Creates the child and sends SpawnStarted. Closes the request's descriptors but the result
// pipe, which the returned Minded keeps (pid 0 when nothing is left to mind).
Minded Start(Plan& plan, size_t size) {
  Minded minded;
  SpawnStarted started;
  const bool parsed = ParseRequest(size, &plan);
  int error_pipe[2] = {-1, -1};
  if (!parsed || ((plan.flags & kSpawnHold) != 0) != (plan.go >= 0)) {
    started.exec_errno = EINVAL;
  } else if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    started.exec_errno = errno;
  }
  if (started.exec_errno != 0) {
    free(plan.argv);
    for (int fd : {plan.in, plan.out, plan.err, plan.go}) {
      if (fd >= 0) close(fd);
    }
    WriteAll(plan.result, &started, sizeof started);
    close(plan.result);
    return minded;
  }
  plan.error_pipe = error_pipe[1];

  const bool hold = (plan.flags & kSpawnHold) != 0;
  minded.start_ns = NowNs();
  pid_t pid;
  if (hold) {
    // The engine attaches to the pid while the child waits: the minder must keep running, so
    // this is a real fork of the (tiny) minder.
    pid = fork();
    if (pid == 0) ExecChild(&plan);
    // The engine may signal the group as soon as it has the pid: it must exist by then.
    if (pid > 0) setpgid(pid, pid);
  } else {
    pid = clone(ExecChild, g_stack + sizeof g_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
  }
  const int spawn_errno = errno;
  free(plan.argv);
  close(error_pipe[1]);
  for (int fd : {plan.in, plan.out, plan.err, plan.go}) {
    if (fd >= 0) close(fd);
  }
  if (pid < 0) {
    close(error_pipe[0]);
    started.exec_errno = spawn_errno;
    WriteAll(plan.result, &started, sizeof started);
    close(plan.result);
    return minded;
  }
  started.pid = pid;
  if (hold) {
    minded.error_pipe = error_pipe[0];
  } else {
    // The child has exec'd (the pipe closed) or failed (its errno is waiting) by now.
    if (read(error_pipe[0], &minded.exec_errno, sizeof minded.exec_errno) != sizeof minded.exec_errno) {
      minded.exec_errno = 0;
    }
    close(error_pipe[0]);
    started.exec_errno = minded.exec_errno;
  }
  WriteAll(plan.result, &started, sizeof started);
  minded.pid = pid;
  minded.result = plan.result;
  return minded;
}

// The child was reaped with `status` and `usage`: kill what it left, report, forget it.
void Finish(Minded& minded, int status, const rusage& usage) {
  SpawnDone done;
  done.wall_ns = NowNs() - minded.start_ns;
  done.status = status;
  done.user_us = usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec;
  done.sys_us = usage.ru_stime.tv_sec * 1000000LL + usage.ru_stime.tv_usec;
  done.max_rss_kib = usage.ru_maxrss;
  if (minded.error_pipe >= 0) {
    // Every copy of the write end is closed by now (at exec, or by the child's exit).
    if (read(minded.error_pipe, &minded.exec_errno, sizeof minded.exec_errno) != sizeof minded.exec_errno) {
      minded.exec_errno = 0;
    }
    close(minded.error_pipe);
  }
  done.exec_errno = minded.exec_errno;
  // Helpers the child left in its group, and anything that escaped it with setsid().
  kill(-minded.pid, SIGKILL);
  done.leftovers = KillEverythingLeft();
  WriteAll(minded.result, &done, sizeof done);
  close(minded.result);
  minded = Minded{};
}

// Reaps whatever has exited; finishes `minded` if its child is among them.
void ReapChildren(Minded& minded) {
  for (;;) {
    int status = 0;
    rusage usage = {};
    const pid_t who = wait4(-1, &status, WNOHANG | __WALL, &usage);
    if (who < 0 && errno == EINTR) continue;
    if (who <= 0) return;
    if (minded.pid != 0 && who == minded.pid) {
      Finish(minded, status, usage);
    } else {
      ForgetMinder(who);
    }
  }
}

void KillChild(const Minded& minded) {
  if (minded.pid == 0) return;
  kill(-minded.pid, SIGKILL);
  kill(minded.pid, SIGKILL);
}

void DrainSignals(int signals, bool* stop) {
  signalfd_siginfo info;
  while (read(signals, &info, sizeof info) == sizeof info) {
    if (info.ssi_signo != SIGCHLD) *stop = true;
  }
}

// --- the minder ------------------------------------------------------------------------

[[noreturn]] void Mind(size_t size, const int* fds, int nfds, pid_t spawner) {
  // The spawner is single-threaded: its death is the engine's death or a bug; either way the
  // contender must go too.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != spawner) _exit(1);
  g_minder_count = 0;  // the spawner's other minders are not ours
  close(kSocketFd);
  prctl(PR_SET_CHILD_SUBREAPER, 1);  // not inherited: the orphans of this child come here
  sigset_t watched;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  sigaddset(&watched, SIGTERM);
  sigaddset(&watched, SIGHUP);
  sigaddset(&watched, SIGINT);
  // Our own, not the spawner's: a signalfd shared across fork is documented only for read().
  const int signals = signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
  close(kSignalFd);
  if (signals < 0) {
    SpawnStarted refused;
    refused.exec_errno = errno;
    WriteAll(fds[3], &refused, sizeof refused);
    _exit(1);
  }
  Plan plan = PlanFor(fds, nfds);
  Minded minded = Start(plan, size);
  bool stop = false;
  while (minded.pid != 0) {
    pollfd watch = {signals, POLLIN, 0};
    if (poll(&watch, 1, -1) < 0 && errno != EINTR) break;
    DrainSignals(signals, &stop);
    // The spawner died (PDEATHSIG) or someone asked us to stop: the child goes first.
    if (stop) KillChild(minded);
    ReapChildren(minded);
  }
  _exit(0);
}

}  // namespace

int main() {
  const pid_t self = getpid();
  // Orphans of the inline child come to us, so that they can be killed when it exits.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // A result pipe whose reader is gone must not kill us; the child gets SIGPIPE back.
  signal(SIGPIPE, SIG_IGN);
  sigset_t watched;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  sigaddset(&watched, SIGTERM);
  sigaddset(&watched, SIGHUP);
  sigaddset(&watched, SIGINT);
  sigprocmask(SIG_BLOCK, &watched, nullptr);
  const int signals = signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signals < 0) return 1;
  if (signals != kSignalFd) {
    if (dup3(signals, kSignalFd, O_CLOEXEC) < 0) return 1;
    close(signals);
  }
  Minded inline_child;
  bool stop = false;
  for (;;) {
    if (stop) {
      // The engine is gone, or we were told to stop: nothing we started may outlive us.
      KillChild(inline_child);
      if (inline_child.pid == 0) {
        KillEverythingLeft();
        return 0;
      }
    }
    pollfd watch[2] = {{kSignalFd, POLLIN, 0}, {kSocketFd, POLLIN, 0}};
    if (poll(watch, stop ? 1 : 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (watch[0].revents != 0) {
      DrainSignals(kSignalFd, &stop);
      ReapChildren(inline_child);
    }
    if (stop || watch[1].revents == 0) continue;
    char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    iovec data = {g_request, sizeof g_request};
    msghdr message = {};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t size = recvmsg(kSocketFd, &message, MSG_CMSG_CLOEXEC);
    if (size < 0 && errno == EINTR) continue;
    // End of file: the engine is gone. Our minders get SIGTERM from PR_SET_PDEATHSIG.
    if (size <= 0) {
      stop = true;
      continue;
    }
    int fds[kMaxFds];
    int nfds = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        nfds = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        memcpy(fds, CMSG_DATA(c), sizeof(int) * static_cast<size_t>(nfds));
      }
    }
    if (nfds < 4 || (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
      if (nfds >= 4) {
        SpawnStarted refused;
        refused.exec_errno = E2BIG;
        WriteAll(fds[3], &refused, sizeof refused);
      }
      for (int i = 0; i < nfds; ++i) close(fds[i]);
      continue;
    }
    const bool hold = nfds > 4;
    if (inline_child.pid == 0 && !hold) {
      Plan plan = PlanFor(fds, nfds);
      inline_child = Start(plan, static_cast<size_t>(size));
      continue;
    }
    const pid_t minder = g_minder_count < kMaxMinders ? fork() : -1;
    if (minder == 0) Mind(static_cast<size_t>(size), fds, nfds, self);
    if (minder < 0) {
      SpawnStarted refused;
      refused.exec_errno = g_minder_count < kMaxMinders ? errno : EAGAIN;
      WriteAll(fds[3], &refused, sizeof refused);
    } else {
      g_minders[g_minder_count++] = minder;
    }
    for (int i = 0; i < nfds; ++i) close(fds[i]);
  }
}

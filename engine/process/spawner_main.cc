// perfengine-spawner: the small process every child of the engine is started from (see
// spawner_protocol.h for why). It is linked statically and allocates almost nothing, so the
// memory a child inherits the high-water mark of is a few hundred KiB.
//
// Two layers: the long-lived spawner reads requests from the engine's socket (fd 3) and forks
// one "minder" per request; the minder becomes a child subreaper, starts the child with
// clone(CLONE_VM | CLONE_VFORK) (or fork() when the engine must attach before exec), reaps it
// with wait4, then SIGKILLs everything the child left behind, in any process group or session,
// because every orphaned descendant is reparented to the minder. Only then does it report.
//
// With kSpawnTraceMaps (parity executions that check isolation) the minder also traces the child
// and everything it starts, and writes what each process mapped executable as it exits.
//
// Lifetime: the spawner exits when the engine's end of the socket closes (the engine exited or
// was SIGKILLed); each minder has PR_SET_PDEATHSIG=SIGTERM on the spawner and each child
// PR_SET_PDEATHSIG=SIGKILL on its minder, so a dead engine leaves no contender behind.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

#include "engine/process/spawner_protocol.h"
#include "engine/process/spawner_sandbox.h"

namespace {

using namespace pe::spawner;

constexpr int kSocketFd = 3;
constexpr int kMaxFds = 6;

// In .bss: only the pages a request actually fills count towards our RSS.
// The request, then its argv and environment table, which ParseRequest puts right after it, so
// that a small request and its table share a page: each page the spawner writes after a fork is
// a copy-on-write fault. Every string takes at least its NUL, so a table has at most as many
// entries as the request has bytes.
alignas(16) char g_request[kMaxRequestBytes + kMaxRequestBytes * sizeof(char*) + 16];

struct Plan {
  std::uint32_t flags = 0;
  const SpawnLimit* limits = nullptr;
  std::uint32_t nlimits = 0;
  const char* program = nullptr;
  const char* cwd = nullptr;  // nullptr: stay where the spawner is
  char** argv = nullptr;
  char** envp = nullptr;
  int in = -1, out = -1, err = -1, result = -1, go = -1;
  int maps = -1;            // kSpawnTraceMaps: where each traced process's mapped files go
  int pid_pipe = -1;        // kSpawnQuietStart: where the child's pid goes at once
  int trace_go = -1;        // kSpawnTraceMaps: closed by the minder once it traces the child
  int trace_go_write = -1;  // its other end, which the child closes at once
  int error_pipe = -1;      // the write end; the child reports a failing step's errno here
  pid_t minder = 0;
  SandboxPath paths[kMaxSandboxPaths];  // kSpawnSandbox: what the child may write and must not see
  int npaths = 0;
};

// Whether this kernel lets a minder build a sandbox (ProbeSandbox, once, when the spawner starts):
// 0, or the errno a request for one is answered with in SpawnDone::sandbox_errno.
int g_sandbox_refused = 0;

std::int64_t NowNs() {
  // A system call, not the vDSO: the vDSO's pages are not copied into a forked minder, and
  // faulting them in costs more than the call.
  timespec ts;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
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
  if ((plan.flags & kSpawnNoAslr) != 0) {
    const int persona = personality(0xffffffff);
    if (persona == -1 || personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1) FailChild(plan);
  }
  // Anything not opened with O_CLOEXEC must not leak into the contender.
  syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
  if (plan.trace_go_write >= 0) close(plan.trace_go_write);  // or the read below never ends
  const int waits[2] = {plan.trace_go, plan.go};             // the minder tracing it, then the engine
  for (int wait_on : waits) {
    if (wait_on < 0) continue;
    char byte;
    while (read(wait_on, &byte, 1) < 0 && errno == EINTR) {
    }
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(plan.program, plan.argv, plan.envp);
  FailChild(plan);
}

// --- the minder ------------------------------------------------------------------------

// In .bss, like the request: a line of /proc/PID/maps (a path is at most PATH_MAX) and a read.
char g_maps_line[8192];
char g_maps_read[16384];

// Writes "PID PATH\n" for each file `pid` maps executable, read from /proc/PID/maps while the
// process is stopped at its exit (its address space is still whole there; a zombie's maps are
// empty). A file's several mappings are usually adjacent: each run of them is written once.
void RecordMaps(pid_t pid, int out) {
  if (out < 0) return;
  char path[64];
  snprintf(path, sizeof path, "%d/maps", pid);
  const int fd = openat(HostProc(), path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  size_t used = 0;
  char last[4096] = "";
  auto line_done = [&] {
    g_maps_line[used] = '\0';
    used = 0;
    // "start-end perms offset dev inode   path": the first '/' starts the path.
    const char* perms = strchr(g_maps_line, ' ');
    const char* file = strchr(g_maps_line, '/');
    if (perms == nullptr || file == nullptr || strlen(perms) < 4 || perms[3] != 'x') return;
    if (strcmp(file, last) == 0) return;
    snprintf(last, sizeof last, "%s", file);
    char head[32];
    const int n = snprintf(head, sizeof head, "%d ", pid);
    WriteAll(out, head, static_cast<size_t>(n));
    WriteAll(out, file, strlen(file));
    WriteAll(out, "\n", 1);
  };
  for (;;) {
    const ssize_t n = read(fd, g_maps_read, sizeof g_maps_read);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (g_maps_read[i] == '\n') {
        line_done();
      } else if (used + 1 < sizeof g_maps_line) {
        g_maps_line[used++] = g_maps_read[i];
      }
    }
  }
  if (used > 0) line_done();
  close(fd);
}

// A traced process stopped (`status` from wait4): records its maps when it is about to exit,
// then lets it go on. A signal it was about to receive is delivered; a group-stop is kept
// (PTRACE_LISTEN) so that SIGSTOP still stops it.
void ContinueTracee(pid_t who, int status, int maps) {
  const int event = status >> 16;
  const int sig = WSTOPSIG(status);
  if (event == PTRACE_EVENT_EXIT) RecordMaps(who, maps);
  if (event == PTRACE_EVENT_STOP && sig != SIGTRAP) {
    ptrace(PTRACE_LISTEN, who, nullptr, nullptr);
    return;
  }
  // Events (fork, clone, exec, exit, a new tracee's first stop) deliver nothing.
  ptrace(PTRACE_CONT, who, nullptr, reinterpret_cast<void*>(static_cast<intptr_t>(event != 0 ? 0 : sig)));
}

// SIGKILLs every remaining child of ours (the contender's orphans, whatever their group or
// session) and reaps it; each one killed hands its own children to us, so this loops until
// there are none. Returns how many were killed.
int KillEverythingLeft(int maps) {
  int killed = 0;
  // The minder is single-threaded, so its thread's children are all of its children. A fixed
  // path: formatting the pid would page in printf's code in the minder after every child. The
  // host's /proc: a sandboxed minder's own /proc is its child's namespace's.
  const char* path = "thread-self/children";
  int status = 0;
  for (;;) {
    pid_t done = waitpid(-1, &status, WNOHANG | __WALL);
    if (done > 0 && WIFSTOPPED(status)) ContinueTracee(done, status, maps);  // a tracee, still alive
    if (done > 0) continue;
    if (done < 0) {
      if (errno == EINTR) continue;
      return killed;  // ECHILD: nothing left
    }
    int fd = openat(HostProc(), path, O_RDONLY | O_CLOEXEC);
    char text[4096];
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0) close(fd);
    if (n > 0) {
      text[n] = '\0';
      for (char* p = text; *p != '\0';) {
        char* end;
        long pid = strtol(p, &end, 10);
        if (end == p) break;
        if (pid > 0 && kill(static_cast<pid_t>(pid), SIGKILL) == 0) ++killed;
        p = end;
      }
    }
    // Blocks until one of them is gone; the next pass sees its children, now ours.
    pid_t gone;
    while ((gone = waitpid(-1, &status, __WALL)) < 0 && errno == EINTR) {
    }
    if (gone > 0 && WIFSTOPPED(status)) ContinueTracee(gone, status, maps);
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
  if (count + 2 > size) return false;
  char** table = reinterpret_cast<char**>(g_request + (size + 15) / 16 * 16);
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
  if (header.npaths > kMaxSandboxPaths || (header.npaths > 0 && (header.flags & kSpawnSandbox) == 0)) return false;
  for (std::uint32_t i = 0; i < header.npaths; ++i) {
    if (offset >= size) return false;
    char* text = g_request + offset;
    const void* nul = memchr(text, '\0', size - offset);
    if (nul == nullptr || (text[0] != 'w' && text[0] != 'h') || text[1] != '/') return false;
    offset = static_cast<size_t>(static_cast<const char*>(nul) - g_request) + 1;
    plan->paths[i] = {text[0], text + 1};
  }
  plan->npaths = static_cast<int>(header.npaths);
  table[header.argc] = nullptr;  // the table's memory held an earlier request's
  table[count + 1] = nullptr;
  plan->argv = table;
  plan->envp = table + header.argc + 1;
  return header.argc > 0;
}

// Reads the request and the descriptors that came with it into `plan`, in the spawner, before
// the fork: a minder that parsed it would take a page fault for every page of the table and of
// malloc it wrote, and on a paravirtualised guest each costs tens of microseconds.
bool PlanRequest(size_t size, const int* fds, int nfds, Plan* plan) {
  if (!ParseRequest(size, plan)) return false;
  const bool hold = (plan->flags & kSpawnHold) != 0;
  const bool trace = (plan->flags & kSpawnTraceMaps) != 0;
  const bool quiet = (plan->flags & kSpawnQuietStart) != 0;
  if (quiet && (hold || trace)) return false;
  if (nfds != 4 + int{hold} + int{trace} + int{quiet}) return false;
  plan->in = fds[0];
  plan->out = fds[1];
  plan->err = fds[2];
  plan->result = fds[3];
  plan->go = hold ? fds[4] : -1;
  plan->maps = trace ? fds[hold ? 5 : 4] : -1;
  plan->pid_pipe = quiet ? fds[4] : -1;
  return true;
}

// A start that failed before the child ran: the reason goes back at once and the minder ends.
[[noreturn]] void RefuseStart(const Plan& plan, int error, int sandbox_step = 0) {
  SpawnStarted started;
  started.exec_errno = error;
  started.sandbox_step = sandbox_step;
  WriteAll(plan.result, &started, sizeof started);
  _exit(1);
}

// The minder's own set-up; returns the descriptor its signals arrive on (SIGCHLD, and the requests
// to stop: SIGTERM from the spawner's death, SIGHUP, SIGINT).
int PrepareMinder(const Plan& plan, pid_t spawner) {
  // The spawner is single-threaded: its death is the engine's death or a bug; either way the
  // contender must go too.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != spawner) _exit(1);
  close(kSocketFd);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // The spawner ignores SIGCHLD (see main); the minder waits for its children, and the child
  // would inherit an ignored SIGCHLD through exec.
  signal(SIGCHLD, SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t watched;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  sigaddset(&watched, SIGTERM);
  sigaddset(&watched, SIGHUP);
  sigaddset(&watched, SIGINT);
  sigprocmask(SIG_BLOCK, &watched, nullptr);
  const int signals = signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signals < 0) RefuseStart(plan, EINVAL);
  return signals;
}

// Starts the child; its pid, or -1 with errno set. When the engine (hold) or the minder (trace)
// must act before the exec, the minder must keep running: a real fork of the (tiny) minder;
// otherwise clone(CLONE_VM | CLONE_VFORK), which returns once the child has exec'd or failed.
pid_t StartChild(Plan& plan, int* trace_errno) {
  const bool trace = (plan.flags & kSpawnTraceMaps) != 0;
  if ((plan.flags & kSpawnHold) == 0 && !trace) {
    constexpr size_t kStack = 64 * 1024;
    void* stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    return clone(ExecChild, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
  }
  const pid_t pid = fork();
  if (pid == 0) ExecChild(&plan);
  const int fork_errno = errno;
  // The engine may signal the group as soon as it has the pid: it must exist by then.
  if (pid > 0) setpgid(pid, pid);
  if (pid > 0 && trace) {
    // Seized before exec, so the exec, every fork and clone and every exit stop for us; the
    // child waits on trace_go until then. EXITKILL: a dead minder leaves no tracee stopped.
    const long options = PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
                         PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
    if (ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(options)) != 0) {
      *trace_errno = errno;
      kill(pid, SIGKILL);
    }
  }
  if (trace) {
    close(plan.trace_go);
    close(plan.trace_go_write);
  }
  errno = fork_errno;
  return pid;
}

// Waits until the child `pid` is reaped, and fills `done` with its status and its own rusage. A
// held child's exec failure arrives on `error_pipe` meanwhile (`*error_pipe_open` until then);
// traced processes stopped on their way are let go on; a request to stop kills the child first.
void AwaitChild(const Plan& plan, pid_t pid, int signals, int error_pipe, bool* error_pipe_open, int* exec_errno,
                std::int64_t start_ns, SpawnDone* done) {
  for (;;) {
    pollfd fds_to_watch[2] = {{signals, POLLIN, 0}, {error_pipe, POLLIN, 0}};
    if (poll(fds_to_watch, *error_pipe_open ? 2 : 1, -1) < 0 && errno != EINTR) return;
    if (*error_pipe_open && fds_to_watch[1].revents != 0) {
      if (read(error_pipe, exec_errno, sizeof *exec_errno) != sizeof *exec_errno) *exec_errno = 0;
      *error_pipe_open = false;
    }
    if ((fds_to_watch[0].revents & POLLIN) == 0) continue;
    signalfd_siginfo info;
    while (read(signals, &info, sizeof info) == sizeof info) {
      if (info.ssi_signo != SIGCHLD) {
        // The spawner died (PDEATHSIG) or someone asked us to stop: the child goes first.
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
      }
    }
    int status = 0;
    rusage usage = {};
    for (;;) {
      const pid_t who = wait4(-1, &status, WNOHANG | __WALL, &usage);
      if (who <= 0) break;
      if (WIFSTOPPED(status)) {
        ContinueTracee(who, status, plan.maps);
        continue;
      }
      if (who == pid) {
        done->wall_ns = NowNs() - start_ns;
        done->status = status;
        done->user_us = usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec;
        done->sys_us = usage.ru_stime.tv_sec * 1000000LL + usage.ru_stime.tv_usec;
        done->max_rss_kib = usage.ru_maxrss;
        return;
      }
    }
  }
}

// The end of a request: the SpawnDone, after the SpawnStarted for a quiet start (in one write,
// so the engine wakes once: both fit in a pipe's atomic write).
void Report(const Plan& plan, const SpawnStarted& started, const SpawnDone& done) {
  if ((plan.flags & kSpawnQuietStart) == 0) {
    WriteAll(plan.result, &done, sizeof done);
    return;
  }
  struct {
    SpawnStarted started;
    SpawnDone done;
  } both = {started, done};
  static_assert(sizeof both <= PIPE_BUF);
  WriteAll(plan.result, &both, sizeof both);
}

[[noreturn]] void Mind(Plan plan, pid_t spawner) {
  const int signals = PrepareMinder(plan, spawner);
  plan.minder = getpid();
  const bool hold = (plan.flags & kSpawnHold) != 0;
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) RefuseStart(plan, errno);
  plan.error_pipe = error_pipe[1];
  int trace_go[2] = {-1, -1};
  if ((plan.flags & kSpawnTraceMaps) != 0 && pipe2(trace_go, O_CLOEXEC) != 0) RefuseStart(plan, errno);
  plan.trace_go = trace_go[0];
  plan.trace_go_write = trace_go[1];

  // The sandbox is built before the clock starts: it costs the child's timed window nothing.
  pid_t init = -1;
  const bool sandboxed = (plan.flags & kSpawnSandbox) != 0 && g_sandbox_refused == 0;
  if (sandboxed) {
    int step = 0;
    if (const int error = EnterSandbox(plan.paths, plan.npaths, &init, &step); error != 0) {
      RefuseStart(plan, error, step);
    }
    plan.minder = 0;  // what the child's getppid() says of a parent outside its pid namespace
  }

  const std::int64_t start_ns = NowNs();
  int trace_errno = 0;
  const pid_t pid = StartChild(plan, &trace_errno);
  const int spawn_errno = errno;
  close(error_pipe[1]);
  close(plan.in);
  close(plan.out);
  close(plan.err);
  if (pid < 0) RefuseStart(plan, spawn_errno);
  SpawnStarted started;
  started.pid = pid;
  int exec_errno = 0;
  bool error_pipe_open = true;
  if (!hold) {
    // The child has exec'd (the pipe closed) or failed (its errno is waiting) by now; a traced
    // one, once it is let go.
    if (read(error_pipe[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno) exec_errno = 0;
    if (trace_errno != 0) exec_errno = trace_errno;
    error_pipe_open = false;
    started.exec_errno = exec_errno;
  }
  if (plan.pid_pipe >= 0) {
    // Quiet: nobody waits on this pipe; the SpawnStarted itself goes with the SpawnDone.
    WriteAll(plan.pid_pipe, &started, sizeof started);
    close(plan.pid_pipe);
  } else {
    WriteAll(plan.result, &started, sizeof started);
  }

  SpawnDone done;
  AwaitChild(plan, pid, signals, error_pipe[0], &error_pipe_open, &exec_errno, start_ns, &done);
  if (error_pipe_open && read(error_pipe[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno) {
    exec_errno = 0;
  }
  // A child that could not be traced was killed before exec: that is why it did not run.
  done.exec_errno = trace_errno != 0 ? trace_errno : exec_errno;
  // Helpers the child left in its group, and anything that escaped it with setsid(); in a sandbox
  // they were handed to its init, and killing init kills everything in the namespace.
  kill(-pid, SIGKILL);
  if (sandboxed) {
    done.leftovers = CountSandboxed();
    KillEverythingLeft(plan.maps);  // init, and with it the namespace
  } else {
    done.leftovers = KillEverythingLeft(plan.maps);
    if ((plan.flags & kSpawnSandbox) != 0) done.sandbox_errno = g_sandbox_refused;
  }
  Report(plan, started, done);
  _exit(0);
}

// fork() without glibc's wrapper: the wrapper's bookkeeping for the child (resetting stdio's and
// malloc's locks, storing the new thread id) writes three pages of libc's data and the thread
// control block, and each written page is a copy-on-write fault in the minder and again in the
// spawner. The spawner is single-threaded and holds no lock here, and the minder uses no libc
// state that the bookkeeping resets (no stdio stream, no malloc, no thread id of its own).
pid_t ForkMinder() { return static_cast<pid_t>(syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, 0)); }

}  // namespace

int main() {
  const pid_t self = getpid();
  OpenHostProc();
  int refused_step = 0;
  g_sandbox_refused = ProbeSandbox(&refused_step);
  // An ignored SIGCHLD: the kernel reaps each minder as it exits, so the spawner is not woken
  // between one execution and the next to reap it (it needs no minder's status); it sleeps in
  // recvmsg until the engine's next request.
  signal(SIGCHLD, SIG_IGN);
  for (;;) {
    char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    iovec data = {g_request, kMaxRequestBytes};
    msghdr message = {};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t size = recvmsg(kSocketFd, &message, MSG_CMSG_CLOEXEC);
    if (size < 0 && errno == EINTR) continue;
    // End of file: the engine is gone. Our minders get SIGTERM from PR_SET_PDEATHSIG.
    if (size <= 0) return 0;
    int fds[kMaxFds];
    int nfds = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        nfds = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        memcpy(fds, CMSG_DATA(c), sizeof(int) * static_cast<size_t>(nfds));
      }
    }
    // Every request ends here, with its descriptors closed; one that is refused (too large,
    // malformed, or no minder could be forked) first gets its reason on its result pipe.
    int refused = 0;
    Plan plan;
    if (nfds < 4 || (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
      refused = E2BIG;
    } else if (!PlanRequest(static_cast<size_t>(size), fds, nfds, &plan)) {
      refused = EINVAL;
    } else {
      const pid_t minder = ForkMinder();
      if (minder == 0) Mind(plan, self);
      if (minder < 0) refused = errno;
    }
    if (refused != 0 && nfds >= 4) {
      SpawnStarted reply;
      reply.exec_errno = refused;
      WriteAll(fds[3], &reply, sizeof reply);
    }
    for (int i = 0; i < nfds; ++i) close(fds[i]);
  }
}

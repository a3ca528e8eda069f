#include "engine/measure/perf_counter.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fmt/core.h>
#include <string_view>
#include <system_error>
#include <vector>

#include "engine/runner/interrupt.h"
#include "engine/runner/process_group.h"
#include "engine/runner/program_lookup.h"
#include "engine/runner/wait_for_exit.h"

extern char** environ;

namespace pe::measure {
namespace {

using Clock = std::chrono::steady_clock;

std::string ErrnoText(int error) {
  return std::error_code(error, std::system_category()).message();
}

perf_event_attr InstructionsAttr() {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.inherit = 1;
  attr.enable_on_exec = 1;
  // Tells whether the counter shared the PMU with others (multiplexing) and must be scaled.
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return attr;
}

int OpenCounter(pid_t pid) {
  perf_event_attr attr = InstructionsAttr();
  return static_cast<int>(
      ::syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::vector<std::string> ChildEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text = *entry;
    if (!overrides.contains(std::string(text.substr(0, text.find('='))))) {
      entries.emplace_back(text);
    }
  }
  for (const auto& [name, value] : overrides) entries.push_back(name + "=" + value);
  return entries;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

[[noreturn]] void FailChild(int report_fd) {
  int error = errno;
  ssize_t ignored = ::write(report_fd, &error, sizeof error);
  (void)ignored;
  ::_exit(127);
}

// Runs in the forked child: async-signal-safe calls only, on memory prepared before fork.
// Reports a failing step's errno through `report_fd` and exits 127.
[[noreturn]] void ExecChild(int go_fd, int report_fd, int in_fd, int out_fd, int err_fd,
                            const char* cwd, const char* program, char* const* argv,
                            char* const* envp) {
  auto fail = [report_fd]() { FailChild(report_fd); };
  if (::setpgid(0, 0) != 0) fail();
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::dup2(in_fd, STDIN_FILENO) < 0 || ::dup2(out_fd, STDOUT_FILENO) < 0 ||
      ::dup2(err_fd, STDERR_FILENO) < 0) {
    fail();
  }
  if (cwd != nullptr && ::chdir(cwd) != 0) fail();
  // Waits until the parent has attached the counter (it closes its end of the pipe).
  char byte;
  while (::read(go_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  ::execve(program, argv, envp);
  FailChild(report_fd);
}

int OpenStream(const std::filesystem::path& path, bool for_reading) {
  if (path.empty()) return ::open("/dev/null", (for_reading ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

std::string PathVariable(const Command& command) {
  if (auto it = command.env.find("PATH"); it != command.env.end()) return it->second;
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
}

PerfCount NotRun(std::string note) {
  PerfCount result;
  result.available = true;
  result.outcome.status = Outcome::Status::kSpawnFailed;
  result.outcome.error = note;
  result.note = std::move(note);
  return result;
}

}  // namespace

std::string PerfEventUnavailableReason() {
  int fd = OpenCounter(0);
  if (fd < 0) return "perf_event_open: " + ErrnoText(errno);
  ::close(fd);
  return {};
}

PerfCount CountWithPerfEvent(const Command& command) {
  if (std::string reason = PerfEventUnavailableReason(); !reason.empty()) {
    PerfCount result;
    result.note = reason;
    return result;
  }
  if (interrupt::Interrupted()) return NotRun("interrupted before start");
  if (command.argv.empty()) return NotRun("empty command");
  ResolvedProgram program = ResolveProgram(command.argv[0], command.cwd, PathVariable(command));
  if (!program.error.empty()) return NotRun(program.error);

  Fd in(OpenStream({}, true));
  Fd out(OpenStream(command.stdout_path, false));
  Fd err(OpenStream(command.stderr_path, false));
  if (in.get() < 0 || out.get() < 0 || err.get() < 0) {
    return NotRun(fmt::format("cannot open the command's output files: {}", ErrnoText(errno)));
  }
  int go[2];
  int report[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return NotRun("pipe: " + ErrnoText(errno));
  Fd go_read(go[0]);
  Fd go_write(go[1]);
  if (::pipe2(report, O_CLOEXEC) != 0) return NotRun("pipe: " + ErrnoText(errno));
  Fd report_read(report[0]);
  Fd report_write(report[1]);

  std::vector<std::string> argv_strings = command.argv;
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<std::string> env_strings = ChildEnvironment(command.env);
  std::vector<char*> envp = Pointers(env_strings);
  std::string cwd = command.cwd.string();
  std::string path = program.path.string();

  const Clock::time_point start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return NotRun("fork: " + ErrnoText(errno));
  if (pid == 0) {
    ExecChild(go_read.get(), report_write.get(), in.get(), out.get(), err.get(),
              cwd.empty() ? nullptr : cwd.c_str(), path.c_str(), argv.data(), envp.data());
  }
  ::setpgid(pid, pid);  // closes the race in which we signal the group before it exists
  interrupt::RegisterGroup(pid);
  go_read.Reset();
  report_write.Reset();
  Fd counter(OpenCounter(pid));
  const int counter_errno = errno;
  // Without a counter the child is killed while it still waits, before it can exec.
  if (counter.get() < 0) KillGroup(pid);
  go_write.Reset();  // lets the child exec

  std::optional<Clock::time_point> deadline;
  if (command.timeout_s > 0) {
    deadline = start + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(command.timeout_s));
  }
  WaitEnd end = WaitForExit(pid, deadline);
  if (end != WaitEnd::kExited) KillGroup(pid);
  int status = 0;
  rusage usage = {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  const Clock::time_point stop = Clock::now();
  KillGroup(pid);
  ReapGroup(pid);
  interrupt::UnregisterGroup(pid);

  PerfCount result;
  result.available = true;
  if (counter.get() < 0) {
    result.available = false;
    result.note = "perf_event_open: " + ErrnoText(counter_errno);
    return result;
  }
  Outcome& outcome = result.outcome;
  outcome.wall_s = std::chrono::duration<double>(stop - start).count();
  outcome.user_s = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
  outcome.sys_s = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  outcome.max_rss_kib = usage.ru_maxrss;
  int exec_errno = 0;
  if (::read(report_read.get(), &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    outcome.status = Outcome::Status::kSpawnFailed;
    outcome.error = fmt::format("cannot start {}: {}", command.argv[0], ErrnoText(exec_errno));
  } else if (end == WaitEnd::kTimedOut) {
    outcome.status = Outcome::Status::kTimedOut;
    outcome.error = fmt::format("timed out after {:g} s; its process group was killed",
                                command.timeout_s);
  } else if (end == WaitEnd::kInterrupted || (interrupt::Interrupted() && WIFSIGNALED(status))) {
    outcome.status = Outcome::Status::kInterrupted;
    outcome.error = "interrupted; its process group was killed";
  } else if (WIFSIGNALED(status)) {
    outcome.status = Outcome::Status::kSignalled;
    outcome.signal = WTERMSIG(status);
    outcome.error = fmt::format("killed by signal {}", outcome.signal);
  } else {
    outcome.exit_code = WEXITSTATUS(status);
    if (outcome.exit_code != 0) {
      outcome.error = fmt::format("exited with status {}", outcome.exit_code);
    }
  }
  if (!outcome.ok()) {
    result.note = "not measured: " + outcome.error;
    return result;
  }
  // value, time enabled, time running (read_format above).
  std::uint64_t values[3] = {};
  if (::read(counter.get(), values, sizeof values) != sizeof values) {
    result.note = "perf_event_open: cannot read the counter: " + ErrnoText(errno);
    return result;
  }
  if (values[2] == 0) {
    result.note = "perf_event_open: the counter was never scheduled on a CPU";
    return result;
  }
  if (values[2] < values[1]) {
    // The PMU was shared with other counters: the kernel's usual linear estimate.
    result.count = static_cast<std::uint64_t>(static_cast<double>(values[0]) *
                                              static_cast<double>(values[1]) /
                                              static_cast<double>(values[2]));
    result.note = fmt::format("counter multiplexed: scaled from {:.1f}% of the run",
                              100.0 * static_cast<double>(values[2]) /
                                  static_cast<double>(values[1]));
  } else {
    result.count = values[0];
  }
  return result;
}

}  // namespace pe::measure

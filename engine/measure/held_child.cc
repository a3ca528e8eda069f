#include "engine/measure/held_child.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fmt/core.h>
#include <optional>
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

int OpenStream(const std::filesystem::path& path, bool for_reading) {
  if (path.empty()) return ::open("/dev/null", (for_reading ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

std::string PathVariable(const Command& command) {
  if (auto it = command.env.find("PATH"); it != command.env.end()) return it->second;
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
}

Outcome NotStarted(std::string error) {
  Outcome outcome;
  outcome.status = Outcome::Status::kSpawnFailed;
  outcome.error = std::move(error);
  return outcome;
}

// What the forked child needs, all prepared before fork.
struct ChildPlan {
  int go_read = -1;
  int go_write = -1;
  int report_write = -1;
  int in = -1;
  int out = -1;
  int err = -1;
  const char* cwd = nullptr;
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
};

[[noreturn]] void FailChild(int report_fd) {
  int error = errno;
  ssize_t ignored = ::write(report_fd, &error, sizeof error);
  (void)ignored;
  ::_exit(127);
}

// Runs in the forked child of a possibly multi-threaded engine: async-signal-safe calls only.
// A failing step's errno goes to the parent through the report pipe.
[[noreturn]] void ExecChild(const ChildPlan& plan) {
  if (::setpgid(0, 0) != 0) FailChild(plan.report_write);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::dup2(plan.in, STDIN_FILENO) < 0 || ::dup2(plan.out, STDOUT_FILENO) < 0 ||
      ::dup2(plan.err, STDERR_FILENO) < 0) {
    FailChild(plan.report_write);
  }
  if (plan.cwd != nullptr && ::chdir(plan.cwd) != 0) FailChild(plan.report_write);
  // Wait for the parent to attach and close its end of the pipe. Our copy of that end must
  // go first, or the read would never see end-of-file.
  ::close(plan.go_write);
  char byte;
  while (::read(plan.go_read, &byte, 1) < 0 && errno == EINTR) {
  }
  ::execve(plan.program, plan.argv, plan.envp);
  FailChild(plan.report_write);
}

}  // namespace

Outcome RunHeld(const Command& command, const std::function<bool(pid_t)>& attach) {
  if (interrupt::Interrupted()) return NotStarted("interrupted before start");
  if (command.argv.empty()) return NotStarted("empty command");
  ResolvedProgram program = ResolveProgram(command.argv[0], command.cwd, PathVariable(command));
  if (!program.error.empty()) return NotStarted(program.error);
  std::error_code fs_error;
  if (!command.cwd.empty() && !std::filesystem::is_directory(command.cwd, fs_error)) {
    return NotStarted("working directory not found: " + command.cwd.string());
  }
  Fd in(OpenStream({}, true));
  Fd out(OpenStream(command.stdout_path, false));
  Fd err(OpenStream(command.stderr_path, false));
  if (in.get() < 0 || out.get() < 0 || err.get() < 0) {
    return NotStarted("cannot open the command's output files: " + ErrnoText(errno));
  }
  int go[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return NotStarted("pipe: " + ErrnoText(errno));
  Fd go_read(go[0]);
  Fd go_write(go[1]);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return NotStarted("pipe: " + ErrnoText(errno));
  Fd report_read(report[0]);
  Fd report_write(report[1]);

  std::vector<std::string> argv_strings = command.argv;
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<std::string> env_strings = ChildEnvironment(command.env);
  std::vector<char*> envp = Pointers(env_strings);
  const std::string cwd = command.cwd.string();
  const std::string path = program.path.string();
  ChildPlan plan;
  plan.go_read = go_read.get();
  plan.go_write = go_write.get();
  plan.report_write = report_write.get();
  plan.in = in.get();
  plan.out = out.get();
  plan.err = err.get();
  plan.cwd = cwd.empty() ? nullptr : cwd.c_str();
  plan.program = path.c_str();
  plan.argv = argv.data();
  plan.envp = envp.data();

  const Clock::time_point start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return NotStarted("fork: " + ErrnoText(errno));
  if (pid == 0) ExecChild(plan);
  ::setpgid(pid, pid);  // closes the race in which we signal the group before it exists
  interrupt::RegisterGroup(pid);
  go_read.Reset();
  report_write.Reset();
  const bool attached = attach(pid);
  // A child that must not run is killed while it still waits, before it can exec.
  if (!attached) KillGroup(pid);
  go_write.Reset();

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
  if (!attached) return NotStarted("not started: could not attach to the child");

  Outcome outcome;
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
  return outcome;
}

}  // namespace pe::measure

// Boost.Process spawns; its child object is detached right after, and the child reaped with
// wait4(pid), because only wait4 on that pid yields the child's own rusage;
// getrusage(RUSAGE_CHILDREN) would sum every child so far and report the largest peak RSS any
// of them ever reached.
#include "engine/runner/spawn.h"

#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <cerrno>
#include <cstdlib>
#include <fmt/core.h>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/runner/child_setup.h"
#include "engine/runner/interrupt.h"
#include "engine/runner/program_lookup.h"

namespace pe {
namespace {

using Clock = std::chrono::steady_clock;

class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string ErrnoText(int error) { return std::error_code(error, std::system_category()).message(); }

// Opens one of the child's standard streams in the engine, so a bad path is reported before
// anything is spawned. O_CLOEXEC keeps it out of children spawned by other threads.
std::optional<UniqueFd> OpenStream(const std::filesystem::path& path, bool for_reading,
                                   const char* stream, std::string* error) {
  const char* target = path.empty() ? "/dev/null" : path.c_str();
  int flags = O_CLOEXEC | (for_reading ? O_RDONLY : O_WRONLY);
  if (!for_reading && !path.empty()) flags |= O_CREAT | O_TRUNC;
  int fd = ::open(target, flags, 0644);
  if (fd < 0) {
    *error = fmt::format("cannot open {} file {}: {}", stream, target, ErrnoText(errno));
    return std::nullopt;
  }
  return UniqueFd(fd);
}

std::string PathVariable(const Command& command) {
  if (auto it = command.env.find("PATH"); it != command.env.end()) return it->second;
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
}

// The engine's environment with the command's variables added or replaced, as NAME=VALUE.
std::vector<std::string> ChildEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text = *entry;
    std::string name(text.substr(0, text.find('=')));
    if (!overrides.contains(name)) entries.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) entries.push_back(name + "=" + value);
  return entries;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (auto& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

double Seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

Spawned NotSpawned(std::string error) {
  Spawned spawned;
  spawned.error = std::move(error);
  return spawned;
}

}  // namespace

std::string SignalName(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev != nullptr ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signal);
}

Spawned SpawnInOwnGroup(const Command& command) {
  if (command.argv.empty()) return NotSpawned("empty command");
  ResolvedProgram program = ResolveProgram(command.argv[0], command.cwd, PathVariable(command));
  if (!program.error.empty()) return NotSpawned(program.error);
  std::error_code fs_error;
  if (!command.cwd.empty() && !std::filesystem::is_directory(command.cwd, fs_error)) {
    return NotSpawned(fmt::format("working directory not found: {}", command.cwd.string()));
  }

  std::string error;
  auto in = OpenStream({}, true, "stdin", &error);
  auto out = in ? OpenStream(command.stdout_path, false, "stdout", &error) : std::nullopt;
  auto err = out ? OpenStream(command.stderr_path, false, "stderr", &error) : std::nullopt;
  if (!err) return NotSpawned(error);

  // Everything the forked child reads is built here, in the parent, before fork.
  std::vector<std::string> argv_strings = command.argv;
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<std::string> env_strings = ChildEnvironment(command.env);
  std::vector<char*> envp = Pointers(env_strings);
  std::string cwd = command.cwd.string();
  ChildSetup setup;
  setup.stdin_fd = in->get();
  setup.stdout_fd = out->get();
  setup.stderr_fd = err->get();
  setup.cwd = cwd.empty() ? nullptr : cwd.c_str();
  setup.argv = argv.data();
  setup.envp = envp.data();
  std::vector<std::string> args(command.argv.begin() + 1, command.argv.end());

  Spawned spawned;
  spawned.start = Clock::now();
  std::error_code spawn_error;
  boost::process::child child(boost::process::exe = program.path.string(),
                              boost::process::args = args, setup, spawn_error);
  if (spawn_error) {
    return NotSpawned(fmt::format("cannot start {}: {}", command.argv[0], spawn_error.message()));
  }
  // From here on we own the pid: Boost must neither wait for it nor kill it on destruction.
  spawned.pid = child.id();
  child.detach();
  interrupt::RegisterGroup(spawned.pid);
  return spawned;
}

Outcome ReapChild(pid_t pid, Clock::time_point start) {
  int status = 0;
  rusage usage = {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  Outcome outcome;
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  outcome.user_s = Seconds(usage.ru_utime);
  outcome.sys_s = Seconds(usage.ru_stime);
  outcome.max_rss_kib = usage.ru_maxrss;  // Linux reports KiB
  if (WIFSIGNALED(status)) {
    outcome.status = Outcome::Status::kSignalled;
    outcome.signal = WTERMSIG(status);
    outcome.error = fmt::format("killed by {}", SignalName(outcome.signal));
  } else {
    outcome.status = Outcome::Status::kExited;
    outcome.exit_code = WEXITSTATUS(status);
    if (outcome.exit_code != 0) {
      outcome.error = fmt::format("exited with status {}", outcome.exit_code);
    }
  }
  return outcome;
}

}  // namespace pe

// Commands as children: a Command's program looked up, its streams opened, started through
// perfengine-spawner (engine/process/spawn.h), and how it ended as an Outcome.
#include "engine/runner/spawn.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <set>
#include <string_view>
#include <system_error>

#include "engine/process/program_lookup.h"
#include "engine/runner/process_group.h"

namespace pe::runner {
namespace {

namespace fs = std::filesystem;

using process::ErrnoText;
using process::NotSpawned;

// A child's stdout or stderr: the file at `path`, emptied, or /dev/null when there is none.
std::optional<UniqueFd> OpenStream(const fs::path& path, const char* stream, std::string* error) {
  const char* target = path.empty() ? "/dev/null" : path.c_str();
  int flags = O_CLOEXEC | O_WRONLY;
  if (!path.empty()) flags |= O_CREAT;
  const int fd = ::open(target, flags, 0644);
  if (fd < 0) {
    *error = fmt::format("cannot open {} file {}: {}", stream, target, ErrnoText(errno));
    return std::nullopt;
  }
  UniqueFd file(fd);
  struct stat info = {};
  if (path.empty() || (::fstat(fd, &info) == 0 && info.st_size == 0)) return file;
  // Emptied here rather than with O_TRUNC, which costs ext4 a transaction even on an empty
  // file, on the path of every execution. Truncating to zero makes ext4 write the file's next
  // contents out when it is next closed (auto_da_alloc): that close must be this one, on an
  // empty file, and not the child's exit, inside its timed window. Hence close and reopen.
  if (::ftruncate(fd, 0) != 0) {
    *error = fmt::format("cannot empty {} file {}: {}", stream, target, ErrnoText(errno));
    return std::nullopt;
  }
  file.Reset();
  const int reopened = ::open(target, O_CLOEXEC | O_WRONLY, 0644);
  if (reopened < 0) {
    *error = fmt::format("cannot open {} file {}: {}", stream, target, ErrnoText(errno));
    return std::nullopt;
  }
  return UniqueFd(reopened);
}

}  // namespace

std::string SignalName(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev != nullptr ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signal);
}

std::vector<MappedFile> ParseMappedFiles(std::string_view text) {
  std::vector<MappedFile> files;
  std::set<std::pair<int, std::string_view>> seen;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) continue;
    int pid = 0;
    const auto [ptr, ec] = std::from_chars(line.data(), line.data() + space, pid);
    if (ec != std::errc() || ptr != line.data() + space) continue;
    const std::string_view path = line.substr(space + 1);
    if (path.empty() || !seen.insert({pid, path}).second) continue;
    files.push_back({pid, std::string(path)});
  }
  return files;
}

Spawned SpawnInOwnGroup(const Command& command, Start start) {
  if (command.argv.empty()) return NotSpawned("empty command");
  process::ResolvedProgram program = process::ResolveProgram(command.argv[0], command.cwd, PathVariable(command.env));
  if (!program.error.empty()) return NotSpawned(program.error);
  std::error_code fs_error;
  if (!command.cwd.empty() && !fs::is_directory(command.cwd, fs_error)) {
    return NotSpawned(fmt::format("working directory not found: {}", command.cwd.string()));
  }
  // One /dev/null for every child's stdin, opened once: it is never written, so sharing it is
  // safe, and it saves an open and a close per execution.
  static const int dev_null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (dev_null < 0) return NotSpawned("cannot open stdin file /dev/null: " + ErrnoText(errno));
  std::string error;
  auto out = OpenStream(command.stdout_path, "stdout", &error);
  auto err = out ? OpenStream(command.stderr_path, "stderr", &error) : std::nullopt;
  if (!err) return NotSpawned(error);

  StartRequest request;
  request.program = program.path;
  request.argv = command.argv;
  request.env = ChildEnvironment(command.env);
  request.cwd = command.cwd;
  request.stdin_fd = dev_null;
  request.stdout_fd = out->get();
  request.stderr_fd = err->get();
  request.sandbox = command.sandbox;
  UniqueFd maps;
  if (command.record_maps) {
    maps = UniqueFd(::memfd_create("perfengine-maps", MFD_CLOEXEC));
    if (maps.get() < 0) return NotSpawned("cannot make the file for mapped files: " + ErrnoText(errno));
    request.maps_fd = maps.get();
  }
  if (command.cpu < 0) {
    request.quiet_start = start == Start::kQuiet && request.maps_fd < 0;
    Spawned spawned = StartProcess(request);
    spawned.maps = std::move(maps);
    return spawned;
  }
  // Pinned: held before exec while its CPU is set, so nothing of the program runs elsewhere.
  request.hold = true;
  Spawned spawned = StartProcess(request);
  if (!spawned.error.empty()) return spawned;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(command.cpu, &cpus);
  if (::sched_setaffinity(spawned.pid, sizeof cpus, &cpus) != 0) {
    const int error = errno;
    KillGroup(spawned.pid);
    ReapChild(spawned);
    return NotSpawned(fmt::format("cannot pin {} to CPU {}: {}", command.argv[0], command.cpu, ErrnoText(error)));
  }
  Release(spawned);
  spawned.maps = std::move(maps);
  return spawned;
}

Outcome ReapChild(Spawned& spawned) {
  const process::Exit exit = process::Reap(spawned);
  Outcome outcome;
  if (!exit.start_error.empty()) {
    outcome.status = Outcome::Status::kSpawnFailed;
    outcome.error = exit.start_error;
    return outcome;
  }
  if (exit.spawner_lost) {
    outcome.status = Outcome::Status::kSignalled;
    outcome.signal = SIGKILL;
    outcome.error = "the process spawner exited; the child was killed";
    outcome.wall_s = exit.wall_s;
    return outcome;
  }
  outcome.wall_s = exit.wall_s;
  outcome.user_s = exit.user_s;
  outcome.sys_s = exit.sys_s;
  outcome.max_rss_kib = exit.max_rss_kib;
  if (exit.sandbox_errno != 0) {
    // ENOSPC from unshare is the user namespaces' limit, not a full disk.
    outcome.sandbox_refused = fmt::format(
        "the kernel refused the namespaces a sandbox needs ({})",
        exit.sandbox_errno == ENOSPC ? "no user namespace is left to this user: sysctl user.max_user_namespaces"
                                     : ErrnoText(exit.sandbox_errno));
  }
  if (spawned.maps.get() >= 0) {
    std::string text;
    char buffer[16384];
    ssize_t n;
    while ((n = ::pread(spawned.maps.get(), buffer, sizeof buffer, static_cast<off_t>(text.size()))) > 0 ||
           (n < 0 && errno == EINTR)) {
      if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
    }
    outcome.mapped = ParseMappedFiles(text);
    spawned.maps.Reset();
  }
  const int status = exit.wait_status;
  if (exit.exec_errno != 0) {
    outcome.status = Outcome::Status::kSpawnFailed;
    outcome.error = ErrnoText(exit.exec_errno);
  } else if (WIFSIGNALED(status)) {
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

}  // namespace pe::runner

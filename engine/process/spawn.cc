// The engine's side of perfengine-spawner: start it once (per process), send it requests, read
// the results. The spawner is started with posix_spawn into its own process group, so Ctrl-C
// at the terminal reaches only the engine, which decides what to kill.
#include "engine/process/spawn.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <system_error>

#include "engine/process/interrupt.h"
#include "engine/process/program_lookup.h"
#include "engine/process/spawner_protocol.h"

extern char** environ;

namespace pe::process {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

bool Executable(const fs::path& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

// Beside the running program first (an installed perfengine), then where the build put it
// (tests and tools linking the engine's libraries); PERFENGINE_SPAWNER overrides both.
fs::path FindSpawner() {
  if (const char* chosen = std::getenv("PERFENGINE_SPAWNER"); chosen != nullptr && *chosen != '\0') {
    return chosen;
  }
  std::error_code error;
  const fs::path beside = fs::read_symlink("/proc/self/exe", error).parent_path() / "perfengine-spawner";
  if (!error && Executable(beside)) return beside;
#ifdef PE_SPAWNER_BUILD_PATH
  if (Executable(PE_SPAWNER_BUILD_PATH)) return PE_SPAWNER_BUILD_PATH;
#endif
  return beside;
}

class SpawnerClient {
 public:
  // Sends one request; starts (or restarts) the spawner when needed. "" on success.
  std::string Send(const std::string& request, const int* fds, int nfds) {
    std::lock_guard lock(mutex_);
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (std::string error = EnsureRunning(); !error.empty()) return error;
      iovec data = {const_cast<char*>(request.data()), request.size()};
      char control[CMSG_SPACE(sizeof(int) * 6)] = {};
      msghdr message = {};
      message.msg_iov = &data;
      message.msg_iovlen = 1;
      message.msg_control = control;
      message.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
      cmsghdr* header = CMSG_FIRSTHDR(&message);
      header->cmsg_level = SOL_SOCKET;
      header->cmsg_type = SCM_RIGHTS;
      header->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
      std::memcpy(CMSG_DATA(header), fds, sizeof(int) * nfds);
      ssize_t sent;
      do {
        sent = ::sendmsg(socket_, &message, MSG_NOSIGNAL);
      } while (sent < 0 && errno == EINTR);
      if (sent == static_cast<ssize_t>(request.size())) return "";
      const int error = errno;
      if (error == EMSGSIZE) return "the command line and environment are too long";
      Stop();  // the spawner died (EPIPE, ECONNRESET): start a new one and try once more
    }
    return "the process spawner does not answer";
  }

  pid_t Pid() {
    std::lock_guard lock(mutex_);
    return owner_ == ::getpid() ? pid_ : -1;
  }

 private:
  std::string EnsureRunning() {
    // A forked copy of the engine (tests do this) must not share the parent's spawner.
    if (owner_ != ::getpid()) {
      if (socket_ >= 0) ::close(socket_);
      socket_ = -1;
      pid_ = -1;
    }
    if (socket_ >= 0) return "";
    const fs::path program = FindSpawner();
    if (!Executable(program)) {
      return fmt::format(
          "perfengine-spawner not found at {} (build target perfengine-spawner, or set "
          "PERFENGINE_SPAWNER)",
          program.string());
    }
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
      return "socketpair: " + ErrnoText(errno);
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pair[1], 3);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    const std::string path = program.string();
    char* argv[] = {const_cast<char*>("perfengine-spawner"), nullptr};
    // No restartable sequences: the kernel writes a registered rseq area (in the thread control
    // block) on every return to the program, and after each fork that write is a copy-on-write
    // fault, in the spawner and again in the minder. Its children get the environment they ask for.
    char* envp[] = {const_cast<char*>("GLIBC_TUNABLES=glibc.pthread.rseq=0"), nullptr};
    pid_t pid = -1;
    const int error = ::posix_spawn(&pid, path.c_str(), &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(pair[1]);
    if (error != 0) {
      ::close(pair[0]);
      return fmt::format("cannot start {}: {}", path, ErrnoText(error));
    }
    socket_ = pair[0];
    pid_ = pid;
    owner_ = ::getpid();
    return "";
  }

  void Stop() {
    if (socket_ >= 0) ::close(socket_);
    socket_ = -1;
    if (pid_ > 0) {
      // It exits on end of file; reap it so it does not linger as a zombie.
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
  }

  std::mutex mutex_;
  int socket_ = -1;
  pid_t pid_ = -1;
  pid_t owner_ = -1;
};

SpawnerClient& Client() {
  static SpawnerClient* client = new SpawnerClient;  // never destroyed: children may outlive statics
  return *client;
}

void Append(std::string& request, const void* data, std::size_t size) {
  request.append(static_cast<const char*>(data), size);
}

void AppendString(std::string& request, std::string_view text) {
  request.append(text);
  request.push_back('\0');
}

// A close-on-exec pipe; false (errno set) when none could be made.
bool MakePipe(UniqueFd& read_end, UniqueFd& write_end) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return false;
  read_end = UniqueFd(ends[0]);
  write_end = UniqueFd(ends[1]);
  return true;
}

bool ReadFull(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// "cannot start NAME: <errno text>" when `started` says the child never ran, after reading the
// SpawnDone that follows on `result_fd` when one was created (the spawner reaps it); empty when
// it started.
std::string StartFailure(int result_fd, const spawner::SpawnStarted& started, const std::string& name) {
  if (started.pid > 0 && started.exec_errno == 0) return "";
  if (started.pid > 0) {
    spawner::SpawnDone ignored;
    ReadFull(result_fd, &ignored, sizeof ignored);
  }
  constexpr int kSteps = static_cast<int>(std::size(spawner::kSandboxSteps));
  if (started.sandbox_step > 0 && started.sandbox_step < kSteps) {
    return fmt::format("cannot start {}: cannot set up its sandbox ({}): {}", name,
                       spawner::kSandboxSteps[started.sandbox_step], ErrnoText(started.exec_errno));
  }
  return fmt::format("cannot start {}: {}", name, ErrnoText(started.exec_errno));
}

}  // namespace

std::string ErrnoText(int error) { return std::error_code(error, std::system_category()).message(); }

Spawned NotSpawned(std::string error) {
  Spawned spawned;
  spawned.error = std::move(error);
  return spawned;
}

void UniqueFd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

pid_t SpawnerPid() { return Client().Pid(); }

std::string PathVariable(const std::map<std::string, std::string>& env) {
  if (auto it = env.find("PATH"); it != env.end()) return it->second;
  return EnginePathVariable();
}

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

Spawned StartProcess(const StartRequest& request) {
  if (request.argv.empty()) return NotSpawned("empty command");
  std::string message;
  spawner::SpawnHeader header;
  header.flags = (request.hold ? spawner::kSpawnHold : 0) | (request.maps_fd >= 0 ? spawner::kSpawnTraceMaps : 0) |
                 (request.quiet_start ? spawner::kSpawnQuietStart : 0) |
                 (request.sandbox.enabled ? spawner::kSpawnSandbox : 0) | (request.no_aslr ? spawner::kSpawnNoAslr : 0);
  if (request.sandbox.enabled) {
    for (const auto& [paths, kind] :
         {std::pair{&request.sandbox.writable, "writable"}, std::pair{&request.sandbox.hidden, "hidden"}}) {
      for (const fs::path& path : *paths) {
        std::error_code ec;
        if (!path.is_absolute() || !fs::is_directory(path, ec)) {
          return NotSpawned(fmt::format("cannot start {}: its sandbox's {} path {} is not a directory", request.argv[0],
                                        kind, path.string()));
        }
      }
    }
    header.npaths = static_cast<std::uint32_t>(request.sandbox.writable.size() + request.sandbox.hidden.size());
    if (header.npaths > spawner::kMaxSandboxPaths) {
      return NotSpawned(
          fmt::format("cannot start {}: more than {} sandbox paths", request.argv[0], spawner::kMaxSandboxPaths));
    }
  }
  header.argc = static_cast<std::uint32_t>(request.argv.size());
  header.envc = static_cast<std::uint32_t>(request.env.size());
  header.nlimits = static_cast<std::uint32_t>(request.limits.size());
  Append(message, &header, sizeof header);
  for (const ResourceLimit& limit : request.limits) {
    spawner::SpawnLimit wire;
    wire.resource = limit.resource;
    wire.soft = limit.soft;
    wire.hard = limit.hard;
    Append(message, &wire, sizeof wire);
  }
  AppendString(message, request.program.string());
  AppendString(message, request.cwd.string());
  for (const std::string& arg : request.argv) AppendString(message, arg);
  for (const std::string& entry : request.env) AppendString(message, entry);
  if (request.sandbox.enabled) {
    for (const fs::path& path : request.sandbox.writable) AppendString(message, "w" + path.string());
    for (const fs::path& path : request.sandbox.hidden) AppendString(message, "h" + path.string());
  }
  if (message.size() > static_cast<std::size_t>(spawner::kMaxRequestBytes)) {
    return NotSpawned(fmt::format("cannot start {}: the command line and environment are too long", request.argv[0]));
  }

  UniqueFd result_read, result_write, go_read, go_write, pid_read, pid_write;
  if (!MakePipe(result_read, result_write) || (request.hold && !MakePipe(go_read, go_write)) ||
      (request.quiet_start && !MakePipe(pid_read, pid_write))) {
    return NotSpawned("pipe: " + ErrnoText(errno));
  }
  int fds[6] = {request.stdin_fd, request.stdout_fd, request.stderr_fd, result_write.get(), go_read.get(), -1};
  int nfds = request.hold ? 5 : 4;
  if (request.maps_fd >= 0) fds[nfds++] = request.maps_fd;
  if (request.quiet_start) fds[nfds++] = pid_write.get();

  Spawned spawned;
  spawned.start = Clock::now();
  if (std::string error = Client().Send(message, fds, nfds); !error.empty()) {
    return NotSpawned(fmt::format("cannot start {}: {}", request.argv[0], error));
  }
  // Only the spawner's copies may remain, so a spawner that dies gives us end of file.
  result_write.Reset();
  go_read.Reset();
  pid_write.Reset();
  if (request.quiet_start) {
    spawned.done = std::move(result_read);
    spawned.pid_pipe = std::move(pid_read);
    spawned.quiet = true;
    spawned.name = request.argv[0];
    return spawned;
  }
  spawner::SpawnStarted started;
  if (!ReadFull(result_read.get(), &started, sizeof started)) {
    return NotSpawned(fmt::format("cannot start {}: the process spawner exited", request.argv[0]));
  }
  if (std::string failure = StartFailure(result_read.get(), started, request.argv[0]); !failure.empty()) {
    if (request.no_aslr && started.exec_errno == EPERM) {
      failure +=
          " (with address randomization off, [run] randomize_addresses = false: a kernel or container that "
          "forbids personality(ADDR_NO_RANDOMIZE) refuses it)";
    }
    return NotSpawned(failure);
  }
  spawned.pid = started.pid;
  spawned.done = std::move(result_read);
  spawned.go = std::move(go_write);
  interrupt::RegisterGroup(spawned.pid);
  return spawned;
}

void Release(Spawned& spawned) { spawned.go.Reset(); }

pid_t KnownPid(Spawned& spawned) {
  if (spawned.pid_pipe.get() >= 0) {
    spawner::SpawnStarted started;
    if (ReadFull(spawned.pid_pipe.get(), &started, sizeof started) && started.pid > 0) spawned.pid = started.pid;
    spawned.pid_pipe.Reset();
  }
  return spawned.pid;
}

std::optional<int> Exit::ExitCode() const {
  if (!start_error.empty() || spawner_lost || exec_errno != 0 || WIFSIGNALED(wait_status)) return std::nullopt;
  return WEXITSTATUS(wait_status);
}

Exit Reap(Spawned& spawned) {
  Exit exit;
  if (spawned.quiet) {
    // Its SpawnStarted comes now, just before the SpawnDone.
    spawned.pid_pipe.Reset();
    spawner::SpawnStarted started;
    if (ReadFull(spawned.done.get(), &started, sizeof started)) {
      if (std::string failure = StartFailure(spawned.done.get(), started, spawned.name); !failure.empty()) {
        spawned.done.Reset();
        exit.start_error = std::move(failure);
        return exit;
      }
      spawned.pid = started.pid;
    }
  }
  spawner::SpawnDone done;
  const bool got = ReadFull(spawned.done.get(), &done, sizeof done);
  spawned.done.Reset();
  spawned.go.Reset();
  interrupt::UnregisterGroup(spawned.pid);
  if (!got) {
    // Only when the spawner itself was killed: its minder killed the child before dying.
    exit.spawner_lost = true;
    exit.wall_s = std::chrono::duration<double>(Clock::now() - spawned.start).count();
    return exit;
  }
  exit.wait_status = done.status;
  exit.exec_errno = done.exec_errno;
  exit.wall_s = static_cast<double>(done.wall_ns) / 1e9;
  exit.user_s = static_cast<double>(done.user_us) / 1e6;
  exit.sys_s = static_cast<double>(done.sys_us) / 1e6;
  exit.max_rss_kib = done.max_rss_kib;  // Linux reports KiB
  exit.sandbox_errno = done.sandbox_errno;
  return exit;
}

}  // namespace pe::process

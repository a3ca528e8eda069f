#include "serve_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <thread>

#include "generators/fixture_cache.h"
#include "generators/generator.h"
#include "git_repo.h"
#include "subprocess.h"

extern char** environ;

namespace pe::refdiff::testing {
namespace {

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "refserve-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

const GitFixture& SharedGitFixture() {
  static const auto* scratch = new ScratchDir();  // removed by the atexit below
  static const GitFixture fixture = [] {
    std::atexit([] { delete scratch; });
    auto generator = gen::BuiltinRegistry().Create("git_workspace");
    gen::Params params = {{"targets", std::int64_t{200}},
                          {"revisions", std::int64_t{3}},
                          {"changed", 0.1},
                          {"source_bytes", std::int64_t{64}}};
    gen::Context context;
    context.seed = 1;
    GitFixture made;
    made.dir = gen::Materialize(*generator, params, context, SERVE_FIXTURE_CACHE);
    made.clone = scratch->path() / "repo";
    Git(scratch->path(),
        {"clone", "--quiet", "--no-checkout", "--shared", (made.dir / "repo").string(), made.clone.string()});
    return made;
  }();
  return fixture;
}

std::string Git(const std::filesystem::path& repo, std::vector<std::string> args) {
  static const std::filesystem::path git = FindOnPath("git");
  args.insert(args.begin(), git.string());
  ProcessResult result = RunProcess({args, repo, {}});
  if (result.exit_code != 0) {
    ADD_FAILURE() << "git " << args[1] << " failed: " << result.stderr_text;
    throw std::runtime_error("git failed");
  }
  return result.stdout_text;
}

int WorktreeCount(const std::filesystem::path& repo) {
  std::string list = Git(repo, {"worktree", "list", "--porcelain"});
  int count = 0;
  for (std::size_t at = 0; (at = list.find("worktree ", at)) != std::string::npos; at += 9) {
    if (at == 0 || list[at - 1] == '\n') ++count;
  }
  return count;
}

ServeProcess::ServeProcess(const std::string& program, std::vector<std::string> args) {
  std::filesystem::create_directories(tmpdir());
  for (std::string& arg : args) {
    if (arg == "{port-file}") arg = port_file().string();
    if (arg == "{cache-dir}") arg = (scratch_.path() / "cache").string();
  }
  args.insert(args.begin(), program);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  std::vector<std::string> env_strings;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (std::string_view(*entry).starts_with("TMPDIR=")) continue;
    env_strings.emplace_back(*entry);
  }
  env_strings.push_back("TMPDIR=" + tmpdir().string());
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const std::string out = (scratch_.path() / "stdout").string();
  const std::string err = (scratch_.path() / "stderr").string();
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  int error = posix_spawn(&pid_, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot start " + program);
}

ServeProcess::~ServeProcess() {
  if (!reaped_) {
    kill(-pid_, SIGKILL);
    Wait(10);
  }
}

int ServeProcess::WaitForPort() {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code error;
    if (std::filesystem::exists(port_file(), error)) return std::stoi(ReadText(port_file()));
    if (!Running()) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

bool ServeProcess::Running() {
  if (reaped_) return false;
  int status = 0;
  pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done == pid_) {
    reaped_ = true;
    status_ = status;
    return false;
  }
  return true;
}

void ServeProcess::Signal(int signal) {
  if (!reaped_) kill(pid_, signal);
}

int ServeProcess::Wait(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (Running()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid_, SIGKILL);
      while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
}

bool ServeProcess::GroupAlive() const { return kill(-pid_, 0) == 0; }

std::string ServeProcess::Stderr() const { return ReadText(scratch_.path() / "stderr"); }

HeldPort::HeldPort() {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof(address);
  if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), size) != 0 || listen(fd_, 1) != 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    throw std::runtime_error("cannot hold a port");
  }
  port_ = ntohs(address.sin_port);
}

HeldPort::~HeldPort() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace pe::refdiff::testing

#include "tests/unit/http/stub_server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "engine/http/health.h"
#include "engine/runner/process_group.h"
#include "tests/unit/runner/process_table.h"

extern char** environ;

namespace pe::testing {

using runner::KillGroup;
using runner::ReapGroup;

namespace {

std::string TemporaryPath(const char* kind) {
  std::string path = std::string("/tmp/stub-http-") + kind + "-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  ::close(fd);
  return path;
}

}  // namespace

StubServer::StubServer(int port, const std::vector<std::string>& args) : port_(port) {
  std::vector<std::string> argv = {"--port", std::to_string(port)};
  argv.insert(argv.end(), args.begin(), args.end());
  Spawn(std::move(argv));
}

StubServer::StubServer(const std::string& port_file, const std::vector<std::string>& args) : port_file_(port_file) {
  std::vector<std::string> argv = {"--port", "0", "--port-file", port_file};
  argv.insert(argv.end(), args.begin(), args.end());
  Spawn(std::move(argv));
}

void StubServer::Spawn(std::vector<std::string> args) {
  stderr_path_ = TemporaryPath("stderr");
  const int stderr_fd = ::open(stderr_path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (stderr_fd < 0) throw std::runtime_error("cannot open " + stderr_path_);
  args.insert(args.begin(), STUB_HTTP_SERVER);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own group, as the engine will start servers, so a test can kill all it started.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  const int rc = ::posix_spawn(&pid_, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(stderr_fd);
  if (rc != 0) throw std::runtime_error("cannot start " + args[0]);
}

StubServer::~StubServer() {
  if (!reaped_) Stop();
  ::unlink(stderr_path_.c_str());
  if (!port_file_.empty()) ::unlink(port_file_.c_str());
}

std::unique_ptr<StubServer> StubServer::Start(const std::vector<std::string>& args) {
  const std::string port_file = TemporaryPath("port");
  ::unlink(port_file.c_str());  // the server creates it once it listens
  std::unique_ptr<StubServer> server(new StubServer(port_file, args));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    std::ifstream in(port_file);
    if (in >> server->port_) return server;
    if (!server->Running()) {
      throw std::runtime_error("stub-http-server exited before listening: " + server->Stderr());
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("stub-http-server did not listen within 10 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::unique_ptr<StubServer> StubServer::StartHealthy(const std::vector<std::string>& args) {
  std::unique_ptr<StubServer> server = Start(args);
  const http::HealthResult health =
      http::WaitUntilHealthy(server->port(), "/health", 10.0, [&server] { return server->Running(); });
  if (!health.healthy) {
    throw std::runtime_error("stub-http-server did not become healthy: " + health.error);
  }
  return server;
}

bool StubServer::Running() const {
  if (reaped_) return false;
  siginfo_t info = {};
  // WNOWAIT leaves the zombie for Reap, which collects its status.
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return false;
  }
  return info.si_pid == 0;
}

int StubServer::WaitForExit(double timeout_s) {
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s));
  while (Running()) {
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Reap();
}

int StubServer::Stop() {
  if (reaped_) return -1;
  ::kill(-pid_, SIGTERM);
  const int code = WaitForExit(2.0);
  if (code >= 0) return code;
  KillGroup(pid_);
  return Reap();
}

int StubServer::Reap() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  ReapGroup(pid_);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::string StubServer::Stderr() const {
  std::ifstream in(stderr_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int LiveChildren() { return CountChildrenOf(::getpid()); }

}  // namespace pe::testing

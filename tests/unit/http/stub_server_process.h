// Starting and stopping stub-http-server from tests, in its own process group, and proving
// afterwards that nothing was left behind.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace pe::testing {

class StubServer {
 public:
  // Spawns stub-http-server --port `port` `args...` in a new process group, its stderr kept
  // in a temporary file. Does not wait for it to listen. For tests about a given port; others
  // use Start, since a port picked here may be taken by a test running in parallel.
  StubServer(int port, const std::vector<std::string>& args);
  // Stops the server if it still runs, so a failing assertion leaves no process behind.
  ~StubServer();
  StubServer(const StubServer&) = delete;
  StubServer& operator=(const StubServer&) = delete;

  // Starts the server on a port the kernel picks (--port 0) and waits until it listens and
  // has reported that port. Throws if it exits first.
  static std::unique_ptr<StubServer> Start(const std::vector<std::string>& args);
  // Start, then wait until the health check answers 200. Throws if it never does.
  static std::unique_ptr<StubServer> StartHealthy(const std::vector<std::string>& args);

  int port() const { return port_; }
  pid_t pid() const { return pid_; }

  // True until the server has exited (it is not reaped, so Stop still collects it).
  bool Running() const;
  // SIGTERM to the group, SIGKILL after 2 s; reaps. Returns the exit code, or 128 + signal.
  int Stop();
  // Waits up to `timeout_s` for the server to exit by itself and reaps it. Returns the exit
  // code (128 + signal), or -1 if it is still running (then Stop it).
  int WaitForExit(double timeout_s);
  // What the server wrote on stderr so far.
  std::string Stderr() const;

 private:
  StubServer(const std::string& port_file, const std::vector<std::string>& args);
  void Spawn(std::vector<std::string> args);
  int Reap();

  int port_ = 0;
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string stderr_path_;
  std::string port_file_;
};

// Children of this test process, zombies included: 0 once every server was reaped.
int LiveChildren();

}  // namespace pe::testing

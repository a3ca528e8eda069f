// A RunningServer with no process behind it: an HTTP server on a thread of the test, answering
// as the test scripts, for FakeProcessRunner::StartServer. Serve rounds then run through the
// same seam as the real binary (health polls and requests go over loopback TCP), but what the
// server does (never ready, dies mid-round, answers) and how it ends are exact and instant.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "engine/http/message.h"
#include "engine/runner/process_runner.h"

namespace pe::testing {

struct FakeServerScript {
  bool listens = true;                  // false: never opens its port, so it never becomes healthy
  std::string health_path = "/health";  // answered 200 "OK"; counts toward nothing
  // The answer (status, body) to every other request; empty: 200 "OK".
  std::function<std::pair<int, std::string>(const http::Request&)> answer;
  int die_after = -1;       // >= 0: answers that many requests, then dies on receiving the next
  runner::Outcome died;     // how it ended when it died (default: killed by SIGSEGV)
  runner::Outcome stopped;  // how it ended when stopped (default: exit 0)
};

class FakeServer final : public runner::RunningServer {
 public:
  // Listens on 127.0.0.1:port unless the script says not to; a port already taken ends the
  // server at once with exit status 98, as a real server that lost its port does.
  FakeServer(int port, FakeServerScript script);
  ~FakeServer() override;
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  bool Running() const override { return !ended_; }
  bool ExitsWithin(double seconds) override;
  // Closes the port and every connection; returns the script's `stopped` (or `died`, when it
  // had died). Wait does the same: a fake that has not died is never waited on forever.
  runner::Outcome Stop(double grace_s) override;
  runner::Outcome Wait() override;

 private:
  struct Loop;  // the io_context, acceptor and connections, on `thread_`
  void Shutdown();

  FakeServerScript script_;
  std::atomic<bool> ended_{false};
  bool died_ = false;  // set on the loop's thread before ended_
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
};

// The port in a server command's argv: the argument after "--port"; 0 when there is none.
int PortIn(const runner::Command& command);

// A FakeProcessRunner server script: each command starts a FakeServer on its port, scripted by
// `script_for(command)` (which may tell contenders apart by the command's argv or env).
std::function<runner::StartedServer(const runner::Command&)> StartFakeServers(
    std::function<FakeServerScript(const runner::Command&)> script_for);

}  // namespace pe::testing

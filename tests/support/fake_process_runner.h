// A ProcessRunner that runs nothing: each call returns a scripted outcome and writes scripted
// output, so orchestration, gate and report tests are exact and instant. Servers come from a
// second script (tests/support/fake_server.h has one that answers HTTP in-process).
#pragma once

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"
#include "tests/support/text_file.h"

namespace pe::testing {

class FakeProcessRunner : public runner::ProcessRunner {
 public:
  // Decides the outcome of one command; may write the command's stdout/stderr/output files.
  using Script = std::function<runner::Outcome(const runner::Command&)>;

  // Decides how one server command starts: a server, or the error that it could not start.
  using ServerScript = std::function<runner::StartedServer(const runner::Command&)>;

  explicit FakeProcessRunner(Script script, ServerScript servers = {})
      : script_(std::move(script)), servers_(std::move(servers)) {}

  runner::Outcome Run(const runner::Command& command) override {
    calls.push_back(command);
    return script_(command);
  }

  runner::StartedServer StartServer(const runner::Command& command) override {
    server_calls.push_back(command);
    if (!servers_) return {nullptr, "the fake runner was given no servers"};
    return servers_(command);
  }

  // A held run (what measure's perf counter asks for) goes to `held_script` when one is set;
  // without one the fake attaches nothing and runs the command's script as Run does.
  runner::Outcome RunHeld(const runner::Command& command, const std::function<bool(int pid)>& attach) override {
    held_calls.push_back(command);
    return held_script ? held_script(command, attach) : script_(command);
  }

  std::vector<runner::Command> calls;
  std::vector<runner::Command> server_calls;
  std::vector<runner::Command> held_calls;
  std::function<runner::Outcome(const runner::Command&, const std::function<bool(int pid)>&)> held_script;

 private:
  Script script_;
  ServerScript servers_;
};

}  // namespace pe::testing

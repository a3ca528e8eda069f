// A ProcessRunner that runs nothing: each call returns a scripted outcome and writes scripted
// output, so orchestration, gate and report tests are exact and instant.
#pragma once

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::testing {

class FakeProcessRunner : public ProcessRunner {
 public:
  // Decides the outcome of one command; may write the command's stdout/stderr/output files.
  using Script = std::function<Outcome(const Command&)>;

  explicit FakeProcessRunner(Script script) : script_(std::move(script)) {}

  Outcome Run(const Command& command) override {
    calls.push_back(command);
    return script_(command);
  }

  std::vector<Command> calls;

 private:
  Script script_;
};

// Writes text to a file, for scripts that emulate a contender's output.
inline void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace pe::testing

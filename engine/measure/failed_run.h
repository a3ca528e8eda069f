// Why a counting or profiling run of a contender failed, in one line: the runner's reason and
// the last line of the contender's stderr, as a failed hook or timed execution says it.
#pragma once

#include <string>

#include "engine/runner/file_tail.h"
#include "engine/runner/process_runner.h"

namespace pe::measure {

// "exited with status 1 (cat: in.txt: No such file or directory)"; without the parenthesis when
// the command's stderr is not captured or is empty.
inline std::string WhyItFailed(const runner::Command& command, const runner::Outcome& outcome) {
  std::string why = outcome.error.empty() ? "non-zero exit" : outcome.error;
  if (command.stderr_path.empty()) return why;
  const std::string last_line = runner::FileTail(command.stderr_path, 1, 400);
  return last_line.empty() ? why : why + " (" + last_line + ")";
}

}  // namespace pe::measure

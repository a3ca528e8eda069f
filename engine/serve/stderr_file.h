// Where a server's stderr goes for one attempt, so a failure can quote its last lines: the
// file the command names, or else a temporary file that is removed again.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "engine/runner/process_runner.h"

namespace pe::serve {

class StderrFile {
 public:
  // Points command->stderr_path at a new temporary file when it names none.
  explicit StderrFile(runner::Command* command);
  // Removes the temporary file, if one was made.
  ~StderrFile();
  StderrFile(const StderrFile&) = delete;
  StderrFile& operator=(const StderrFile&) = delete;

  // The last `max_lines` lines (at most `max_bytes` bytes) of what the server wrote, without
  // a trailing newline; "" when it wrote nothing or the file cannot be read.
  std::string Tail(size_t max_lines = 20, size_t max_bytes = 4096) const;

 private:
  std::filesystem::path path_;
  bool temporary_ = false;
};

}  // namespace pe::serve

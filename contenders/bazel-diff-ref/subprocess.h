// Running a program from an argv (never a shell) and collecting what it printed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pe::refdiff {

struct ProcessRequest {
  std::vector<std::string> argv;      // argv[0] is the program's path
  std::filesystem::path cwd;          // empty: ours
  std::filesystem::path stdout_path;  // empty: captured into ProcessResult::stdout_text
};

struct ProcessResult {
  int exit_code = 0;  // 128 + signal number when the child was killed by a signal
  std::string stdout_text;
  std::string stderr_text;
};

// Throws RefDiffError when the program cannot be started at all.
ProcessResult RunProcess(const ProcessRequest& request);

// The last non-blank line of a child's output, for one-line error messages.
std::string LastLine(const std::string& text);

}  // namespace pe::refdiff

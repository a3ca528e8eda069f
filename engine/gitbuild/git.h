// Running git through a ProcessRunner: an argv, never a shell, with its output captured.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::gitbuild {

struct GitResult {
  runner::Outcome outcome;
  std::string out;  // stdout, trailing newline removed
  std::string err;  // stderr, trailing newline removed
};

// Runs `git -C dir args...` with hooks disabled, capturing its output in files under
// `scratch_dir` (which must exist).
GitResult RunGit(runner::ProcessRunner& runner, const std::filesystem::path& dir, const std::vector<std::string>& args,
                 const std::filesystem::path& scratch_dir);

}  // namespace pe::gitbuild

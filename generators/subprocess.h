// Running a helper program (git) from an argv, never a shell.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pe::gen {

// Runs argv[0] (looked up on PATH) in cwd with env added to the current environment, stdin
// from /dev/null. Throws std::runtime_error with its output if it cannot start or exits non-zero.
// Returns its stdout and stderr, interleaved.
std::string RunChecked(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                       const std::map<std::string, std::string>& env);

}  // namespace pe::gen

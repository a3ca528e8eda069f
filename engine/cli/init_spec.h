// `perfengine init 'CMD A' 'CMD B'`: a starting spec from two commands, so a first comparison
// takes one line (as with hyperfine) and the spec is there to edit afterwards.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pe::cli {

// A command line split into an argv the way a POSIX shell would split a simple command:
// whitespace separates words; '...' and "..." quote; a backslash escapes the next character.
// nullopt when the text needs a real shell (a pipe, redirection, $, a glob, ...): the caller
// then runs it as ["sh", "-c", text], visibly, in the spec.
std::optional<std::vector<std::string>> SplitCommand(const std::string& text);

struct InitInput {
  std::vector<std::string> commands;  // two or more: the baseline's, then each candidate's
  std::string parity = "exact";       // a spec normaliser name; "none" compares time only
  std::vector<bool> plain_startup;    // per contender: false writes startup = ["true"]
  // Relative program paths (with a '/') are written relative to this folder (the spec's).
  std::string spec_dir = ".";
};

// The contender names: each program's base name when they differ and are valid names,
// else "baseline", "candidate" (and "candidate2", "candidate3", ... for more commands).
std::vector<std::string> InitNames(const InitInput& input);

// The spec text: [run] with 10 rounds (at most 30: a min_speedup at 95% needs 7 to be
// resolved), the two contenders, one workload, and thresholds a truly faster candidate
// passes (min_speedup 1, min_win_rate 0.5). Throws spec::UsageError for an empty command.
std::string InitSpecText(const InitInput& input);

}  // namespace pe::cli

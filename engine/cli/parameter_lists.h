// `-L NAME VALUES` (hyperfine's --parameter-list) for `run --quick` and `init`: each NAME becomes
// a parameter of the spec's workload (parameters = { NAME = [...] }, docs/spec.md), so the
// commands run once per value with {NAME} filled in, as one workload per value.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace pe::cli {

// -L NAME VALUES, as given: each NAME with its comma-separated VALUES.
using ParameterPairs = std::vector<std::pair<std::string, std::string>>;

// Adds -L/--parameter-list NAME VALUES (comma-separated), repeatable, to `command`.
void AddParameterListOption(CLI::App* command, ParameterPairs& pairs);

struct ParameterList {
  std::string name;
  std::vector<std::string> values;
};

// The -L pairs checked against the commands: a name is letters, digits, '-' or '_' and not a
// built-in placeholder, given once, with values that are not empty and not repeated; every
// command that uses {X} declares X with -L (with a "did you mean"), every NAME is used by a
// command after its program. Throws spec::UsageError naming the flag.
std::vector<ParameterList> CheckParameterLists(const ParameterPairs& pairs, const std::vector<std::string>& commands);

// The commands with each {NAME} replaced by a marker a shell would not read (so a command needs
// `sh -c` only for what it needs it for); UnmarkParameters turns the spec text back, adding the
// `parameters` line to its first workload.
std::vector<std::string> MarkParameters(std::vector<std::string> commands, const std::vector<ParameterList>& lists);
std::string UnmarkParameters(std::string spec_text, const std::vector<ParameterList>& lists);

}  // namespace pe::cli

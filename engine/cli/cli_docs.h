// Shell completion (bash, zsh) and the man page, generated from the CLI11 definitions the
// command line itself parses with, so neither can name a flag the program does not take.
// `perfengine completion bash|zsh` and `perfengine man` print them; the build writes them
// into build/share/ and `cmake --install` installs them.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace pe::cli {

std::string BashCompletion(const CLI::App& app);
std::string ZshCompletion(const CLI::App& app);
// roff (man 7 man), section 1, with EXIT STATUS, ENVIRONMENT (EnvironmentVariables) and EXAMPLES.
std::string ManPage(const CLI::App& app, const std::string& version);

// Every environment variable perfengine reads, or sets for its contenders, with what it does: the
// man page's ENVIRONMENT. A test checks that every PERFENGINE_* name in the sources is here.
struct EnvironmentVariable {
  std::string_view name;
  std::string_view meaning;
};
const std::vector<EnvironmentVariable>& EnvironmentVariables();
}  // namespace pe::cli

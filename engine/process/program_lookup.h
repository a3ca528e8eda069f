// Finds the file a command's argv[0] names before anything is spawned, so a missing or
// non-executable program is reported with an exact message instead of a child exiting 127.
#pragma once

#include <filesystem>
#include <string>

namespace pe::process {

struct ResolvedProgram {
  std::filesystem::path path;  // absolute when found
  std::string error;           // "program not found: X" or "not executable: X"; empty when found
};

// A name without a slash is looked up on `path_variable` (colon separated, like $PATH);
// a name with a slash is taken relative to `cwd` (the child's working directory, or ours
// when empty), as the child would see it after chdir.
ResolvedProgram ResolveProgram(const std::string& name, const std::filesystem::path& cwd,
                               const std::string& path_variable);

// The engine's own $PATH, or /usr/local/bin:/usr/bin:/bin when it has none (as a shell's
// default search path), for a program the engine runs itself.
std::string EnginePathVariable();

}  // namespace pe::process

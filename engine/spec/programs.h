// Finding the programs contenders run, and replacing them from the command line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "engine/spec/spec.h"

namespace pe::spec {

// Resolves a program as the engine will run it: a name without '/' is looked up on PATH;
// a relative path with '/' is taken relative to `base` (the spec's folder). Returns nullopt
// and sets *why when it does not exist or is not executable.
std::optional<std::filesystem::path> ResolveProgram(const std::string& program, const std::filesystem::path& base,
                                                    std::string* why);

// Checks every contender's program and startup program; throws SpecError at the argv element.
void CheckPrograms(Spec& spec);

// `--contender NAME=PROGRAM`: replaces NAME's program (argv[0]); a startup command that
// defaulted to the program follows it. PROGRAM is relative to the current directory.
// `--contender NAME=git:REV`: NAME, built from git, is built from REV instead of its `git`
// revision (its repository, build and argv stay).
// Throws UsageError for a malformed value, an unknown contender, or git:REV for a contender
// not built from git.
void ApplyContenderOverride(Spec& spec, const std::string& assignment);

}  // namespace pe::spec

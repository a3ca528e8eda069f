// Placing the replay `bazel` shim into a fixture: the binary, its shim.json and output_base/.
#pragma once

#include <filesystem>
#include <string>

#include "generators/bzlmod_fixture.h"
#include "generators/params.h"

namespace pe::gen {

struct ShimOptions {
  std::string bazel_version = "4.2.3";  // the Bazel whose output the stream reproduces
  bool bzlmod = false;
  // Replay path under the workspace root instead of {fixture}/query.pb (git_workspace).
  std::string workspace_query_proto;
  // A bzlmod-shaped fixture: `mod dump_repo_mapping ""` prints this mapping and `mod show_repo`
  // answers from {fixture}/repos.pb (bzlmod_fixture.h). Empty: only the root and bazel_tools.
  RepoMapping repo_mapping;
  bool repositories = false;
};

// `defaults` are the values a key left out takes (a bzlmod stream defaults to Bazel 8.6.0).
ShimOptions ReadShimOptions(ParamReader& reader, const ShimOptions& defaults = {});

// The shim options of a fixture whose stream has `shape`: its version and bzlmod defaults, and
// the checks that the shim and the stream tell the same story (a WORKSPACE stream lists
// //external, which Bazel 8 with bzlmod does not have; a bzlmod stream has none, which only
// Bazel 8 with bzlmod does). Throws ParamError naming the key.
ShimOptions ReadShimOptionsFor(ParamReader& reader, StreamShape shape);

// $PERFENGINE_SHIM, else perfengine-bazel-shim next to the running executable.
std::filesystem::path ShimBinaryPath();

// "shim=<sha256 of the shim binary>", for Generator::KeyExtra.
std::string ShimKeyExtra();

// Writes {fixture}/bazel (mode 755), {fixture}/shim.json and creates {fixture}/output_base.
void InstallShim(const std::filesystem::path& fixture, const ShimOptions& options);

}  // namespace pe::gen

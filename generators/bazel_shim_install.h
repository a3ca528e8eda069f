// Placing the replay `bazel` shim into a fixture: the binary, its shim.json and output_base/.
#pragma once

#include <filesystem>
#include <string>

#include "generators/params.h"

namespace pe::gen {

struct ShimOptions {
  std::string bazel_version = "4.2.3";  // the Bazel whose output the stream reproduces
  bool bzlmod = false;
  // Replay path under the workspace root instead of {fixture}/query.pb (git_workspace).
  std::string workspace_query_proto;
};

ShimOptions ReadShimOptions(ParamReader& reader);

// $PERFENGINE_SHIM, else perfengine-bazel-shim next to the running executable.
std::filesystem::path ShimBinaryPath();

// "shim=<sha256 of the shim binary>", for Generator::KeyExtra.
std::string ShimKeyExtra();

// Writes {fixture}/bazel (mode 755), {fixture}/shim.json and creates {fixture}/output_base.
void InstallShim(const std::filesystem::path& fixture, const ShimOptions& options);

}  // namespace pe::gen

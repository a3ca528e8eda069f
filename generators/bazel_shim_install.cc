#include "generators/bazel_shim_install.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "generators/file_io.h"
#include "generators/sha256.h"
#include "generators/shim/shim.h"

namespace pe::gen {

ShimOptions ReadShimOptions(ParamReader& reader, const ShimOptions& defaults) {
  ShimOptions options = defaults;
  options.bazel_version = reader.String("bazel_version", options.bazel_version);
  if (options.bazel_version.empty() || options.bazel_version.find_first_of("\n\r") != std::string::npos) {
    throw ParamError("bazel_version", "'bazel_version' must be a non-empty single line");
  }
  options.bzlmod = reader.Bool("bzlmod", options.bzlmod);
  if (options.bzlmod && !shim::HasModCommand(options.bazel_version)) {
    throw ParamError("bzlmod", fmt::format("'bzlmod = true' needs a Bazel with `bazel mod` (6.3.0 or later); "
                                           "bazel_version is {}",
                                           options.bazel_version));
  }
  return options;
}

namespace {

// Whether the Bazel the shim plays has //external (shim::ExternalPackageAvailable).
bool HasExternalPackage(const std::string& bazel_version, bool bzlmod) {
  shim::Config config;
  config.bazel_version = bazel_version;
  config.bzlmod = bzlmod;
  return shim::ExternalPackageAvailable(config);
}

}  // namespace

ShimOptions ReadShimOptionsFor(ParamReader& reader, StreamShape shape) {
  if (shape == StreamShape::kWorkspace) {
    ShimOptions options = ReadShimOptions(reader);
    if (!HasExternalPackage(options.bazel_version, options.bzlmod)) {
      throw ParamError("stream", fmt::format("a WORKSPACE stream lists //external, which Bazel {} with bzlmod does "
                                             "not have: set stream = \"bzlmod\"",
                                             options.bazel_version));
    }
    return options;
  }
  ShimOptions defaults;
  defaults.bazel_version = kBzlmodBazelVersion;
  defaults.bzlmod = true;
  ShimOptions options = ReadShimOptions(reader, defaults);
  if (!options.bzlmod || HasExternalPackage(options.bazel_version, true)) {
    throw ParamError(options.bzlmod ? "bazel_version" : "bzlmod",
                     fmt::format("stream = \"bzlmod\" has no //external package, as Bazel 8.0.0 or later with bzlmod "
                                 "answers; bazel_version is {}{}",
                                 options.bazel_version, options.bzlmod ? "" : " and bzlmod is false"));
  }
  options.repositories = true;
  return options;
}

std::filesystem::path ShimBinaryPath() {
  std::filesystem::path path;
  if (const char* env = std::getenv("PERFENGINE_SHIM"); env != nullptr && *env != '\0') {
    path = env;
  } else {
    path = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "perfengine-bazel-shim";
  }
  if (!std::filesystem::is_regular_file(path)) {
    throw std::runtime_error(fmt::format(
        "bazel shim not found at {} (build target perfengine-bazel-shim, or set PERFENGINE_SHIM)", path.string()));
  }
  return path;
}

std::string ShimKeyExtra() { return "shim=" + Sha256FileHex(ShimBinaryPath()); }

void InstallShim(const std::filesystem::path& fixture, const ShimOptions& options) {
  WriteFile(fixture / "bazel", ReadFile(ShimBinaryPath()), 0755);
  nlohmann::ordered_json config;
  config["output_base"] = "output_base";
  config["bazel_version"] = options.bazel_version;
  config["bzlmod"] = options.bzlmod;
  config["query_proto"] = "query.pb";
  if (!options.workspace_query_proto.empty()) {
    config["workspace_query_proto"] = options.workspace_query_proto;
  }
  if (!options.repo_mapping.empty()) {
    // A list of pairs: a JSON object would not keep dump_repo_mapping's order.
    nlohmann::ordered_json mapping = nlohmann::ordered_json::array();
    for (const auto& [apparent, canonical] : options.repo_mapping) mapping.push_back({apparent, canonical});
    config["repo_mapping"] = std::move(mapping);
  }
  if (options.repositories) config["repos_proto"] = "repos.pb";
  WriteFile(fixture / "shim.json", config.dump(2) + "\n");
  std::filesystem::create_directories(fixture / "output_base");
}

}  // namespace pe::gen

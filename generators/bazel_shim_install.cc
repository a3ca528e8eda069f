#include "generators/bazel_shim_install.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "generators/file_io.h"
#include "generators/sha256.h"
#include "generators/shim/shim.h"

namespace pe::gen {

ShimOptions ReadShimOptions(ParamReader& reader) {
  ShimOptions options;
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
  WriteFile(fixture / "shim.json", config.dump(2) + "\n");
  std::filesystem::create_directories(fixture / "output_base");
}

}  // namespace pe::gen

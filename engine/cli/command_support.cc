#include "engine/cli/command_support.h"

#include <fmt/format.h>

#include "engine/spec/programs.h"
#include "engine/spec/spec_error.h"
#include "engine/units/units.h"

namespace pe::cli {

namespace fs = std::filesystem;

spec::Spec ParseSpecAt(const std::string& path, spec::SpecUse use) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw spec::UsageError(fmt::format("{}: is a directory; give a spec file (TOML)", path));
  return spec::ParseSpecFile(path, use);
}

spec::Spec LoadSpec(const CommonOptions& common) {
  spec::Spec spec = ParseSpecAt(common.spec);
  for (const std::string& assignment : common.contenders) spec::ApplyContenderOverride(spec, assignment);
  spec::CheckPrograms(spec);
  return spec;
}

run::Options RunOptions(const CommonOptions& common) {
  run::Options o;
  o.workloads = common.workloads;
  o.scale = common.scale;
  o.cache_root = common.cache_dir;
  return o;
}

std::uintmax_t DirectorySize(const fs::path& dir, std::size_t* files) {
  std::uintmax_t bytes = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      bytes += it->file_size(ec);
      ++*files;
    }
  }
  return bytes;
}

std::string Size(std::uintmax_t bytes) { return units::FormatBytes(bytes); }

}  // namespace pe::cli

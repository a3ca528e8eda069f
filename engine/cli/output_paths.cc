#include "engine/cli/output_paths.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>

#include "engine/model/atomic_file.h"
#include "engine/spec/spec_error.h"

namespace pe::cli {

using model::CheckWritable;
using model::WriteTarget;

namespace fs = std::filesystem;

namespace {

// Two spellings of one file: the same inode when both exist, else the same absolute path
// once symlinks are followed.
bool SameFile(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  return fs::weakly_canonical(fs::absolute(WriteTarget(a)), ec) ==
         fs::weakly_canonical(fs::absolute(WriteTarget(b)), ec);
}

}  // namespace

void CheckOutputPaths(const std::string& spec_path, const std::vector<OutputPath>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& o = outputs[i];
    if (o.path.empty()) continue;
    if (SameFile(o.path, spec_path)) {
      throw spec::UsageError(
          fmt::format("{} {} is the spec file; writing the report there would replace it", o.flag, o.path));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[j].path.empty() && SameFile(outputs[j].path, o.path)) {
        throw spec::UsageError(fmt::format("{} {} and {} {} are the same file; give each report its own path",
                                           outputs[j].flag, outputs[j].path, o.flag, o.path));
      }
    }
    // A report is written when the run ends: into a FIFO that blocks until someone reads, or
    // fails then because nobody does. A file path is what the flags are for.
    struct stat st {};
    if (::stat(WriteTarget(o.path).c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
      throw spec::UsageError(fmt::format("{} {}: is a FIFO; give a file path", o.flag, o.path));
    }
    try {
      CheckWritable(o.path);
    } catch (const std::runtime_error& e) {
      throw spec::UsageError(fmt::format("{} {}", o.flag, e.what()));
    }
  }
}

}  // namespace pe::cli

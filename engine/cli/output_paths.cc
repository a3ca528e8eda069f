#include "engine/cli/output_paths.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>

#include "engine/model/atomic_file.h"
#include "engine/report/reporter.h"
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

void CheckOutputPaths(const std::string& input_path, const std::vector<OutputPath>& outputs,
                      std::string_view input_name) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& o = outputs[i];
    if (o.path.empty()) continue;
    if (SameFile(o.path, input_path)) {
      throw spec::UsageError(
          fmt::format("{} {} is {}; writing the report there would replace it", o.flag, o.path, input_name));
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

std::vector<OutputPath> ReportOutputs(const ReportPaths& paths) {
  std::vector<OutputPath> outputs;
  for (const report::Format& f : report::Formats()) {
    if (f.destination == report::Destination::kFile) outputs.push_back({std::string(f.flag), PathFor(paths, f.name)});
  }
  return outputs;
}

}  // namespace pe::cli

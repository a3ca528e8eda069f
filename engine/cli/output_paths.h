// The report files `run` was asked to write (--json, --markdown, --html), checked before the
// first round so a path that cannot be written costs seconds, not a whole run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/cli/commands.h"

namespace pe::cli {

struct OutputPath {
  std::string flag;  // "--json"
  std::string path;  // empty: not asked for
};

// Throws spec::UsageError naming the flag when a path is the input file (`input_path`, called
// `input_name` in the message), two flags name the same file, or a path cannot be written (see
// CheckWritable).
void CheckOutputPaths(const std::string& input_path, const std::vector<OutputPath>& outputs,
                      std::string_view input_name = "the spec file");

// One OutputPath per file format of report::Formats(), in its order, with its flag.
std::vector<OutputPath> ReportOutputs(const ReportPaths& paths);

}  // namespace pe::cli

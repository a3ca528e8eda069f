// The report files `run` was asked to write (--json, --markdown, --html), checked before the
// first round so a path that cannot be written costs seconds, not a whole run.
#pragma once

#include <string>
#include <vector>

namespace pe::cli {

struct OutputPath {
  std::string flag;  // "--json"
  std::string path;  // empty: not asked for
};

// Throws spec::UsageError naming the flag when a path is the spec file, two flags name the
// same file, or a path cannot be written (see CheckWritable).
void CheckOutputPaths(const std::string& spec_path, const std::vector<OutputPath>& outputs);

}  // namespace pe::cli

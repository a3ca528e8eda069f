// `perfengine merge`: read every shard's results file, merge (engine/merge/), report.
#include "engine/cli/commands.h"
#include "engine/gate/gate.h"
#include "engine/merge/against_spec.h"
#include "engine/merge/merge.h"
#include "engine/model/json.h"
#include "engine/spec/spec.h"

namespace pe::cli {

using model::ExitCode;
using model::ReadResultsFile;
using model::RunResult;

ExitCode MergeCommand(const MergeFlags& flags, bool color) {
  std::vector<merge::ShardFile> files;
  for (const std::string& path : flags.files) files.push_back({path, ReadResultsFile(path)});
  // The spec from the trusted side: what a shard says of its thresholds is a claim.
  if (!flags.spec.empty()) merge::CheckAgainstSpec(files, spec::ParseSpecFile(flags.spec));
  model::Verdict probe;
  ApplyUnresolved(probe, flags.unresolved);  // a bad PERFENGINE_UNRESOLVED before any work
  RunResult merged = merge::MergeShards(files);
  ApplyUnresolved(merged.verdict, flags.unresolved);
  if (const std::string by = AcceptedBy(flags.accept_regression); !by.empty()) gate::Accept(merged.verdict, by);
  WriteReports(merged, {flags.json, flags.markdown, flags.html}, color);
  return merged.verdict.exit;
}

}  // namespace pe::cli

// `perfengine merge`: read every shard's results file, merge (engine/merge/), report.
#include "engine/cli/cli_options.h"
#include "engine/cli/commands.h"
#include "engine/cli/subcommands.h"
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
  WriteReports(merged, flags.reports, color);
  return merged.verdict.exit;
}

Subcommand AddMerge(CLI::App& app) {
  auto flags = std::make_shared<MergeFlags>();
  CLI::App* merge =
      app.add_subcommand("merge", "Combine the results files of run --shard jobs into one result and verdict");
  merge->add_option("results", flags->files, "One results file per shard (run --shard K/N --json ...)")->required();
  merge->add_option("--spec", flags->spec,
                    "Refuse shards not run from this spec, or whose thresholds or gate flags are not its own");
  AddReportOptions(merge, flags->reports);
  merge->add_flag(
      "--accept-regression", flags->accept_regression,
      "Accept a missed threshold: exit 0, reported as accepted (also PERFENGINE_ACCEPT_REGRESSION=1, true, yes or on; "
      "0, false, no, off or empty do not)");
  AddUnresolvedOption(merge, flags->unresolved);
  return {merge, [=] { return static_cast<int>(MergeCommand(*flags, UseColor())); }};
}

}  // namespace pe::cli

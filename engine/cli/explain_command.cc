// `perfengine explain` and `perfengine compare`: read results files, print, return the exit
// code. A file that cannot be read is one line on stderr and exit 2 (cli.cc catches).
#include <iostream>

#include "engine/cli/cli_options.h"
#include "engine/cli/commands.h"
#include "engine/cli/subcommands.h"
#include "engine/explain/compare.h"
#include "engine/explain/compare_text.h"
#include "engine/explain/explain_text.h"
#include "engine/explain/select.h"
#include "engine/model/json.h"
#include "engine/spec/spec_error.h"

namespace pe::cli {

using model::ExitCode;
using model::ReadResultsFile;
using model::RunResult;

ExitCode ExplainCommand(const ExplainFlags& flags) {
  const RunResult result = ReadResultsFile(flags.results);
  const auto workloads = explain::SelectWorkloads(result, flags.workloads, flags.results);
  std::cout << explain::ExplainText(result, flags.results, workloads) << std::flush;
  return ExitCode::kPass;
}

ExitCode CompareCommand(const CompareFlags& flags) {
  const RunResult old_run = ReadResultsFile(flags.old_results);
  const RunResult new_run = ReadResultsFile(flags.new_results);
  const std::string mismatch = explain::SpecMismatch(old_run, new_run);
  if (!mismatch.empty() && !flags.allow_different_spec) {
    throw spec::UsageError(mismatch + "; pass --allow-different-spec to compare them anyway");
  }
  explain::RunComparison comparison = explain::CompareRuns(old_run, new_run);
  ApplyUnresolved(comparison.verdict, flags.unresolved);
  std::cout << explain::CompareText(old_run, flags.old_results, new_run, flags.new_results, comparison) << std::flush;
  return comparison.verdict.exit;
}

Subcommand AddExplain(CLI::App& app) {
  auto flags = std::make_shared<ExplainFlags>();
  CLI::App* explain = app.add_subcommand("explain", "Show the working behind a results file's figures and verdict");
  explain->add_option("results", flags->results, "A results file written by run --json")->required();
  explain->add_option("--workload", flags->workloads, "Only this workload (repeatable)");
  return {explain, [=] { return static_cast<int>(ExplainCommand(*flags)); }};
}

Subcommand AddCompare(CLI::App& app) {
  auto flags = std::make_shared<CompareFlags>();
  CLI::App* compare = app.add_subcommand("compare", "Compare two saved runs of one spec (unpaired), with a verdict");
  compare->add_option("old", flags->old_results, "The earlier results file")->required();
  compare->add_option("new", flags->new_results, "The later results file; its thresholds apply")->required();
  compare->add_flag("--allow-different-spec", flags->allow_different_spec,
                    "Compare even when the two files come from different specs");
  AddUnresolvedOption(compare, flags->unresolved);
  return {compare, [=] { return static_cast<int>(CompareCommand(*flags)); }};
}

}  // namespace pe::cli

// `perfengine explain` and `perfengine compare`: read results files, print, return the exit
// code. A file that cannot be read is one line on stderr and exit 2 (cli.cc catches).
#include <iostream>

#include "engine/cli/commands.h"
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

}  // namespace pe::cli

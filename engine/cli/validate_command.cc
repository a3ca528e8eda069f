// `perfengine validate SPEC`: every mistake in a spec at once, without running a round.
#include <fmt/format.h>

#include <iostream>
#include <thread>

#include "engine/cli/cli_options.h"
#include "engine/cli/command_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/subcommands.h"
#include "engine/cli/validate_checks.h"
#include "engine/report/text.h"
#include "engine/run/duet_round.h"
#include "engine/run/thread_axis.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/programs.h"
#include "engine/spec/spec_error.h"
#include "engine/units/units.h"

namespace pe::cli {

using model::ExitCode;
using report::OneLine;
using runner::MakeSystemProcessRunner;
using units::FormatCount;

ExitCode ValidateCommand(const CommonOptions& common, bool strict) {
  // Every mistake at once: the parse's (thrown together), then the programs', the git
  // revisions' and the startup commands'.
  spec::Spec spec = ParseSpecAt(common.spec);
  for (const std::string& assignment : common.contenders) spec::ApplyContenderOverride(spec, assignment);
  std::vector<spec::SpecError> errors;
  try {
    spec::CheckPrograms(spec);
  } catch (const spec::SpecError& e) {
    errors.push_back(e);
  }
  auto runner = MakeSystemProcessRunner();
  for (spec::SpecError& e : CheckByRunning(spec, *runner)) errors.push_back(std::move(e));
  for (spec::SpecError& e : run::DuetRefusals(spec, static_cast<int>(run::UsableCpus().size()))) errors.push_back(e);
  if (!errors.empty()) throw spec::SpecError::Several(std::move(errors));
  run::SelectWorkloads(spec, RunOptions(common));
  for (const std::string& warning :
       run::ThreadAxisWarnings(spec, static_cast<int>(std::thread::hardware_concurrency()))) {
    std::cerr << "perfengine: warning: " << OneLine(warning) << "\n";
  }
  if (const auto nothing = GatesNothingWarning(spec)) {
    std::cerr << "perfengine: warning: " << OneLine(*nothing) << "\n";
    if (strict) {
      std::cerr << "perfengine: validate --strict: a warning fails the spec\n";
      return ExitCode::kRunFailed;
    }
  }
  std::cout << fmt::format("{}: ok ({}, {}; baseline '{}', candidate '{}')\n", OneLine(common.spec),
                           FormatCount(static_cast<long long>(spec.contenders.size()), "contender"),
                           FormatCount(static_cast<long long>(spec.workloads.size()), "workload"), spec.baseline,
                           spec.candidate);
  return ExitCode::kPass;
}

Subcommand AddValidate(CLI::App& app) {
  auto common = std::make_shared<CommonOptions>();
  CLI::App* validate = app.add_subcommand("validate", "Check a spec without running anything");
  AddSpecOptions(validate, *common);
  auto strict = std::make_shared<bool>(false);
  validate->add_flag("--strict", *strict, "Exit 2 on a warning too (e.g. a spec that gates nothing)");
  return {validate, [=] { return static_cast<int>(ValidateCommand(*common, *strict)); }};
}

}  // namespace pe::cli

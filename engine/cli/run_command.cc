// `perfengine run SPEC` (or --quick 'CMD A' 'CMD B'): parity, timed rounds, verdict, reports.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "engine/cli/cli_options.h"
#include "engine/cli/command_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/output_paths.h"
#include "engine/cli/parameter_lists.h"
#include "engine/cli/subcommands.h"
#include "engine/model/atomic_file.h"
#include "engine/report/reporter.h"
#include "engine/report/text.h"
#include "engine/run/duet_round.h"
#include "engine/run/experiment.h"
#include "engine/run/thread_axis.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/rounds_reach.h"
#include "engine/spec/spec.h"
#include "engine/spec/spec_error.h"

namespace pe::cli {

using model::ExitCode;
using model::RunResult;
using model::WriteFileAtomically;
using report::OneLine;
using runner::MakeSystemProcessRunner;

namespace {

// --rounds and --max-rounds may not leave a check unable to resolve; the spec's own
// rounds were checked when it was parsed.
void CheckRoundsOverride(const spec::Spec& spec, const RunFlags& flags) {
  if (!flags.rounds && !flags.max_rounds) return;
  const int rounds = flags.rounds.value_or(spec.settings.rounds);
  const int reach = std::max(rounds, flags.max_rounds.value_or(spec.settings.max_rounds));
  for (const spec::Workload& w : spec.workloads) {
    if (w.startup || !w.gate) continue;
    if (auto shortfall = spec::FindRoundsShortfall(spec::EffectiveThresholds(spec, w), reach)) {
      throw spec::UsageError(fmt::format("{}: {}", flags.rounds ? "--rounds" : "--max-rounds", shortfall->message));
    }
  }
}

}  // namespace

ExitCode RunCommand(const CommonOptions& given, const RunFlags& flags, bool color) {
  CommonOptions common = given;
  std::optional<QuickSpec> quick;
  if (!flags.quick.empty()) {
    if (!common.spec.empty())
      throw spec::UsageError("--quick: give either a SPEC or --quick 'CMD A' 'CMD B', not both");
    quick.emplace(InitFlags{flags.quick, "", flags.parity.empty() ? "exact" : flags.parity, false, flags.parameters});
    common.spec = quick->path().string();
  } else if (!flags.parameters.empty()) {
    throw spec::UsageError("-L: only with --quick; a spec lists a workload's values as parameters = { NAME = [...] }");
  } else if (!flags.parity.empty()) {
    throw spec::UsageError("--parity: only with --quick; a spec sets parity per workload");
  } else if (common.spec.empty()) {
    throw spec::UsageError("run: give a SPEC file, or --quick 'CMD A' 'CMD B' (perfengine init writes a spec to keep)");
  }
  const spec::Spec spec = LoadSpec(common);
  run::CheckDuet(spec);
  run::Options options = RunOptions(common);
  options.rounds = flags.rounds;
  options.max_rounds = flags.max_rounds;
  options.warmup_rounds = flags.warmup_rounds;
  CheckRoundsOverride(spec, flags);
  options.skip_serve = flags.skip_serve;
  options.serve_requests = flags.serve_requests;
  options.serve_concurrency = flags.serve_concurrency;
  if (!flags.shard.empty()) options.shard = run::ParseShard(flags.shard);
  options.progress_style = run::ChooseProgressStyle(flags.quiet, ::isatty(STDERR_FILENO));
  if (options.progress_style != run::ProgressStyle::kOff) options.progress = &std::cerr;
  options.accepted_by = AcceptedBy(flags.accept_regression);
  options.keep_measuring = flags.keep_measuring;
  model::Verdict probe;
  ApplyUnresolved(probe, flags.unresolved);  // a bad PERFENGINE_UNRESOLVED is exit 2 before the run
  run::SelectWorkloads(spec, options);       // unknown --workload names fail before any work
  for (const std::string& warning :
       run::ThreadAxisWarnings(spec, static_cast<int>(std::thread::hardware_concurrency()))) {
    std::cerr << "perfengine: warning: " << OneLine(warning) << "\n";
  }
  CheckOutputPaths(common.spec, ReportOutputs(flags.reports));
  if (flags.record) CheckRecordable(flags.history);
  auto runner = MakeSystemProcessRunner();
  RunResult result = run::RunExperiment(spec, options, *runner);
  ApplyUnresolved(result.verdict, flags.unresolved);
  // Files first: an interrupted or failed run still leaves its evidence behind. One file that
  // cannot be written (the disk filled during the run) costs neither the others nor the table.
  // What the run was asked for and did not deliver fails it: the Markdown (written last of the
  // files) and the table then say so, not PASS beside an exit of 2.
  std::vector<std::string> missing;
  auto attempt = [&](const std::string& what, const auto& writer) {
    try {
      writer();
    } catch (const std::exception& e) {
      missing.push_back(fmt::format("{}: {}", what, e.what()));
    }
  };
  if (flags.record) attempt("--record", [&] { RecordRun(result, common.spec, flags.history, flags.quiet); });
  auto write = [&](const report::Format& format, const auto& result_now) {
    const std::string path = PathFor(flags.reports, format.name);
    if (path.empty()) return;
    attempt(fmt::format("{} not written", format.flag),
            [&] { WriteFileAtomically(path, format.reporter->Render(result_now(), {})); });
  };
  // The result as the Markdown and the table show it. An interrupted run stays 130; stderr
  // still names what is missing.
  auto shown_now = [&] {
    RunResult shown = result;
    if (!missing.empty() && result.verdict.exit != ExitCode::kInterrupted) {
      shown.verdict.exit = ExitCode::kRunFailed;
      shown.verdict.lines.insert(shown.verdict.lines.end(), missing.begin(), missing.end());
    }
    return shown;
  };
  for (const report::Format& f : report::Formats()) {
    if (f.destination == report::Destination::kFile && !f.names_unwritten_files) write(f, [&] { return result; });
  }
  for (const report::Format& f : report::Formats()) {
    if (f.destination == report::Destination::kFile && f.names_unwritten_files) write(f, shown_now);
  }
  const RunResult shown = shown_now();
  for (const report::Format& f : report::Formats()) {
    if (f.destination == report::Destination::kStdout) std::cout << f.reporter->Render(shown, {color});
  }
  std::cout << std::flush;
  for (const std::string& line : missing) std::cerr << "perfengine: " << line << "\n";
  return shown.verdict.exit;
}

Subcommand AddRun(CLI::App& app) {
  auto common = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<RunFlags>();
  CLI::App* run = app.add_subcommand("run", "Run a spec: parity, timed rounds, verdict");
  AddSpecOptions(run, *common, false);  // or --quick
  run->add_option(
         "--quick", flags->quick,
         "Compare two or more commands without writing a spec: --quick 'CMD A' 'CMD B' ['CMD C' ...] (the spec "
         "perfengine init would write; each later command is judged against the first)")
      ->expected(2, -1);
  run->add_option("--parity", flags->parity,
                  "With --quick: how outputs are compared (exact, sorted-lines, json, json-map, none: time only)");
  AddParameterListOption(run, flags->parameters);  // -L, with --quick
  run->add_option("--rounds", flags->rounds, "Measured rounds (overrides [run] rounds)")
      ->check(WholeNumber(1, spec::limits::kMaxRounds));
  run->add_option("--max-rounds", flags->max_rounds,
                  "Add rounds while a gated check is unresolved, up to this many (overrides [run] max_rounds)")
      ->check(WholeNumber(1, spec::limits::kMaxRounds));
  run->add_option("--warmup-rounds", flags->warmup_rounds, "Warm-up rounds, discarded")
      ->check(WholeNumber(0, spec::limits::kMaxWarmupRounds));
  run->add_flag("--keep-measuring", flags->keep_measuring,
                "Add rounds up to max_rounds while a check is unresolved even once a miss no round can undo has fixed "
                "the exit code at 1 (by default the rounds stop there and the report says so)");
  AddReportOptions(run, flags->reports);
  run->add_flag("--skip-serve", flags->skip_serve, "Leave out serve workloads");
  run->add_option("--serve-requests", flags->serve_requests, "Requests per serve round (overrides the spec)")
      ->check(WholeNumber(1, spec::limits::kMaxRequestCount));
  run->add_option("--serve-concurrency", flags->serve_concurrency, "Connections per serve round (overrides the spec)")
      ->check(WholeNumber(1, spec::limits::kMaxConcurrency));
  run->add_option("--shard", flags->shard,
                  "Run only shard K of N (e.g. 2/4): a fixed 1/N of the workloads, for a CI matrix; see merge");
  run->add_flag("--quiet,-q", flags->quiet,
                "No progress on stderr (by default: a line redrawn on a terminal, else a plain line every 10 s)");
  run->add_flag("--record", flags->record, "Record the run in the history database (see perfengine history)");
  run->add_option("--history", flags->history,
                  "The history database (default: $PERFENGINE_HISTORY or ~/.local/share/perfengine/history.sqlite)");
  run->add_flag(
      "--accept-regression", flags->accept_regression,
      "Accept a missed threshold: exit 0, reported as accepted (also PERFENGINE_ACCEPT_REGRESSION=1, true, yes or on; "
      "0, false, no, off or empty do not)");
  AddUnresolvedOption(run, flags->unresolved);
  return {run, [=] { return static_cast<int>(RunCommand(*common, *flags, UseColor())); }, true};
}

}  // namespace pe::cli

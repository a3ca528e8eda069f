// `perfengine run --record` and `perfengine history`: engine/history/ does the work.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "engine/cli/commands.h"
#include "engine/cli/subcommands.h"
#include "engine/gitbuild/git.h"
#include "engine/history/store.h"
#include "engine/history/trend.h"
#include "engine/history/trend_html.h"
#include "engine/model/atomic_file.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/spec_error.h"
#include "engine/units/units.h"

namespace pe::cli {

using model::ContenderInfo;
using model::ExitCode;
using model::RunResult;
using model::WriteFileAtomically;
using runner::MakeSystemProcessRunner;

namespace fs = std::filesystem;

namespace {

fs::path HistoryPath(const std::string& flag) { return flag.empty() ? history::DefaultPath() : fs::path(flag); }

// A spec is the same spec across edits and checkouts in one place: its absolute path.
std::string SpecKey(const std::string& spec) { return fs::weakly_canonical(fs::absolute(spec)).string(); }

// What was measured: the candidate's commit when built from git, else the spec's checkout.
std::string CommitOf(const RunResult& result, const std::string& spec) {
  for (const ContenderInfo& c : result.contenders) {
    if (c.name == result.candidate && !c.commit.empty()) return c.commit;
  }
  auto runner = MakeSystemProcessRunner();
  std::error_code ec;
  const fs::path scratch = fs::temp_directory_path(ec);
  const fs::path dir = fs::absolute(spec).parent_path();
  const gitbuild::GitResult head =
      gitbuild::RunGit(*runner, dir, {"rev-parse", "--verify", "--quiet", "HEAD"}, scratch);
  return head.outcome.ok() ? head.out : "";
}

}  // namespace

void CheckRecordable(const std::string& history_flag) {
  try {
    history::Store store(HistoryPath(history_flag));
  } catch (const history::HistoryError& e) {
    throw spec::UsageError(fmt::format("--record: {}", e.what()));
  }
}

void RecordRun(const RunResult& result, const std::string& spec, const std::string& history_flag, bool quiet) {
  const fs::path path = HistoryPath(history_flag);
  history::Store store(path);
  const std::int64_t id = store.Record(result, SpecKey(spec), CommitOf(result, spec));
  if (!quiet) std::cerr << "recorded as run " << id << " in " << path.string() << "\n";
}

ExitCode HistoryCommand(const HistoryFlags& flags) {
  const fs::path path = HistoryPath(flags.history);
  if (!fs::exists(path))
    throw spec::UsageError(path.string() + ": no history yet (perfengine run SPEC --record writes it)");
  history::Store store(path, history::Store::ReadOnly{});  // reading never creates, migrates or locks
  const std::string key = SpecKey(flags.spec);
  const int runs = store.CountRuns(key);
  if (runs == 0) throw spec::UsageError(fmt::format("{}: no run of {} recorded", path.string(), key));
  history::TrendOptions options;
  options.workloads = flags.workloads;
  options.figure = flags.figure;  // empty: the figures the recorded runs' gates checked
  options.startup_change_points = flags.startup_change_points;
  const std::vector<history::WorkloadSeries> series = store.Series(key);
  const std::string trends = history::TrendText(series, options);  // a bad --figure: nothing printed
  std::cout << fmt::format("{}: {} recorded in {}\n\n", flags.spec, units::FormatCount(runs, "run"), path.string());
  std::cout << trends << std::flush;
  if (!flags.html.empty()) {
    WriteFileAtomically(flags.html,
                        history::TrendHtml(series, options, fmt::format("perfengine history: {}", flags.spec)));
  }
  return ExitCode::kPass;
}

Subcommand AddHistory(CLI::App& app) {
  auto flags = std::make_shared<HistoryFlags>();
  CLI::App* history =
      app.add_subcommand("history", "Each workload's trend over the recorded runs of a spec, with change points");
  history->add_option("spec", flags->spec, "The spec file whose runs were recorded (run --record)")->required();
  history->add_option("--workload", flags->workloads, "Only this workload (repeatable)");
  history->add_option(
      "--figure", flags->figure,
      "The figure to trace (default: the figures the recorded runs' gates checked, else median_round_speedup): "
      "median_round_speedup (what min_speedup reads), median_round_cpu_ratio (what max_slowdown reads), speedup, "
      "instructions_ratio, ... or CONTENDER.median_wall_s");
  history->add_flag("--startup-change-points", flags->startup_change_points,
                    "Also seek change points on the startup workload (left out by default: start-up time follows the "
                    "machine more than the code)");
  history->add_option("--html", flags->html, "Also write the trends as a self-contained HTML page of charts");
  history->add_option(
      "--history", flags->history,
      "The history database (default: $PERFENGINE_HISTORY or ~/.local/share/perfengine/history.sqlite)");
  return {history, [=] { return static_cast<int>(HistoryCommand(*flags)); }};
}

}  // namespace pe::cli

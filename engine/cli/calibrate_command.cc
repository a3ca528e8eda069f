// `perfengine calibrate`: runs the baseline against a copy of itself through run::RunExperiment
// (the same fixtures, parity, interleaved rounds and wait4 accounting as `run`; no timing loop of
// its own), then reads the noise and each check's reach from the rounds
// (analysis::CalibrationOf). A failed A/A run (the baseline disagreeing with itself, a crash) is
// exit 2 with its reasons, as in `run`; otherwise exit 0: calibration informs, it gates nothing.
#include "engine/cli/calibrate_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine/analysis/calibration.h"
#include "engine/cli/output_paths.h"
#include "engine/cli/subcommands.h"
#include "engine/model/atomic_file.h"
#include "engine/report/provenance.h"
#include "engine/report/text.h"
#include "engine/run/duet_round.h"
#include "engine/run/experiment.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/programs.h"
#include "engine/spec/spec.h"
#include "engine/spec/spec_error.h"
#include "engine/units/units.h"

namespace pe::cli {

using model::ExitCode;
using report::OneLine;

namespace {

using Clock = std::chrono::steady_clock;

// The A/A spec: the baseline, and a copy of it as the candidate under a name no contender has.
spec::Spec AgainstItself(spec::Spec spec) {
  const spec::Contender* baseline = spec.FindContender(spec.baseline);
  spec::Contender copy = *baseline;
  copy.name = spec.baseline + "@again";
  while (spec.FindContender(copy.name) != nullptr) copy.name += "'";
  copy.description = fmt::format("'{}' again (calibrate: A/A)", spec.baseline);
  const spec::Contender original = *baseline;
  spec.contenders = {original, copy};
  spec.candidate = copy.name;
  return spec;
}

struct TimedRun {
  model::RunResult result;
  double seconds = 0;
};

TimedRun RunRounds(const spec::Spec& aa, run::Options options, int rounds, runner::ProcessRunner& runner) {
  options.rounds = rounds;
  options.max_rounds = rounds;  // a fixed number: calibration must not stop when checks resolve
  const auto start = Clock::now();
  TimedRun out{run::RunExperiment(aa, options, runner), 0};
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

std::string Percent(double log_ratio) { return units::FormatPercentFixed(log_ratio, 2); }

// Runner-minutes as the run's own report prints them (report::FormatRunnerMinutes).
std::string Minutes(const std::optional<double>& minutes) {
  return minutes ? report::FormatRunnerMinutes(60 * *minutes) : std::string("-");
}

// "regression of +4.1% (1.041x)" for a no-regression check, "speed-up of 1.09x" otherwise (the
// threshold table's direction); for a check calibrate cannot estimate, why not (its note, under
// "not estimated", says more).
std::string Detectable(const analysis::CheckCalibration& c) {
  if (!c.estimated && c.reachable) return "not estimated: one figure per run";
  if (!c.reach.detectable) return c.note.empty() ? "none (too few rounds)" : "none (not evaluated)";
  const double r = *c.reach.detectable;
  if (!c.higher_is_better) {
    return fmt::format("regression of {} ({})", units::FormatSignedPercent(r - 1, 1), units::FormatRatio(r, 3));
  }
  return "speed-up of " + units::FormatRatio(r, 3);
}

nlohmann::json Optional(const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); }

std::string Rounds(const std::optional<int>& rounds) { return rounds ? fmt::format("{}", *rounds) : "never"; }

nlohmann::json ToJson(const analysis::Calibration& cal, const spec::Spec& spec, const model::RunResult& aa,
                      double budget_s, int rounds, const analysis::CalibrationSettings& settings) {
  nlohmann::json out;
  out["format"] = "perfengine-calibration/1";
  out["spec"] = spec.path.string();
  out["spec_digest"] = spec.digest;
  out["started_at"] = aa.started_at;
  out["machine"] = {
      {"hostname", aa.machine.hostname}, {"os", aa.machine.os}, {"cpu", aa.machine.cpu}, {"cores", aa.machine.cores}};
  out["baseline"] = spec.baseline;
  out["budget_s"] = budget_s;
  out["rounds"] = rounds;
  out["warmup_rounds"] = aa.settings.warmup_rounds;
  out["order"] = aa.settings.order;
  out["seconds_per_round"] = settings.seconds_per_round;
  out["power"] = settings.power;
  out["assumed_change"] = settings.assumed_change;
  out["workloads"] = nlohmann::json::array();
  for (const analysis::WorkloadCalibration& w : cal.workloads) {
    nlohmann::json wj;
    wj["name"] = w.name;
    wj["noise"] = nlohmann::json::array();
    for (const analysis::MeasureNoise& n : w.noise) {
      wj["noise"].push_back({{"measure", n.measure}, {"mad_log_ratio", n.mad}, {"rounds", n.rounds}});
    }
    wj["checks"] = nlohmann::json::array();
    for (const analysis::CheckCalibration& c : w.checks) {
      nlohmann::json cj = {
          {"threshold", c.threshold},   {"measure", c.measure},     {"bar", c.bar},  {"confidence", c.confidence},
          {"max_rounds", c.max_rounds}, {"reachable", c.reachable}, {"note", c.note}};
      cj["estimated"] = c.estimated;
      cj["detectable"] = Optional(c.reach.detectable);
      cj["rounds_to_verdict"] = Optional(c.reach.rounds_unchanged);
      cj["minutes_to_verdict"] = Optional(c.minutes);
      cj["rounds_at_assumed"] = Optional(c.reach.rounds_assumed);
      cj["minutes_at_assumed"] = Optional(c.minutes_assumed);
      if (!c.noise_source.empty()) cj["noise_source"] = c.noise_source;
      wj["checks"].push_back(std::move(cj));
    }
    out["workloads"].push_back(std::move(wj));
  }
  out["unreachable"] = cal.unreachable;
  return out;
}

void PrintTable(std::ostream& out, const analysis::Calibration& cal, const spec::Spec& spec, const model::RunResult& aa,
                int rounds, const analysis::CalibrationSettings& settings) {
  out << fmt::format("calibrate {}: baseline '{}' against itself, {} rounds + {} warm-up, {} order, {} per round\n\n",
                     OneLine(spec.path.string()), OneLine(spec.baseline), rounds, aa.settings.warmup_rounds,
                     aa.settings.order, units::FormatSeconds(settings.seconds_per_round));
  out << fmt::format("{:<32} {:<20} {:>12} {:>7}\n", "workload", "measure", "noise (MAD)", "rounds");
  for (const analysis::WorkloadCalibration& w : cal.workloads) {
    for (const analysis::MeasureNoise& n : w.noise) {
      out << fmt::format("{:<32} {:<20} {:>12} {:>7}\n", OneLine(w.name), OneLine(n.measure), Percent(n.mad), n.rounds);
    }
  }
  bool any = false;
  for (const analysis::WorkloadCalibration& w : cal.workloads) any = any || !w.checks.empty();
  const bool assumed = settings.assumed_change != 0;
  const std::string at = fmt::format("at {:+g}%", 100 * settings.assumed_change);
  // As wide as the longest check's name (max_own_instructions_ratio, counters.NAME), at least 22.
  std::size_t check_width = 22;
  for (const analysis::WorkloadCalibration& w : cal.workloads) {
    for (const analysis::CheckCalibration& c : w.checks)
      check_width = std::max(check_width, OneLine(c.threshold).size());
  }
  if (any) {
    out << fmt::format("\n{:<32} {:<{}} {:>8} {:<38} {:>17} {:>8}", "workload", "check", check_width, "bar",
                       "shown with 80% power within max_rounds", "rounds to verdict", "minutes");
    if (assumed) out << fmt::format(" {:>17} {:>8}", "rounds " + at, "minutes");
    out << "\n";
    for (const analysis::WorkloadCalibration& w : cal.workloads) {
      for (const analysis::CheckCalibration& c : w.checks) {
        out << fmt::format("{:<32} {:<{}} {:>8} {:<38} {:>17} {:>8}", OneLine(w.name), OneLine(c.threshold),
                           check_width, fmt::format("{:g}", c.bar), Detectable(c), Rounds(c.reach.rounds_unchanged),
                           Minutes(c.minutes));
        if (assumed) out << fmt::format(" {:>17} {:>8}", Rounds(c.reach.rounds_assumed), Minutes(c.minutes_assumed));
        out << "\n";
      }
    }
    out << "\n(rounds to verdict: for a candidate that changed nothing";
    if (settings.futility) out << ", max_slowdown's ending where it would stop for futility ([run] futility)";
    if (assumed) out << fmt::format("; rounds {}: for one {:+g}% slower", at, 100 * settings.assumed_change);
    out << "; minutes: those rounds and the warm-ups at this run's time per round; a count is judged once the run "
           "ends)\n";
  }
  // Why a CPU-time check sees what it sees: where its noise comes from (issue 41: "where a
  // benchmark cannot get there, the table says what its noise is and why").
  bool sources = false;
  for (const analysis::WorkloadCalibration& w : cal.workloads) {
    for (const analysis::CheckCalibration& c : w.checks) {
      if (c.noise_source.empty()) continue;
      if (!sources) out << "\nwhere max_slowdown's noise comes from (CPU time per iteration, worker benchmarks):\n";
      sources = true;
      out << "  " << OneLine(fmt::format("{}: {}", w.name, c.noise_source)) << "\n";
    }
  }
  bool unestimated = false;
  for (const analysis::WorkloadCalibration& w : cal.workloads) {
    for (const analysis::CheckCalibration& c : w.checks) {
      if (c.estimated || !c.reachable) continue;
      if (!unestimated) out << "\nnot estimated:\n";
      unestimated = true;
      out << "  " << OneLine(fmt::format("{}: {} {:g}: {}", w.name, c.threshold, c.bar, c.note)) << "\n";
    }
  }
  if (!cal.unreachable.empty()) {
    out << "\ncannot be reached on this machine:\n";
    for (const std::string& line : cal.unreachable) out << "  " << OneLine(line) << "\n";
  }
}

// The number `text` starts with, `used` its length (0 when it starts with none); "1e999", a
// number out of range, is HUGE_VAL.
double LeadingNumber(const std::string& text, std::size_t& used) {
  used = 0;
  try {
    return std::stod(text, &used);
  } catch (const std::out_of_range&) {
    return HUGE_VAL;
  } catch (const std::exception&) {
    used = 0;
    return 0;
  }
}

}  // namespace

double ParseBudget(const std::string& text) {
  std::size_t used = 0;
  const double value = LeadingNumber(text, used);
  const std::string unit = used > 0 ? text.substr(used) : "";
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (used == 0 || scale == 0 || std::isnan(value)) {
    throw spec::UsageError(
        fmt::format("--budget: '{}' is not a duration; give a number above 0 with s, m or h, e.g. 90s, 10m, 1h", text));
  }
  if (!(value > 0) || !(value * scale <= kMaxBudgetS)) {
    throw spec::UsageError(
        fmt::format("--budget: '{}' is out of range: give a duration above 0 and at most {}h "
                    "(a week), e.g. 90s, 10m, 1h",
                    text, kMaxBudgetS / 3600));
  }
  return value * scale;
}

double ParseAssumedChange(const std::string& text) {
  std::size_t used = 0;
  const double value = LeadingNumber(text, used);
  const std::string rest = used > 0 ? text.substr(used) : "";
  if (used == 0 || !(rest.empty() || rest == "%") || std::isnan(value)) {
    throw spec::UsageError(fmt::format(
        "--assume-change: '{}' is not a change in percent; give a number above -100, e.g. 3 (3% slower) or -10", text));
  }
  if (!(value > -100) || !(value <= kMaxAssumedChangePercent)) {
    throw spec::UsageError(
        fmt::format("--assume-change: '{}' is out of range: give a change in percent above -100 and at most {} "
                    "({}x slower), e.g. 3 (3% slower) or -10",
                    text, kMaxAssumedChangePercent, 1 + kMaxAssumedChangePercent / 100));
  }
  return value / 100;
}

CalibrateCommand::CalibrateCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "calibrate", "Run the baseline against itself (A/A): noise, and the smallest change each check can show");
  command_->add_option("spec", common_.spec, "The spec file (TOML)")->required();
  command_->add_option("--budget", flags_.budget, "How long the A/A rounds may take: 90s, 10m (default), 1h");
  command_->add_option("--rounds", flags_.rounds, "Exactly this many A/A rounds instead of what the budget allows")
      ->check(CLI::Range(7, spec::limits::kMaxRounds));
  command_->add_option("--json", flags_.json, "Write the calibration as JSON here (atomically)");
  command_->add_option("--assume-change", flags_.assume_change,
                       "Also predict the rounds to a verdict for a candidate this many percent slower (e.g. 3)");
  command_->add_option("--contender", common_.contenders,
                       "Replace a contender's program (NAME=PROGRAM) or its git revision (NAME=git:REV) (repeatable)");
  command_->add_option("--workload", common_.workloads, "Only this workload (repeatable); startup always runs");
  command_->add_option("--cache-dir", common_.cache_dir,
                       "Fixture cache (default: $PERFENGINE_CACHE or ~/.cache/perfengine)");
}

ExitCode CalibrateCommand::Run() const {
  const double budget_s = ParseBudget(flags_.budget);
  const double assumed_change = flags_.assume_change.empty() ? 0 : ParseAssumedChange(flags_.assume_change);
  spec::Spec spec = spec::ParseSpecFile(common_.spec);
  for (const std::string& assignment : common_.contenders) spec::ApplyContenderOverride(spec, assignment);
  spec::CheckPrograms(spec);
  run::CheckDuet(spec);
  CheckOutputPaths(common_.spec, {{"--json", flags_.json}});
  const spec::Spec aa = AgainstItself(spec);
  run::Options options;
  options.workloads = common_.workloads;
  options.cache_root = common_.cache_dir;
  run::SelectWorkloads(aa, options);  // unknown --workload names fail before any work
  options.progress_style = run::ChooseProgressStyle(false, ::isatty(STDERR_FILENO));
  options.progress = &std::cerr;
  auto runner = runner::MakeSystemProcessRunner();

  int rounds = flags_.rounds.value_or(0);
  TimedRun timed;
  if (rounds == 0) {
    // Two rounds (and the warm-ups) time a round; the budget's rest decides how many to run.
    const TimedRun pilot = RunRounds(aa, options, 2, *runner);
    if (pilot.result.verdict.exit == ExitCode::kRunFailed || pilot.result.verdict.exit == ExitCode::kInterrupted) {
      timed = pilot;
      rounds = 2;
    } else {
      const double per_round = pilot.seconds / (2 + aa.settings.warmup_rounds);
      const double left = budget_s - pilot.seconds;
      rounds = static_cast<int>(std::clamp(std::floor(left / per_round) - aa.settings.warmup_rounds, 7.0,
                                           static_cast<double>(spec::limits::kMaxRounds)));
    }
  }
  if (timed.seconds == 0) timed = RunRounds(aa, options, rounds, *runner);
  const model::RunResult& result = timed.result;
  if (result.verdict.exit == ExitCode::kRunFailed || result.verdict.exit == ExitCode::kInterrupted) {
    std::cerr << "perfengine: calibrate: the A/A run failed:\n";
    for (const std::string& line : result.verdict.lines) std::cerr << "  " << OneLine(line) << "\n";
    return result.verdict.exit;
  }
  analysis::CalibrationSettings settings;
  settings.seconds_per_round = timed.seconds / (rounds + result.settings.warmup_rounds);
  settings.max_rounds = std::max(spec.settings.rounds, spec.settings.max_rounds);
  settings.min_rounds = spec.settings.rounds;
  settings.warmup_rounds = spec.settings.warmup_rounds;
  settings.assumed_change = assumed_change;
  settings.final_look = spec.settings.final_look.has_value();
  settings.futility = spec.settings.futility.has_value();
  const analysis::Calibration cal = analysis::CalibrationOf(result, settings);
  if (!flags_.json.empty()) {
    model::WriteFileAtomically(flags_.json, ToJson(cal, spec, result, budget_s, rounds, settings).dump(2) + "\n");
  }
  PrintTable(std::cout, cal, spec, result, rounds, settings);
  return ExitCode::kPass;
}

}  // namespace pe::cli

namespace pe::cli {

Subcommand AddCalibrate(CLI::App& app) {
  auto command = std::make_shared<CalibrateCommand>(app);
  return {command->app(), [command] { return static_cast<int>(command->Run()); }, true};
}

}  // namespace pe::cli

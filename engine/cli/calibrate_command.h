// `perfengine calibrate SPEC [--budget 10m] [--rounds N] [--json FILE]` (docs/calibrate.md): the
// spec's baseline against itself (A/A), and what this machine's noise lets each gated check see.
// Its own subcommand object, so the dispatch in cli.cc is one line to register it and one to run it.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "engine/cli/commands.h"
#include "engine/model/result.h"

namespace pe::cli {

struct CalibrateFlags {
  std::string budget = "10m";  // how long the A/A rounds may take: 90s, 10m, 1h
  std::optional<int> rounds;   // exactly this many rounds instead of what the budget allows
  std::string json;            // --json FILE: the calibration as JSON
  std::string assume_change;   // --assume-change PCT: predict rounds for a candidate this much slower
};

// The most --assume-change takes: a candidate 11 times as costly, far past any bar a gate sets.
inline constexpr double kMaxAssumedChangePercent = 1000;
// The most --budget takes: a week of A/A rounds (and [run] timeout's ceiling).
inline constexpr double kMaxBudgetS = 7 * 24 * 3600;

// "3", "+3%", "-10%": a change of cost in percent, to a fraction (0.03); throws
// spec::UsageError naming --assume-change unless it is a number above -100 and at most
// kMaxAssumedChangePercent.
double ParseAssumedChange(const std::string& text);

// "90s", "10m", "1.5h" or a plain number of seconds, to seconds; throws spec::UsageError
// naming --budget otherwise, or when it is not above 0 or above kMaxBudgetS.
double ParseBudget(const std::string& text);

class CalibrateCommand {
 public:
  explicit CalibrateCommand(CLI::App& app);  // registers the subcommand
  bool chosen() const { return command_->parsed(); }
  CLI::App* app() const { return command_; }
  model::ExitCode Run() const;

 private:
  CLI::App* command_;
  CommonOptions common_;
  CalibrateFlags flags_;
};

}  // namespace pe::cli

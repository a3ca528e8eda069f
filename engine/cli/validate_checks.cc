#include "engine/cli/validate_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <filesystem>

#include "engine/gitbuild/git.h"
#include "engine/measure/scratch_dir.h"
#include "engine/model/threshold_table.h"
#include "engine/run/scratch.h"
#include "engine/runner/file_tail.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/programs.h"

namespace pe::cli {

using runner::Command;
using runner::FileTail;
using runner::Outcome;
using runner::ProcessRunner;

namespace fs = std::filesystem;

namespace {

constexpr double kStartupTimeoutS = 10;

fs::path SpecDir(const spec::Spec& spec) {
  return spec.path.parent_path().empty() ? fs::path(".") : spec.path.parent_path();
}

}  // namespace

std::vector<spec::SpecError> CheckByRunning(const spec::Spec& spec, ProcessRunner& runner) {
  std::vector<spec::SpecError> errors;
  const measure::ScratchDir scratch(run::ScratchParent(), "perfengine-validate-", "cannot create a scratch directory");
  for (const spec::Contender& c : spec.contenders) {
    if (!c.git.empty()) {
      const gitbuild::GitResult resolved =
          gitbuild::RunGit(runner, c.repo, {"rev-parse", "--verify", "--quiet", c.git + "^{commit}"}, scratch.path());
      if (!resolved.outcome.ok() || resolved.out.empty()) {
        std::string repo = c.repo.lexically_normal().string();
        if (repo.size() > 1 && repo.back() == '/') repo.pop_back();
        errors.emplace_back(c.git_pos,
                            fmt::format("contender '{}': git revision '{}' does not exist in {}", c.name, c.git, repo));
      }
      continue;
    }
    const std::map<std::string, std::string> values = {
        {"spec_dir", fs::absolute(SpecDir(spec)).lexically_normal().string()},
        {"contender", c.name},
        {"seed", std::to_string(spec.settings.seed)},
        {"scale", fmt::format("{}", spec.settings.scale)},
        {"workdir", scratch.path().string()},
        {"out", (scratch.path() / "out").string()},
        {"fixture", scratch.path().string()},
    };
    Command cmd;
    for (const spec::Located& a : c.startup_argv) cmd.argv.push_back(spec::Expand(a.value, values));
    std::string why;
    const auto program = spec::ResolveProgram(cmd.argv[0], SpecDir(spec), &why);
    if (!program) continue;  // CheckPrograms reports it
    // A bare name stays bare (the runner looks it up on PATH), so the child's messages read
    // as they would at run time ("sh: 0: Illegal option --").
    if (cmd.argv[0].find('/') != std::string::npos) cmd.argv[0] = program->string();
    for (const auto& [k, v] : c.env) cmd.env[k] = spec::Expand(v, values);
    cmd.cwd = c.workdir;
    cmd.stderr_path = scratch.path() / "startup.stderr";
    cmd.timeout_s = kStartupTimeoutS;
    const Outcome outcome = runner.Run(cmd);
    if (outcome.ok()) continue;
    const std::string tail = FileTail(cmd.stderr_path, 1, 4096);
    std::vector<std::string> shown;
    for (const spec::Located& a : c.startup_argv) shown.push_back(a.value);
    errors.emplace_back(c.startup_argv.front().pos,
                        fmt::format("contender '{}': its startup command '{}' {}{}; set startup = [...] to a command "
                                    "that exits 0 quickly",
                                    c.name, fmt::join(shown, " "), outcome.error.empty() ? "failed" : outcome.error,
                                    tail.empty() ? "" : fmt::format(" ({})", tail)));
  }
  return errors;
}

std::optional<std::string> GatesNothingWarning(const spec::Spec& spec) {
  // A bar at the end of its range is met by every figure: min_win_rate = 0, say.
  auto can_fail = [](const model::ThresholdRow& row, double bar) {
    return row.higher_is_better ? (bar > row.min || (row.exclusive_min && bar >= row.min)) : bar < row.max;
  };
  int gated = 0, set = 0;
  for (const spec::Workload& w : spec.workloads) {
    if (w.startup || !w.gate) continue;
    ++gated;
    const model::Thresholds t = spec::EffectiveThresholds(spec, w);
    for (const model::ThresholdRow& row : model::kThresholdRows) {
      const std::optional<double>& bar = t.*row.bar;
      if (!bar) continue;
      ++set;
      if (can_fail(row, *bar)) return std::nullopt;
    }
  }
  for (const spec::Sweep& s : spec.sweeps) {
    if (s.max_cost_exponent || s.min_scaling_efficiency) return std::nullopt;
  }
  const std::string why = gated == 0 ? "no workload is gated (every one has gate = false)"
                          : set == 0 ? "no threshold is set ([thresholds] is empty or missing)"
                                     : "every threshold set is one no figure can miss";
  return fmt::format(
      "{}: this spec gates nothing: {}, so run exits 0 whatever it measures; set a bar that can fail, e.g. "
      "[thresholds] max_slowdown = 1.05 (docs/spec.md)",
      spec.path.string(), why);
}

}  // namespace pe::cli

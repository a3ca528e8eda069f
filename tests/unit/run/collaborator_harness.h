// What the run loop's collaborators (executor, parity checker, round runner, counts collector)
// need to run on their own in a test: a parsed spec, its settings, a result with a workload
// result per workload, a scratch directory and the fake process runner.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/measure/scratch_dir.h"
#include "engine/model/result.h"
#include "engine/run/executor.h"
#include "engine/run/fixture_preparer.h"
#include "engine/run/progress.h"
#include "engine/spec/family.h"
#include "engine/spec/spec.h"
#include "tests/support/fake_process_runner.h"

namespace pe::run::internal {

using testing::ReadText;

class Harness {
 public:
  Harness(const std::string& text, testing::FakeProcessRunner::Script script)
      : spec_(spec::ParseSpecText(text, "x.toml")),
        settings_(spec_.settings),
        runner_(std::move(script)),
        fixtures_(spec_, settings_, scratch_.path() / "cache", nullptr) {
    for (const spec::Workload& w : spec_.workloads) {
      workloads_.push_back(&w);
      model::WorkloadResult wr;
      wr.name = w.name;
      wr.startup = w.startup;
      wr.thresholds = spec::EffectiveThresholds(spec_, w);
      wr.counters = spec::EffectiveCounters(spec_, w);
      result_.workloads.push_back(std::move(wr));
    }
    // As Experiment::InitResult sets them: the analysis compares the contenders the result names,
    // each check at its share of the run's confidence.
    for (const spec::Contender& c : spec_.contenders) result_.contenders.push_back({c.name, c.description, {}, {}});
    const spec::Family family = spec::FamilyOf(spec_);
    settings_.family_checks = family.checks;
    settings_.check_confidence = family.check_confidence;
    settings_.family_confidence = family.family_confidence;
    result_.settings = settings_;
    result_.baseline = spec_.baseline;
    result_.candidate = spec_.candidate;
  }

  // `progress`: where the collaborators report their steps (none by default).
  Executor MakeExecutor(Progress* progress = nullptr) {
    return Executor(ExecutionContext{.spec = spec_,
                                     .settings = settings_,
                                     .runner = runner_,
                                     .result = result_,
                                     .fixtures = fixtures_,
                                     .scratch = scratch_.path(),
                                     .worktrees = nullptr,
                                     .progress = progress,
                                     .serve = {}});
  }

  const spec::Workload& W(const std::string& name) const { return *spec_.FindWorkload(name); }
  const spec::Contender& C(const std::string& name) const { return *spec_.FindContender(name); }
  const model::WorkloadResult& R(const std::string& name) const {
    for (const auto& wr : result_.workloads) {
      if (wr.name == name) return wr;
    }
    throw std::logic_error("no result for " + name);
  }

  measure::ScratchDir scratch_{"pe-run-test-"};
  spec::Spec spec_;
  model::Settings settings_;
  testing::FakeProcessRunner runner_;
  model::RunResult result_;
  FixturePreparer fixtures_;
  std::vector<const spec::Workload*> workloads_;
};

// Who ran: the WHO variable each contender of the specs below sets.
inline std::string Who(const runner::Command& c) { return c.env.at("WHO"); }

}  // namespace pe::run::internal

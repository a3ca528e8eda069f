// What no-regression gates need beyond timing: contenders built from git revisions, instruction
// and allocation counts taken once per contender and workload, and profiles of a regression.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "engine/gate/gate.h"
#include "engine/gitbuild/git_build.h"
#include "engine/measure/allocations.h"
#include "engine/measure/instructions.h"
#include "engine/measure/profile.h"
#include "engine/measure/where_the_time_went.h"
#include "engine/run/experiment_impl.h"
#include "engine/runner/interrupt.h"

namespace pe::run::internal {

using model::Check;
using model::ContenderInfo;
using model::ContenderSummary;
using model::Failure;
using model::WorkloadResult;

bool Experiment::BuildContenders() {
  for (const spec::Contender& c : spec_.contenders) {
    if (c.git.empty()) continue;
    try {
      const gitbuild::BuiltRevision built = gitbuild::PrepareRevision(c.repo, c.git, c.build, CacheRoot(), runner_);
      worktrees_[c.name] = built.worktree;
      for (ContenderInfo& info : result_.contenders) {
        if (info.name == c.name) {
          info.git = c.git;
          info.commit = built.commit;
        }
      }
    } catch (const gitbuild::BuildError& e) {
      // The log's tail is the failure's detail, printed once as a block with its lines kept.
      result_.failures.push_back(
          {Failure::Kind::kBuild, "", c.name, fmt::format("could not be built: {}", e.summary()), e.tail()});
      return false;
    } catch (const std::exception& e) {  // GitError
      result_.failures.push_back(
          {Failure::Kind::kBuild, "", c.name, fmt::format("could not be built: {}", e.what()), ""});
      return false;
    }
    if (interrupt::Interrupted()) return Interrupted();
  }
  return true;
}

bool Experiment::WantsInstructions(const spec::Workload& w) {
  // A server runs until stopped: counts are taken over process workloads only.
  return !w.startup && !w.serve && (spec_.measure_instructions || ResultFor(w).thresholds.max_instructions_ratio);
}

bool Experiment::WantsAllocations(const spec::Workload& w) {
  return !w.startup && !w.serve && (spec_.measure_allocations || ResultFor(w).thresholds.max_allocations_ratio);
}

bool Experiment::RunCounts() {
  for (const spec::Workload* w : workloads_) {
    const bool instructions = WantsInstructions(*w), allocations = WantsAllocations(*w);
    if (!instructions && !allocations) continue;
    for (const spec::Contender& c : spec_.contenders) {
      ContenderSummary counts;
      counts.contender = c.name;
      std::vector<std::string> notes;
      if (instructions) {
        const measure::InstructionCount n = measure::CountInstructions(BuildCommand(c, *w, PathsFor(c, *w)), runner_);
        counts.instructions = n.count;
        counts.instructions_source = n.source;
        if (!n.note.empty()) notes.push_back(n.note);
      }
      if (allocations) {
        const measure::AllocationCount a = measure::CountAllocations(BuildCommand(c, *w, PathsFor(c, *w)), runner_);
        counts.allocation_calls = a.calls;
        counts.allocated_bytes = a.bytes;
        if (!a.note.empty()) notes.push_back(a.note);
      }
      counts.measure_note = fmt::format("{}", fmt::join(notes, "; "));
      ResultFor(*w).summaries.push_back(std::move(counts));
      if (interrupt::Interrupted()) return Interrupted();
    }
  }
  return true;
}

void Experiment::ProfileRegressions() {
  for (const spec::Workload* w : workloads_) {
    const bool regressed =
        std::any_of(result_.verdict.checks.begin(), result_.verdict.checks.end(),
                    [&](const Check& c) { return c.workload == w->name && !c.passed && gate::ProfileExplains(c); });
    if (!regressed) continue;
    const spec::Contender* b = spec_.FindContender(spec_.baseline);
    const spec::Contender* k = spec_.FindContender(spec_.candidate);
    const measure::ProfileResult base = measure::ProfileCommand(BuildCommand(*b, *w, PathsFor(*b, *w)), runner_);
    const measure::ProfileResult cand = measure::ProfileCommand(BuildCommand(*k, *w, PathsFor(*k, *w)), runner_);
    WorkloadResult& wr = ResultFor(*w);
    for (const measure::FunctionDelta& d : measure::WhereTheTimeWent(base.functions, cand.functions, 8)) {
      // A few instructions in a stub or the loader are not where time went.
      if (d.share_delta < 0.001 && d.cand_share < 0.005) continue;
      wr.profile.push_back({d.function, d.base_cost, d.cand_cost, d.base_share, d.cand_share});
    }
    wr.profile_note = !base.note.empty()   ? base.note
                      : !cand.note.empty() ? cand.note
                                           : "callgrind: self instructions per function";
  }
}

}  // namespace pe::run::internal

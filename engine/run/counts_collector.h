// What no-regression gates need beyond timing: instruction and allocation counts, taken once
// per contender and workload (they are deterministic), and callgrind profiles of both
// contenders on a workload that missed a cost threshold. Which counts a workload needs comes
// from the threshold table (model/threshold_table.h: a row's `count`), so a counted threshold
// added there is measured without a change here. Runs through the Executor's runner, so over
// the ProcessRunner seam. Not a public interface: use experiment.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/measure/reported_profile.h"
#include "engine/model/result.h"
#include "engine/run/executor.h"
#include "engine/spec/spec.h"

namespace pe::run::internal {

// Whether workload `w`, whose effective thresholds are `t`, wants the count named `count`
// ("instructions", "allocations"): [run] measure asks for it, or a threshold that reads it
// has a bar. A server runs until stopped, and the startup workload's counts mean nothing:
// counts are taken over other process workloads only.
bool WantsCount(const spec::Spec& spec, const spec::Workload& w, const model::Thresholds& t, std::string_view count);

class CountsCollector {
 public:
  CountsCollector(Executor& executor, std::vector<const spec::Workload*> workloads)
      : ex_(executor), workloads_(std::move(workloads)) {}

  // One count per contender per workload that wants one, as a ContenderSummary of that
  // workload (with a note where a count could not be taken). False after an interrupt.
  bool Collect();

  // Where the extra time went: callgrind profiles of both contenders on each workload that
  // missed a threshold a profile explains (reads the result's verdict), and the profiles the
  // contenders report themselves ($PERFENGINE_PROFILE). False when a contender wrote a bad
  // profile file (the failure is recorded: the verdict must be judged again).
  bool ProfileRegressions();

 private:
  // One plain run of `c` on `w` with $PERFENGINE_PROFILE set: what it wrote there, nothing when it
  // wrote nothing (or the run failed: `note` says so), a recorded failure when it wrote a bad line.
  std::optional<std::vector<measure::ReportedFunction>> ReportedProfile(const spec::Contender& c,
                                                                        const spec::Workload& w, std::string& note);

  Executor& ex_;
  std::vector<const spec::Workload*> workloads_;
  bool failed_ = false;
};

}  // namespace pe::run::internal

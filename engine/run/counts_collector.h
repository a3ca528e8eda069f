// What no-regression gates need beyond timing: instruction and allocation counts, taken once
// per contender and workload (they are deterministic), and callgrind profiles of both
// contenders on a workload that missed a cost threshold. Which counts a workload needs comes
// from the threshold table (model/threshold_table.h: a row's `count`), so a counted threshold
// added there is measured without a change here. Runs through the Executor's runner, so over
// the ProcessRunner seam. Not a public interface: use experiment.h.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/measure/reported_profile.h"
#include "engine/measure/scratch_dir.h"
#include "engine/model/result.h"
#include "engine/run/executor.h"
#include "engine/run/worker_counts.h"
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
  // An instruction count taken with callgrind leaves its files in this collector's scratch
  // directory until it is destroyed, for ProfileRegressions.
  // Progress: a "counting" phase, announced with its number of runs, a step per run.
  bool Collect();

  // Where the extra time went: callgrind profiles of both contenders on each workload that
  // missed a threshold a profile explains (reads the result's verdict), and the profiles the
  // contenders report themselves ($PERFENGINE_PROFILE). A contender whose instruction count
  // ran under callgrind is profiled from that count's files (the same command, so the same
  // profile) rather than run again; the profile note says so. Each profiling run has the spec's
  // prepare and cleanup hooks around it. False when a contender wrote a bad profile file or a
  // hook failed (the failure is recorded: the verdict must be judged again).
  bool ProfileRegressions();

 private:
  bool CollectEach();
  // Worker workloads' counts (worker_counts.h): one worker run per count and contender.
  bool CollectWorkers();
  // Each workload whose shared-worker `count` ("instructions", "allocations") missed its bar for
  // some contender, counted again in fresh workers started for it alone (worker_counts.h).
  bool CountNearMissesTwice(std::string_view count, const std::vector<const spec::Contender*>& contenders,
                            const spec::Workload* w, double bar, WorkerCounts& counts);
  bool CountMissesAlone(std::string_view count, const std::vector<const spec::Contender*>& contenders,
                        const std::vector<const spec::Workload*>& workloads, WorkerCounts& counts);
  // w's summary of c's counts, added when it has none yet.
  model::ContenderSummary* CountsOf(const spec::Workload& w, const std::string& contender);
  // c's callgrind dump of w's counted batch in count_files_, counted now if the counts did not
  // take one; false with failed_ set when the worker failed.
  bool CountWorkerFiles(const spec::Workload& w, const spec::Contender& c);
  // Why c's worker left no instruction count on w (its count's note).
  std::string WorkerCountNote(const spec::Workload& w, const spec::Contender& c) const;

  // One plain run of `c` on `w` with $PERFENGINE_PROFILE set, between the spec's prepare and
  // cleanup hooks as every execution: what it wrote there, nothing when it wrote nothing (or the
  // run failed: `note` says why, with the last line of its stderr), a recorded failure when it
  // wrote a bad line or a hook failed.
  std::optional<std::vector<measure::ReportedFunction>> ReportedProfile(const spec::Contender& c,
                                                                        const spec::Workload& w, std::string& note);

  // A contender's own folders (Executor::ObjectOwners): what its own-code instructions count.
  std::vector<std::filesystem::path> OwnDirs(const std::string& contender) const;
  // The own-code instructions of a count's callgrind files into `s`, or why not into its note.
  void CountOwnInstructions(const std::string& contender, const std::vector<std::filesystem::path>& files,
                            model::ContenderSummary& s) const;

  // A profile file's text as functions; nothing without one; a bad one is a recorded failure
  // naming c and w (failed_ set).
  std::optional<std::vector<measure::ReportedFunction>> ParsedProfile(const spec::Contender& c, const spec::Workload& w,
                                                                      const std::optional<std::string>& text);

  // A new directory for one instruction count's callgrind files, under counts_dir_.
  std::filesystem::path NextCallgrindDir();

  Executor& ex_;
  std::vector<const spec::Workload*> workloads_;
  bool failed_ = false;
  std::optional<measure::ScratchDir> counts_dir_;  // the instruction counts' callgrind files, made on first use
  int dirs_made_ = 0;
  // (workload, contender) -> the callgrind files its instruction count was read from.
  std::map<std::pair<std::string, std::string>, std::vector<std::filesystem::path>> count_files_;
  // (workload, contender) -> why a worker's instruction count is missing ("" when it is not).
  std::map<std::pair<std::string, std::string>, std::string> worker_notes_;
};

}  // namespace pe::run::internal

// `perfengine compare OLD NEW`: two saved runs of the same spec, compared unpaired.
//
// For each workload in both files, the candidate contender's measured wall times in OLD
// against those in NEW: speedup = median(OLD) / median(NEW) (above 1 NEW is faster), a
// Mann-Whitney U test, the probability of superiority P(a NEW run is faster than an OLD run,
// ties half), and a bootstrap interval of the speedup resampling each run's times on its own
// (stats::BootstrapMedianRatioUnpaired, NEW's seed and resamples, the workload's confidence).
// Then NEW's thresholds for the workload are checked on those figures through the gate's own
// loop over the threshold table (gate::CheckThresholds), so every threshold set is judged or
// named as skipped, and judged as the gate judges a run: a failure in either file is exit 2, a
// missed threshold exit 1. Every figure is recomputed from the saved samples and counts, never
// read from the file's own comparison: a results file is untrusted data.
// docs/explain.md says exactly what each threshold reads here.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"
#include "stats/bootstrap.h"
#include "stats/mann_whitney.h"

namespace pe::explain {

// One workload of two saved runs. Its figures are a model::Comparison, the model a run's own
// comparison is, with OLD's candidate in the baseline's role and NEW's in the candidate's: so
// speedup is OLD / NEW (above 1 NEW is faster), every ratio NEW / OLD, and the threshold table's
// member pointers (engine/model/threshold_table.h) read compare's figures as they read a run's.
// The rest is what comparing two files unpaired adds: the series compared and the tests on them.
struct WorkloadComparison {
  std::string workload;
  bool gate = true;
  // Set here: baseline and candidate (the candidate's name in OLD and in NEW), speedup
  // (old_median / new_median), speedup_ci (the bounds the gate reads: BCa, else percentile),
  // cpu_ratio and cpu_ratio_ci, rss_ratio (NEW / OLD median peak RSS), logic_speedup and
  // logic_note (startup-adjusted OLD / NEW), instructions_ratio and allocations_ratio (the
  // candidate's counts, measured once per file), p99_ratio (median over NEW's rounds / median
  // over OLD's, of each round's p99) and notes. Nothing paired is: OLD's rounds and NEW's are
  // not the same rounds.
  model::Comparison figures;
  // Why a point figure of `figures` is absent, by its name in kFigureRows ("rss_ratio",
  // "instructions_ratio", "allocations_ratio", "p99_ratio").
  std::map<std::string, std::string, std::less<>> missing;
  // Paired: the baseline ran in both files, so each file's rounds pair the candidate with the
  // baseline, and what is compared is each round's candidate / baseline ratio, OLD's against
  // NEW's: the ratios the gate's confidence sequences read, with the machine's drift between
  // the two runs cancelled round by round. Unpaired: the candidate's own times.
  bool paired = false;
  std::string figure;            // what old_wall and new_wall hold, for every output to name
  std::vector<double> old_wall;  // per round: the candidate's wall time, or candidate / baseline when paired
  std::vector<double> new_wall;
  double old_median = 0;
  double new_median = 0;
  double raw_speedup = 0;  // the candidate's own median wall time, OLD / NEW, as measured
  // The same for CPU time (user + system), which max_slowdown reads as the gate does: the
  // candidate's CPU time, or its per-round CPU-time ratio to the baseline when paired.
  std::vector<double> old_cpu;
  std::vector<double> new_cpu;
  // A change is claimed only where an interval says so: the speed-up's or the CPU-time ratio's
  // interval lies wholly on one side of 1.
  bool changed = false;
  stats::MannWhitneyResult mann_whitney;  // x = OLD, y = NEW
  double superiority = 0.5;               // P(NEW run < OLD run), ties half
  std::optional<stats::BootstrapResult> bootstrap;
};

struct RunComparison {
  std::string candidate_old;  // the candidate's name in each file
  std::string candidate_new;
  std::vector<WorkloadComparison> workloads;  // NEW's order
  std::vector<std::string> only_in_old;
  std::vector<std::string> only_in_new;
  model::Verdict verdict;  // exit, every check, and the lines of failures and missed checks
};

// "" when both files come from the same spec (same spec_digest), else one line saying how
// they differ.
std::string SpecMismatch(const model::RunResult& old_run, const model::RunResult& new_run);

RunComparison CompareRuns(const model::RunResult& old_run, const model::RunResult& new_run);

// A check's line as compare prints it: gate::CheckLine's, except that an unresolved check says
// what compare can add (more rounds in each run), not the rounds a sequence would need.
std::string CompareCheckLine(const model::Check& check);

}  // namespace pe::explain

// Every workload threshold, declared once. The spec parser (its keys and bounds), the merge of
// [thresholds] with a workload's own, the gate's checks, `compare`'s checks and the reference
// table in docs/spec.md all come from this table or are tested against it
// (tests/unit/model/threshold_table_test.cc), so a threshold added here reaches every one of
// them, and one missing from any of them fails a test instead of being silently ignored.
//
// Adding a threshold: a member of model::Thresholds (fields.h then wants it, and the build says
// so), a row here, its figure in kFigureRows below (a new figure: a member of Comparison too,
// its analysis and its fields.h entry), and a line in docs/spec.md's [thresholds] table.
// calibrate, history, trend and explain read both tables; a row none of them can read fails a
// test (grep EveryThresholdRow in tests/).
#pragma once

#include <cstddef>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "engine/model/result.h"

namespace pe::model {

struct ThresholdRow {
  std::string_view key;    // the spec key, also Check::threshold
  std::string_view label;  // how a check line names the figure it reads in a run
  std::optional<double> Thresholds::*bar;
  bool higher_is_better;
  Check::Burden burden;  // kPoint reads `point`; the others read the confidence sequence `sequence`
  Check::Unit unit;
  // What it reads in a run's Comparison.
  std::optional<Interval> Comparison::*sequence = nullptr;  // sequential rows
  std::optional<int> Comparison::*rounds_needed = nullptr;  // sequential rows; null where no estimate exists
  std::optional<double> Comparison::*point = nullptr;       // point rows
  // Sequential rows: the measure whose per-round log-ratios the sequence is built from, as
  // calibrate names its noise ("wall", "cpu", "logic"; engine/analysis/sequences.cc and
  // calibration.cc both read it). Empty for point rows.
  std::string_view per_round = "";
  // Ratio rows: the noise of the per-round log-ratios under `sequence`, from which the check's
  // "would have shown X% with 80% power" is computed (stats/detectable.h); null: not stated.
  std::optional<double> Comparison::*noise = nullptr;
  // The note when that figure is absent: the analysis's own reason where it leaves one
  // (`missing_note`, when not empty), else the contenders' measure notes for a count, else `missing`.
  std::string_view missing;
  std::string Comparison::*missing_note = nullptr;
  // The figure is a count measured once per contender ([run] measure = [...]), not a timing.
  bool needs_counts = false;
  // For a count: its name in [run] measure, which is also what a run measures when the bar is
  // set ("instructions", "allocations"; the counts collector, engine/run/counts_collector.h).
  std::string_view count = "";
  // The figure is work after start-up, which a serve workload's latency already is.
  bool after_startup = false;
  // A miss is a cost regression that a callgrind profile of both contenders can explain.
  bool profile_explains = false;
  // The win count and sign test are shown with the figure.
  bool shows_wins = false;
  // The values the spec may give it: above (or from) `min`, up to `max`.
  double min = 0;
  bool exclusive_min = true;
  double max = std::numeric_limits<double>::infinity();
};

// In the order a workload's checks are listed.
inline constexpr ThresholdRow kThresholdRows[] = {
    {.key = "min_speedup",
     .label = "median speedup",
     .bar = &Thresholds::min_speedup,
     .higher_is_better = true,
     .burden = Check::Burden::kShowMet,
     .unit = Check::Unit::kRatio,
     .sequence = &Comparison::speedup_cs,
     .rounds_needed = &Comparison::speedup_rounds_needed,
     .per_round = "wall",
     .noise = &Comparison::speedup_noise,
     .missing = "no paired rounds"},
    {.key = "min_speedup_ci",
     .label = "median speedup",
     .bar = &Thresholds::min_speedup_ci,
     .higher_is_better = true,
     .burden = Check::Burden::kShowMet,
     .unit = Check::Unit::kRatio,
     .sequence = &Comparison::speedup_cs,
     .rounds_needed = &Comparison::speedup_rounds_needed,
     .per_round = "wall",
     .noise = &Comparison::speedup_noise,
     .missing = "no paired rounds"},
    {.key = "min_win_rate",
     .label = "win rate",
     .bar = &Thresholds::min_win_rate,
     .higher_is_better = true,
     .burden = Check::Burden::kShowMet,
     .unit = Check::Unit::kRate,
     .sequence = &Comparison::win_rate_cs,
     .rounds_needed = &Comparison::win_rounds_needed,
     .per_round = "wall",
     .missing = "no paired rounds",
     .shows_wins = true,
     .exclusive_min = false,
     .max = 1},
    {.key = "min_logic_speedup",
     .label = "startup-adjusted speedup",
     .bar = &Thresholds::min_logic_speedup,
     .higher_is_better = true,
     .burden = Check::Burden::kShowMet,
     .unit = Check::Unit::kRatio,
     .sequence = &Comparison::logic_speedup_cs,
     .rounds_needed = &Comparison::logic_rounds_needed,
     .per_round = "logic",
     .noise = &Comparison::logic_noise,
     .missing = "no startup-adjusted figure",
     .missing_note = &Comparison::logic_note,
     .after_startup = true},
    // Fails only when the regression is shown: noise alone cannot push the whole sequence
    // above the tolerance at the chosen confidence, however many rounds are looked at.
    {.key = "max_slowdown",
     .label = "paired CPU-time ratio",
     .bar = &Thresholds::max_slowdown,
     .higher_is_better = false,
     .burden = Check::Burden::kShowMissed,
     .unit = Check::Unit::kRatio,
     .sequence = &Comparison::cpu_ratio_cs,
     .rounds_needed = &Comparison::cpu_rounds_needed,
     .per_round = "cpu",
     .noise = &Comparison::cpu_noise,
     .missing = "no CPU time: no paired rounds reported any",
     .profile_explains = true},
    {.key = "max_rss_ratio",
     .label = "peak RSS ratio",
     .bar = &Thresholds::max_rss_ratio,
     .higher_is_better = false,
     .burden = Check::Burden::kPoint,
     .unit = Check::Unit::kRatio,
     .point = &Comparison::rss_ratio,
     .missing = "the baseline reported no peak RSS"},
    {.key = "max_p99_ratio",
     .label = "p99 latency ratio",
     .bar = &Thresholds::max_p99_ratio,
     .higher_is_better = false,
     .burden = Check::Burden::kPoint,
     .unit = Check::Unit::kRatio,
     .point = &Comparison::p99_ratio,
     .missing = "not a serve workload"},
    {.key = "max_instructions_ratio",
     .label = "instruction count ratio",
     .bar = &Thresholds::max_instructions_ratio,
     .higher_is_better = false,
     .burden = Check::Burden::kPoint,
     .unit = Check::Unit::kRatio,
     .point = &Comparison::instructions_ratio,
     .missing = "instructions not measured",
     .needs_counts = true,
     .count = "instructions",
     .profile_explains = true},
    {.key = "max_own_instructions_ratio",
     .label = "own-code instruction ratio",
     .bar = &Thresholds::max_own_instructions_ratio,
     .higher_is_better = false,
     .burden = Check::Burden::kPoint,
     .unit = Check::Unit::kRatio,
     .point = &Comparison::own_instructions_ratio,
     .missing = "own-code instructions not measured",
     .needs_counts = true,
     .count = "instructions",  // the same callgrind count, its own objects' share
     .profile_explains = true},
    {.key = "max_allocations_ratio",
     .label = "allocation count ratio",
     .bar = &Thresholds::max_allocations_ratio,
     .higher_is_better = false,
     .burden = Check::Burden::kPoint,
     .unit = Check::Unit::kRatio,
     .point = &Comparison::allocations_ratio,
     .missing = "allocations not measured",
     .needs_counts = true,
     .count = "allocations",
     .profile_explains = true},
};

// The comparison's figures, each once: its name in the history database and `perfengine trend`,
// how it is read from a Comparison, its direction and what it means. A threshold row's figure
// (its `point`, or the estimate of its `sequence`) is one of these rows, with the row's
// direction (the static_assert below), so history and trend record and name every figure a
// check reads (HistoryStoreTest.EveryThresholdRowsFigureIsRecordedAndNamedInItsDirection). In
// the order history records them.
struct FigureRow {
  std::string_view name;
  std::optional<double> (*read)(const Comparison&);
  bool higher_is_better;
  std::string_view meaning;  // what `trend` says of it
  // The threshold rows' member pointers it is the figure of (null: descriptive only).
  std::optional<double> Comparison::*point = nullptr;
  std::optional<Interval> Comparison::*sequence = nullptr;
};

inline constexpr FigureRow kFigureRows[] = {
    {.name = "speedup",
     .read = [](const Comparison& c) -> std::optional<double> { return c.speedup; },
     .higher_is_better = true,
     .meaning =
         "ratio of median wall times, baseline / candidate (descriptive: min_speedup reads median_round_speedup)"},
    {.name = "win_rate",
     .read = [](const Comparison& c) -> std::optional<double> { return c.win_rate; },
     .higher_is_better = true,
     .meaning = "share of paired rounds the candidate won (min_win_rate reads its sequence)",
     .sequence = &Comparison::win_rate_cs},
    {.name = "logic_speedup",
     .read = [](const Comparison& c) { return c.logic_speedup; },
     .higher_is_better = true,
     .meaning = "ratio of startup-adjusted medians (descriptive: min_logic_speedup reads median_round_logic_speedup)"},
    {.name = "rss_ratio",
     .read = [](const Comparison& c) { return c.rss_ratio; },
     .higher_is_better = false,
     .meaning = "peak RSS ratio, candidate / baseline: what max_rss_ratio reads",
     .point = &Comparison::rss_ratio},
    {.name = "cpu_ratio",
     .read = [](const Comparison& c) { return c.cpu_ratio; },
     .higher_is_better = false,
     .meaning =
         "ratio of median CPU times, candidate / baseline (descriptive: max_slowdown reads median_round_cpu_ratio)"},
    {.name = "instructions_ratio",
     .read = [](const Comparison& c) { return c.instructions_ratio; },
     .higher_is_better = false,
     .meaning = "instruction count ratio, exact: what max_instructions_ratio reads",
     .point = &Comparison::instructions_ratio},
    {.name = "allocations_ratio",
     .read = [](const Comparison& c) { return c.allocations_ratio; },
     .higher_is_better = false,
     .meaning = "allocation count ratio, exact: what max_allocations_ratio reads",
     .point = &Comparison::allocations_ratio},
    {.name = "p99_ratio",
     .read = [](const Comparison& c) { return c.p99_ratio; },
     .higher_is_better = false,
     .meaning = "p99 latency ratio, candidate / baseline: what max_p99_ratio reads",
     .point = &Comparison::p99_ratio},
    // What the gate reads: the estimates of the confidence sequences over paired rounds; the
    // ratios of medians above are descriptive beside them.
    {.name = "median_round_speedup",
     .read = [](const Comparison& c) { return c.speedup_cs ? std::optional(c.speedup_cs->estimate) : std::nullopt; },
     .higher_is_better = true,
     .meaning = "median per-round speed-up, baseline / candidate wall time: what min_speedup reads",
     .sequence = &Comparison::speedup_cs},
    {.name = "median_round_cpu_ratio",
     .read =
         [](const Comparison& c) { return c.cpu_ratio_cs ? std::optional(c.cpu_ratio_cs->estimate) : std::nullopt; },
     .higher_is_better = false,
     .meaning = "median per-round CPU-time ratio, candidate / baseline: what max_slowdown reads",
     .sequence = &Comparison::cpu_ratio_cs},
    {.name = "median_round_logic_speedup",
     .read =
         [](const Comparison& c) {
           return c.logic_speedup_cs ? std::optional(c.logic_speedup_cs->estimate) : std::nullopt;
         },
     .higher_is_better = true,
     .meaning = "median per-round startup-adjusted speed-up: what min_logic_speedup reads",
     .sequence = &Comparison::logic_speedup_cs},
    {.name = "own_instructions_ratio",
     .read = [](const Comparison& c) { return c.own_instructions_ratio; },
     .higher_is_better = false,
     .meaning = "instruction count ratio in the contenders' own code, exact: what max_own_instructions_ratio reads",
     .point = &Comparison::own_instructions_ratio},
};

// The index in kFigureRows of the figure a threshold row reads; -1 when none is declared (the
// build fails then). An index, not a pointer: GCC's UndefinedBehaviorSanitizer makes a pointer's
// comparison with null no constant expression, and the sanitized build checks this too.
constexpr int FigureIndexOf(const ThresholdRow& row) {
  for (std::size_t i = 0; i < std::size(kFigureRows); ++i) {
    const FigureRow& figure = kFigureRows[i];
    if ((row.point != nullptr && figure.point == row.point) ||
        (row.sequence != nullptr && figure.sequence == row.sequence)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// The figure a threshold row reads; null when none is declared (the build fails then).
constexpr const FigureRow* FigureOf(const ThresholdRow& row) {
  const int i = FigureIndexOf(row);
  return i < 0 ? nullptr : &kFigureRows[i];
}

constexpr bool EveryRowHasItsFigure() {
  for (const ThresholdRow& row : kThresholdRows) {
    const int i = FigureIndexOf(row);
    if (i < 0 || kFigureRows[i].higher_is_better != row.higher_is_better) return false;
  }
  return true;
}
static_assert(EveryRowHasItsFigure(), "every threshold row's figure is a row of kFigureRows, in the same direction");

// The two [thresholds] keys that are settings of the checks above rather than checks.
inline constexpr std::string_view kRssRunsKey = "rss_runs";
// The level of each check of the table, set by hand in place of the one split from [run]
// confidence (docs/statistics.md, "Family-wise confidence"); the report names it an override.
inline constexpr std::string_view kCheckConfidenceKey = "per_check_confidence";
// [run] confidence: of the whole verdict. [thresholds] once took it too; it is now an error there.
inline constexpr std::string_view kConfidenceKey = "confidence";
// [thresholds.counters] NAME = ratio: the bars of the counters a spec declares (docs/counters.md).
// Not a row: a row reads a fixed member of Thresholds and Comparison through member pointers,
// and a counter's name comes from the spec. Its bars travel in WorkloadResult::counters, and
// gate::CounterChecks reads them the way RowCheck reads a row (exact: as a point row like
// max_allocations_ratio; noisy: as a sequential row like max_slowdown).
inline constexpr std::string_view kCountersKey = "counters";

// Confidence is bounded below because a check at under 50% is more likely wrong than right:
// its interval misses the true figure more often than it holds it. Below 1 because an
// interval at 100% is the whole line and no number of rounds resolves a check against it.
inline constexpr double kMinConfidence = 0.5;
inline constexpr double kMaxConfidence = 0.9999;

// A row needs counts exactly when it names the count it reads.
constexpr bool CountsNamed() {
  for (const ThresholdRow& row : kThresholdRows) {
    if (row.needs_counts == row.count.empty()) return false;
  }
  return true;
}
static_assert(CountsNamed(), "a row with needs_counts names its count, and only such a row does");

// A row reads a sequence exactly when it names the per-round measure the sequence is built from.
constexpr bool SequencesMeasured() {
  for (const ThresholdRow& row : kThresholdRows) {
    if ((row.sequence == nullptr) != row.per_round.empty()) return false;
  }
  return true;
}
static_assert(SequencesMeasured(), "a row with a sequence names its per-round measure, and only such a row does");

// The checks of `t` that read a confidence sequence: the members of the run's family
// (docs/statistics.md, "Family-wise confidence"). Rows that read the same sequence at the same
// level (min_speedup and min_speedup_ci) are one event "this sequence misses the truth" and
// count once. Point rows (a count, a peak) read no interval and are not in the family.
constexpr int SequentialChecks(const Thresholds& t) {
  int count = 0;
  for (std::size_t i = 0; i < std::size(kThresholdRows); ++i) {
    const ThresholdRow& row = kThresholdRows[i];
    if (row.burden == Check::Burden::kPoint || !(t.*row.bar).has_value()) continue;
    bool counted = false;
    for (std::size_t j = 0; j < i; ++j) {
      const ThresholdRow& earlier = kThresholdRows[j];
      if (earlier.sequence == row.sequence && (t.*earlier.bar).has_value()) counted = true;
    }
    if (!counted) ++count;
  }
  return count;
}

constexpr const ThresholdRow* FindThresholdRow(std::string_view key) {
  for (const ThresholdRow& row : kThresholdRows) {
    if (row.key == key) return &row;
  }
  return nullptr;
}

}  // namespace pe::model

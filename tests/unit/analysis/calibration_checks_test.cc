// The check kinds `perfengine calibrate` covers beyond the median sequences (issue 23): the win
// rate (ReachOfWinRate, judged by simulation through the gate's own proportion sequence), the
// rounds predicted for an assumed change (judged by simulating the gate's look-every-round
// stop), and CalibrationOf over an A/A result with start-up, counters and counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/analysis/calibration.h"
#include "engine/model/threshold_table.h"
#include "stats/error.h"
#include "stats/sequential.h"

namespace pe::analysis {
namespace {

TEST(ReachOfWinRate, NoNoiseMeansAnySpeedupWinsEveryRound) {
  const CheckReach r = ReachOfWinRate(0, 0.5, 30, 0.95);
  ASSERT_TRUE(r.detectable);
  EXPECT_EQ(*r.detectable, 1.0);
  // An unchanged candidate with no noise ties every round: it wins none, and a bar of 1/2 is
  // shown missed as soon as the proportion sequence leaves it.
  ASSERT_TRUE(r.rounds_unchanged);
  EXPECT_EQ(*r.rounds_unchanged, *stats::MinTrialsToExclude(0.5, 0.95));
}

TEST(ReachOfWinRate, ACoinFlipNeverResolvesABarOfOneHalf) {
  EXPECT_FALSE(ReachOfWinRate(0.05, 0.5, 30, 0.95).rounds_unchanged);
  // ...but a candidate 5% faster under 5% noise wins most rounds and gets its verdict.
  EXPECT_TRUE(ReachOfWinRate(0.05, 0.5, 30, 0.95, 0.8, std::log(1.05)).rounds_assumed);
}

TEST(ReachOfWinRate, ABarTheSequenceCannotClearInMaxRoundsDetectsNothing) {
  EXPECT_FALSE(ReachOfWinRate(0.05, 1.0, 60, 0.95).detectable);
  EXPECT_FALSE(ReachOfWinRate(0.05, 0.95, 10, 0.95).detectable);  // 10 straight wins do not show 95%
  EXPECT_TRUE(ReachOfWinRate(0.05, 0.5, 10, 0.95).detectable);
}

TEST(ReachOfWinRate, MoreNoiseNeedsALargerSpeedup) {
  EXPECT_GT(*ReachOfWinRate(0.10, 0.6, 30, 0.95).detectable, *ReachOfWinRate(0.02, 0.6, 30, 0.95).detectable);
  EXPECT_GT(*ReachOfWinRate(0.02, 0.6, 30, 0.95).detectable, 1.0);
}

// The independent judge: max_rounds rounds whose log speed-up is Normal(log(detectable), sigma);
// a round is won when it is above 0, and the gate's own proportion sequence says whether the
// win rate is shown above the bar at the last round.
TEST(ReachOfWinRate, TheDetectableSpeedupIsShownInAboutEightyPercentOfSimulatedRuns) {
  for (const auto& [sigma, bar, rounds] : {std::tuple{0.05, 0.5, 30}, std::tuple{0.02, 0.6, 60}}) {
    const double shift = std::log(*ReachOfWinRate(sigma, bar, rounds, 0.95).detectable);
    std::mt19937_64 random(20261204);
    std::normal_distribution<double> noise(shift, sigma);
    const int runs = 4000;
    int shown = 0;
    for (int run = 0; run < runs; ++run) {
      int wins = 0;
      for (int i = 0; i < rounds; ++i) wins += noise(random) > 0 ? 1 : 0;
      shown += stats::ProportionSequence(wins, rounds, 0.95).low >= bar ? 1 : 0;
    }
    const double power = static_cast<double>(shown) / runs;
    // At least 80% less 6 standard errors; the count of wins is discrete, so the smallest
    // probability reaching 80% can overshoot it a little, never undershoot.
    EXPECT_GT(power, 0.76) << sigma << " " << bar;
    EXPECT_LT(power, 0.90) << sigma << " " << bar;
  }
}

TEST(ReachOfWinRate, RejectsWhatIsNotAQuestion) {
  EXPECT_THROW(ReachOfWinRate(-0.1, 0.5, 30, 0.95), stats::StatsError);
  EXPECT_THROW(ReachOfWinRate(0.1, 1.5, 30, 0.95), stats::StatsError);
  EXPECT_THROW(ReachOfWinRate(0.1, 0.5, 0, 0.95), stats::StatsError);
  EXPECT_THROW(ReachOfWinRate(0.1, 0.5, 30, 0.95, 0.8, NAN), stats::StatsError);
}

TEST(ReachOfCheckAssumed, APlantedRegressionFurtherFromTheBarResolvesSoonerAndOneOnTheBarNever) {
  const CheckReach r = ReachOfCheck(0.02, 1.01, 60, 0.95, 0.8, std::log(1.03));
  ASSERT_TRUE(r.rounds_unchanged && r.rounds_assumed);
  EXPECT_LT(*r.rounds_assumed, *r.rounds_unchanged);  // 3% is twice as far from 1.01 as 0% is
  EXPECT_EQ(ReachOfCheck(0.02, 1.01, 60, 0.95).rounds_assumed, ReachOfCheck(0.02, 1.01, 60, 0.95).rounds_unchanged);
  EXPECT_FALSE(ReachOfCheck(0.02, 1.01, 60, 0.95, 0.8, std::log(1.01)).rounds_assumed);
}

// The prediction against the gate's stopping rule: rounds drawn one by one until the median
// sequence leaves the bar; the median of those stopping rounds must be near the prediction (it
// is an estimate from the expected share below the bar, not a bound).
TEST(ReachOfCheckAssumed, ThePredictedRoundsAreNearTheMedianRoundAtWhichSimulatedRunsStop) {
  for (const auto& [sigma, bar, change] : {std::tuple{0.02, 1.01, 1.03}, std::tuple{0.03, 1.01, 1.0}}) {
    const std::optional<int> predicted = ReachOfCheck(sigma, bar, 60, 0.95, 0.8, std::log(change)).rounds_assumed;
    ASSERT_TRUE(predicted);
    std::mt19937_64 random(20261205);
    std::normal_distribution<double> noise(std::log(change), sigma);
    std::vector<int> stops;
    for (int run = 0; run < 400; ++run) {
      std::vector<double> x;
      for (int n = 1; n <= 2000; ++n) {
        x.push_back(noise(random));
        const stats::MedianBounds b = stats::MedianSequence(x, 0.95);
        if (b.low > std::log(bar) || b.high < std::log(bar)) break;
      }
      stops.push_back(static_cast<int>(x.size()));
    }
    std::nth_element(stops.begin(), stops.begin() + stops.size() / 2, stops.end());
    const int median = stops[stops.size() / 2];
    EXPECT_GT(median, *predicted / 2) << sigma << " " << change << ": predicted " << *predicted;
    EXPECT_LT(median, *predicted * 2) << sigma << " " << change << ": predicted " << *predicted;
  }
}

// An A/A result: the startup workload and one workload, `rounds` measured rounds plus a
// warm-up, both sides given by the callbacks.
model::Sample Sample(const std::string& contender, int round, double wall, double cpu) {
  model::Sample s;
  s.contender = contender;
  s.round = round;
  s.wall_s = wall;
  s.user_s = cpu;
  return s;
}

model::RunResult AaResult(int rounds) {
  model::RunResult r;
  r.baseline = "base";
  r.candidate = "base@again";
  model::WorkloadResult startup;
  startup.name = "startup";
  startup.startup = true;
  model::WorkloadResult work;
  work.name = "work";
  work.counters = {{"objects", "objects", true, 1.0}, {"misses", "misses", false, 1.05}, {"free", "x", false, {}}};
  std::mt19937_64 random(7);
  std::normal_distribution<double> noise(0, 0.01);
  for (int round = 0; round <= rounds; ++round) {
    for (const std::string& who : {r.baseline, r.candidate}) {
      model::Sample st = Sample(who, round, 0.010 * std::exp(noise(random)), 0.005);
      model::Sample s = Sample(who, round, 0.100 * std::exp(noise(random)), 0.090 * std::exp(noise(random)));
      st.warmup = s.warmup = round == 0;
      // The exact counter moves by one in the copy's last round: declared exact, it is not.
      s.counters = {{"objects", who == r.candidate && round == rounds ? 1001.0 : 1000.0},
                    {"misses", 50 * std::exp(noise(random))},
                    {"free", 1}};
      startup.samples.push_back(st);
      work.samples.push_back(s);
    }
  }
  model::ContenderSummary b, c;
  b.contender = r.baseline;
  c.contender = r.candidate;
  b.instructions = 1000000;
  c.instructions = 1000000;
  work.summaries = {b, c};
  work.thresholds.min_win_rate = 0.5;
  work.thresholds.min_logic_speedup = 1.1;
  work.thresholds.max_slowdown = 1.05;
  work.thresholds.max_instructions_ratio = 1.0;
  work.thresholds.max_allocations_ratio = 1.0;  // not measured: named, never guessed
  r.workloads = {startup, work};
  return r;
}

const CheckCalibration* Find(const Calibration& cal, const std::string& threshold) {
  for (const CheckCalibration& c : cal.workloads.at(1).checks) {
    if (c.threshold == threshold) return &c;
  }
  return nullptr;
}

bool Names(const Calibration& cal, const std::string& start) {
  return std::any_of(cal.unreachable.begin(), cal.unreachable.end(),
                     [&](const std::string& line) { return line.starts_with(start); });
}

TEST(CalibrationOf, CoversEveryGatedCheckKindOfTheWorkload) {
  CalibrationSettings settings;
  settings.max_rounds = 60;
  settings.min_rounds = 7;
  settings.warmup_rounds = 1;
  settings.seconds_per_round = 6;
  settings.assumed_change = 0.03;
  const Calibration cal = CalibrationOf(AaResult(20), settings);
  ASSERT_EQ(cal.workloads.size(), 2u);
  std::vector<std::string> measures;
  for (const MeasureNoise& n : cal.workloads[1].noise) measures.push_back(n.measure);
  EXPECT_EQ(measures, (std::vector<std::string>{"wall", "cpu", "logic", "counter objects", "counter misses",
                                                "counter free", "instructions"}));
  std::vector<std::string> checks;
  for (const CheckCalibration& c : cal.workloads[1].checks) checks.push_back(c.threshold);
  // In the threshold table's order (the gate's), then the counters; a counter without a bar
  // gates nothing and is not a check.
  EXPECT_EQ(checks,
            (std::vector<std::string>{"min_win_rate", "min_logic_speedup", "max_slowdown", "max_instructions_ratio",
                                      "max_allocations_ratio", "counters.objects", "counters.misses"}));

  const CheckCalibration* win = Find(cal, "min_win_rate");
  ASSERT_TRUE(win && win->reach.detectable);
  EXPECT_EQ(win->measure, "wall");
  EXPECT_GT(*win->reach.detectable, 1.0);
  EXPECT_FALSE(win->reach.rounds_unchanged);  // an unchanged candidate never shows 1/2 either way
  EXPECT_TRUE(win->reach.rounds_assumed);     // 3% slower under ~1% noise loses most rounds

  const CheckCalibration* logic = Find(cal, "min_logic_speedup");
  ASSERT_TRUE(logic && logic->reach.detectable);
  EXPECT_EQ(logic->measure, "logic");
  EXPECT_GT(*logic->reach.detectable, 1.1);

  const CheckCalibration* misses = Find(cal, "counters.misses");
  ASSERT_TRUE(misses && misses->reach.rounds_unchanged && misses->minutes);
  EXPECT_TRUE(misses->reachable);
  EXPECT_DOUBLE_EQ(*misses->minutes, (*misses->reach.rounds_unchanged + 1) * 6 / 60.0);

  const CheckCalibration* instructions = Find(cal, "max_instructions_ratio");
  ASSERT_TRUE(instructions && instructions->reach.detectable);
  EXPECT_EQ(*instructions->reach.detectable, 1.0);  // equal counts: any change above the bar shows
  EXPECT_EQ(instructions->reach.rounds_unchanged, 7);
  EXPECT_TRUE(instructions->reachable);

  // An exact counter that moved in one round: an unchanged candidate fails a bar of 1.0.
  const CheckCalibration* objects = Find(cal, "counters.objects");
  ASSERT_TRUE(objects);
  EXPECT_FALSE(objects->reachable);
  EXPECT_EQ(objects->note, "declared exact but varied between the A/A rounds");
  EXPECT_TRUE(
      Names(cal, "work: counters.objects 1: an unchanged candidate fails it on this machine (A/A ratio 1.0010)"))
      << ::testing::PrintToString(cal.unreachable);
  EXPECT_TRUE(Names(cal, "work: max_allocations_ratio 1: not measured in the A/A run"))
      << ::testing::PrintToString(cal.unreachable);
}

// A worker benchmark of three batches a round whose warm batches differ by `range` (log) in
// every sample: calibrate's "cpu within a process" is that range's sigma (range / d2(2)) as the
// MAD of a ratio of two batches, and max_slowdown says which of it and the processes' own
// differences is larger.
model::RunResult WorkerAa(double range) {
  model::RunResult aa = AaResult(20);
  for (model::Sample& s : aa.workloads[1].samples) s.worker = model::WorkerFigures{100, s.user_s, 3, range};
  return aa;
}

TEST(CalibrationOf, AWorkerBenchmarksNoiseWithinAProcessIsItsWarmBatchesRange) {
  CalibrationSettings settings;
  settings.max_rounds = 30;
  const Calibration cal = CalibrationOf(WorkerAa(0.02), settings);
  const auto& noise = cal.workloads[1].noise;
  const auto within = std::find_if(noise.begin(), noise.end(),
                                   [](const MeasureNoise& n) { return n.measure == "cpu within a process"; });
  ASSERT_NE(within, noise.end());
  EXPECT_NEAR(within->mad, 0.02 / 1.128 * 0.6745 * std::sqrt(2.0), 1e-12);
  EXPECT_EQ(within->rounds, 20);
  // The processes' CPU times differ by about 1% a round (AaResult): a 2% range is "within".
  const CheckCalibration* slowdown = Find(cal, "max_slowdown");
  ASSERT_TRUE(slowdown);
  EXPECT_TRUE(slowdown->noise_source.starts_with("within a process")) << slowdown->noise_source;
  // Batches that agree to 0.1%: the noise is the processes'.
  const Calibration steady = CalibrationOf(WorkerAa(0.001), settings);
  const CheckCalibration* quiet = Find(steady, "max_slowdown");
  ASSERT_TRUE(quiet);
  EXPECT_TRUE(quiet->noise_source.starts_with("between processes")) << quiet->noise_source;
  // A process workload has no batches: no such measure, no source.
  const Calibration processes = CalibrationOf(AaResult(20), settings);
  const CheckCalibration* process = Find(processes, "max_slowdown");
  ASSERT_TRUE(process);
  EXPECT_EQ(process->noise_source, "");
}

TEST(NoiseSource, NamesTheLargerSourceAndWhatLowersIt) {
  EXPECT_EQ(NoiseSource(0.05, 0.01),
            "between processes (5.0% a round between its processes, 1.0% between one process's batches): each round's "
            "fresh worker lays out its heap, code and allocator anew; more rounds lower it, more batches do not");
  EXPECT_TRUE(NoiseSource(0.02, 0.01).starts_with("within a process (2.0% a round"));
}

TEST(CalibrationOf, NamesWhatCannotBeReachedWithinMaxRounds) {
  CalibrationSettings settings;
  settings.max_rounds = 8;
  settings.min_rounds = 7;
  settings.seconds_per_round = 1;
  model::RunResult aa = AaResult(12);
  aa.workloads[1].thresholds.min_win_rate = 0.9;  // 8 straight wins cannot show 90%
  aa.workloads[1].thresholds.max_slowdown = 1.001;
  const Calibration cal = CalibrationOf(aa, settings);
  EXPECT_TRUE(Names(cal, "work: min_win_rate 0.9: max_rounds 8 is below the "))
      << ::testing::PrintToString(cal.unreachable);
  EXPECT_TRUE(Names(cal, "work: max_slowdown 1.001: needs about ")) << ::testing::PrintToString(cal.unreachable);
}

TEST(CalibrationOf, AStartupAdjustedCheckTheGateSkipsIsNamedWithTheGatesReason) {
  CalibrationSettings settings;
  settings.max_rounds = 30;
  settings.min_rounds = 7;
  model::RunResult aa = AaResult(10);
  model::Comparison c;
  c.logic_note = "startup-bound: the work after start-up is within start-up noise";
  aa.workloads[1].comparison = c;
  const Calibration cal = CalibrationOf(aa, settings);
  const CheckCalibration* logic = Find(cal, "min_logic_speedup");
  ASSERT_TRUE(logic);
  EXPECT_FALSE(logic->reachable);
  EXPECT_FALSE(logic->reach.detectable);
  EXPECT_TRUE(Names(cal,
                    "work: min_logic_speedup 1.1: the gate does not evaluate it here: startup-bound: the work after "
                    "start-up is within start-up noise"))
      << ::testing::PrintToString(cal.unreachable);
}

// Issue 43: calibrate had its own list of 7 thresholds and left max_rss_ratio and max_p99_ratio
// out without a word. Every row of the threshold table set at once: each is one check, in the
// table's order, and one calibrate cannot estimate says so in its row instead of vanishing.
TEST(CalibrationOf, EveryThresholdRowIsACheckOrSaysWhyNot) {
  CalibrationSettings settings;
  settings.max_rounds = 60;
  settings.min_rounds = 7;
  model::RunResult aa = AaResult(20);
  model::WorkloadResult& work = aa.workloads[1];
  work.counters.clear();
  std::vector<std::string> keys;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    work.thresholds.*row.bar = row.unit == model::Check::Unit::kRate ? 0.5 : 1.05;
    keys.emplace_back(row.key);
  }
  model::Comparison c;  // what the A/A run's own analysis found for the point figures
  c.rss_ratio = 1.02;
  work.comparison = c;
  const Calibration cal = CalibrationOf(aa, settings);
  std::vector<std::string> checks;
  for (const CheckCalibration& check : cal.workloads.at(1).checks) checks.push_back(check.threshold);
  EXPECT_EQ(checks, keys);
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    SCOPED_TRACE(std::string(row.key));
    const CheckCalibration* check = Find(cal, std::string(row.key));
    ASSERT_TRUE(check);
    EXPECT_EQ(check->higher_is_better, row.higher_is_better);
    // Estimated, or a note that says why not (and, for a figure the run lacks, a line).
    if (!check->reach.detectable) {
      EXPECT_FALSE(check->note.empty());
    }
  }
  const CheckCalibration* rss = Find(cal, "max_rss_ratio");
  ASSERT_TRUE(rss);
  EXPECT_FALSE(rss->estimated);
  EXPECT_TRUE(rss->reachable);
  EXPECT_EQ(rss->note,
            "calibrate estimates no power for a peak RSS ratio: it is one figure per run, not a per-round one "
            "(A/A ratio 1.0200)");
  const CheckCalibration* p99 = Find(cal, "max_p99_ratio");
  ASSERT_TRUE(p99);
  EXPECT_FALSE(p99->reachable);
  EXPECT_TRUE(Names(cal, "work: max_p99_ratio 1.05: the gate does not evaluate it here: not a serve workload"))
      << ::testing::PrintToString(cal.unreachable);
}

}  // namespace
}  // namespace pe::analysis

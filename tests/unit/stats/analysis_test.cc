#include "stats/analysis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "stats/descriptive.h"
#include "stats/error.h"

namespace pe::stats {
namespace {

struct Workload {
  std::vector<double> baseline, candidate, baseline_startup, candidate_startup;
};

// 30 rounds: baseline ~0.40 s, candidate ~0.10 s (4x), startup 0.05 s and 0.01 s.
Workload MakeWorkload(int rounds, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  Workload w;
  for (int i = 0; i < rounds; ++i) {
    const double drift = std::exp(0.03 * noise(engine));  // shared by both in one round
    w.baseline.push_back(0.40 * drift * std::exp(0.02 * noise(engine)));
    w.candidate.push_back(0.10 * drift * std::exp(0.02 * noise(engine)));
    w.baseline_startup.push_back(0.05 * std::exp(0.05 * noise(engine)));
    w.candidate_startup.push_back(0.01 * std::exp(0.05 * noise(engine)));
  }
  return w;
}

PairedInput InputFor(const Workload& w) {
  PairedInput input;
  input.baseline = w.baseline;
  input.candidate = w.candidate;
  input.baseline_startup = w.baseline_startup;
  input.candidate_startup = w.candidate_startup;
  input.seed = 17;
  input.resamples = 2000;
  return input;
}

TEST(AnalyzePairedTest, FullAnalysisOfAClearSpeedup) {
  const Workload w = MakeWorkload(30, 1);
  const PairedAnalysis a = AnalyzePaired(InputFor(w));
  EXPECT_EQ(a.rounds, 30);
  EXPECT_EQ(a.baseline_median, Median(w.baseline));
  EXPECT_EQ(a.candidate_median, Median(w.candidate));
  EXPECT_DOUBLE_EQ(a.speedup, a.baseline_median / a.candidate_median);
  EXPECT_NEAR(a.speedup, 4.0, 0.2);
  EXPECT_EQ(a.wins, 30);
  EXPECT_EQ(a.win_rate, 1.0);
  EXPECT_DOUBLE_EQ(a.sign_test_p, 2.0 * std::ldexp(1.0, -30));
  EXPECT_TRUE(a.wilcoxon_exact);
  EXPECT_EQ(a.wilcoxon_statistic, 0.0);
  EXPECT_DOUBLE_EQ(a.wilcoxon_p, 2.0 * std::ldexp(1.0, -30));  // only T+ = 0 is as extreme
  EXPECT_NEAR(a.paired_ratio, 0.25, 0.02);
  EXPECT_LT(a.paired_ratio_low, a.paired_ratio);
  EXPECT_GT(a.paired_ratio_high, a.paired_ratio);
  ASSERT_TRUE(a.speedup_ci.bca.has_value());
  EXPECT_LT(a.speedup_ci.bca->low, a.speedup);
  EXPECT_GT(a.speedup_ci.bca->high, a.speedup);
  EXPECT_EQ(a.speedup_ci.seed, 17u);
  ASSERT_TRUE(a.logic_speedup.has_value());
  EXPECT_NEAR(*a.logic_speedup, 0.35 / 0.09, 0.3);
  ASSERT_TRUE(a.logic_speedup_ci.has_value());
  EXPECT_TRUE(a.logic_speedup_ci->percentile.has_value());
  ASSERT_TRUE(a.power.has_value());
  EXPECT_GE(a.power->rounds, 2);
  // 30 rounds resolve 2% here, so no small-sample or power caveat is raised. (This data
  // does hold one severe candidate outlier, which is reported.)
  for (const std::string& note : a.notes) {
    EXPECT_EQ(note.find("round"), std::string::npos) << note;
    EXPECT_EQ(note.find("Hodges-Lehmann"), std::string::npos) << note;
  }
}

TEST(AnalyzePairedTest, SameInputAndSeedAreBitIdentical) {
  const Workload w = MakeWorkload(30, 2);
  const PairedAnalysis first = AnalyzePaired(InputFor(w));
  const PairedAnalysis second = AnalyzePaired(InputFor(w));
  EXPECT_EQ(first.speedup_ci.percentile->low, second.speedup_ci.percentile->low);
  EXPECT_EQ(first.speedup_ci.bca->high, second.speedup_ci.bca->high);
  EXPECT_EQ(first.logic_speedup_ci->bca->low, second.logic_speedup_ci->bca->low);
  EXPECT_EQ(first.paired_ratio_low, second.paired_ratio_low);
}

// "1 rounds cannot give...": a count printed with its noun agrees with it.
TEST(AnalyzePairedTest, OneRoundIsSingularInItsNotes) {
  const PairedAnalysis a = AnalyzePaired(InputFor(MakeWorkload(1, 3)));
  ASSERT_GE(a.notes.size(), 2u);
  EXPECT_EQ(a.notes[0].substr(0, 60), "1 round cannot give a 95% Hodges-Lehmann interval; the repor") << a.notes[0];
  EXPECT_NE(std::find(a.notes.begin(), a.notes.end(), "only 1 round: fewer than 9 make p-values and intervals coarse"),
            a.notes.end());
}

TEST(AnalyzePairedTest, FewRoundsAreAWarningNotAFailure) {
  const Workload w = MakeWorkload(5, 3);
  const PairedAnalysis a = AnalyzePaired(InputFor(w));
  EXPECT_EQ(a.rounds, 5);
  EXPECT_FALSE(a.log_ratio_hl.level_reached);
  ASSERT_EQ(a.notes.size(), 2u);
  EXPECT_EQ(a.notes[0], "5 rounds cannot give a 95% Hodges-Lehmann interval; the reported range covers 93.8%");
  EXPECT_EQ(a.notes[1], "only 5 rounds: fewer than 9 make p-values and intervals coarse");
  ASSERT_TRUE(a.power.has_value());
  EXPECT_GT(a.power->rounds, 5);
}

TEST(AnalyzePairedTest, OneRoundStillGivesPointEstimates) {
  PairedInput input;
  const std::vector<double> baseline{2.0};
  const std::vector<double> candidate{1.0};
  input.baseline = baseline;
  input.candidate = candidate;
  const PairedAnalysis a = AnalyzePaired(input);
  EXPECT_EQ(a.speedup, 2.0);
  EXPECT_EQ(a.wins, 1);
  EXPECT_EQ(a.sign_test_p, 1.0);
  EXPECT_EQ(a.wilcoxon_p, 1.0);
  EXPECT_DOUBLE_EQ(a.paired_ratio, 0.5);
  EXPECT_EQ(a.speedup_ci.percentile->low, 2.0);
  EXPECT_FALSE(a.power.has_value());
  EXPECT_FALSE(a.logic_speedup.has_value());
  EXPECT_EQ(a.logic_note, "no startup runs for both contenders: no startup-adjusted speedup");
}

TEST(AnalyzePairedTest, StartupLongerThanTheRunLeavesNoLogicSpeedup) {
  Workload w = MakeWorkload(10, 4);
  for (double& s : w.candidate_startup) s = 0.2;  // longer than the candidate's 0.1 s rounds
  const PairedAnalysis a = AnalyzePaired(InputFor(w));
  EXPECT_FALSE(a.logic_speedup.has_value());
  EXPECT_FALSE(a.logic_speedup_ci.has_value());
  ASSERT_TRUE(a.adjusted_medians.has_value());
  EXPECT_LT(a.adjusted_medians->candidate, 0);
  EXPECT_NE(a.logic_note.find("no startup-adjusted speedup"), std::string::npos);
}

TEST(AnalyzePairedTest, OutliersAreReportedPerSide) {
  Workload w = MakeWorkload(20, 5);
  w.candidate[6] *= 5;  // one disturbed round
  const PairedAnalysis a = AnalyzePaired(InputFor(w));
  EXPECT_EQ(a.candidate_outliers.tukey.severe, std::vector<std::size_t>{6});
  EXPECT_EQ(a.wins, 19);
  EXPECT_EQ(a.notes.front(), "1 severe outlier (beyond 3 IQR): medians resist them, but check for interference");
}

TEST(AnalyzePairedTest, RejectsBadRounds) {
  PairedInput input;
  const std::vector<double> two{1.0, 2.0};
  const std::vector<double> one{1.0};
  const std::vector<double> with_zero{1.0, 0.0};
  const std::vector<double> with_nan{1.0, std::nan("")};
  input.baseline = two;
  input.candidate = one;
  EXPECT_THROW(AnalyzePaired(input), StatsError);
  input.candidate = with_zero;
  EXPECT_THROW(AnalyzePaired(input), StatsError);
  input.candidate = with_nan;
  EXPECT_THROW(AnalyzePaired(input), StatsError);
  input.baseline = {};
  input.candidate = {};
  EXPECT_THROW(AnalyzePaired(input), StatsError);
}

}  // namespace
}  // namespace pe::stats

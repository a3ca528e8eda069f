// explain over the crafted results files: exact output, determinism, and agreement of the
// recomputed figures with the comparison each file stores.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "engine/explain/detail.h"
#include "engine/explain/explain_text.h"
#include "engine/explain/select.h"
#include "engine/model/threshold_table.h"
#include "engine/spec/spec_error.h"
#include "engine/units/units.h"
#include "stats/descriptive.h"
#include "tests/unit/explain/golden.h"

namespace pe::explain {

using model::Check;
using model::Comparison;
using model::ExitCode;
using model::RunResult;
using model::Sample;
using model::WorkloadResult;
namespace {

using testing::ExpectGolden;
using testing::LoadResults;

std::string Explain(const RunResult& r, const std::string& file, const std::vector<std::string>& names = {}) {
  return ExplainText(r, file, SelectWorkloads(r, names, file));
}

TEST(ExplainGolden, PassingRunAllWorkloads) {
  ExpectGolden("explain_pass.txt", Explain(LoadResults("pass.json"), "pass.json"));
}

TEST(ExplainGolden, MissedThresholdsNameWhatDecided) {
  const std::string text = Explain(LoadResults("missed.json"), "missed.json", {"work"});
  ExpectGolden("explain_missed_work.txt", text);
  // These claims are unresolved, not missed: explain never calls them missed.
  EXPECT_NE(text.find("  decided by: min_speedup (margin -16%), min_speedup_ci (margin -7%), min_logic_speedup "
                      "(margin -22%) unresolved (not shown either way)\n"),
            std::string::npos)
      << text;
}

TEST(Explain, ListsEveryThresholdInForceInTheTablesOrder) {
  // The list once had its own six keys and left out the counts and p99 thresholds.
  RunResult r = LoadResults("pass.json");
  r.workloads[2].thresholds.max_instructions_ratio = 1.01;
  r.workloads[2].thresholds.max_allocations_ratio = 1.2;
  r.workloads[2].thresholds.max_p99_ratio = 1.1;
  r.workloads[2].thresholds.min_win_rate = 0.6;
  const std::string text = Explain(r, "pass.json", {"tiny"});
  EXPECT_NE(text.find("gated; thresholds: min_speedup 1.00x, min_win_rate 60%, min_logic_speedup 2.00x, "
                      "max_p99_ratio 1.10x, max_instructions_ratio 1.01x, max_allocations_ratio 1.20x (each check at "
                      "95%)\n"),
            std::string::npos)
      << text;
}

TEST(Explain, AnAcceptedRegressionIsShownAsAccepted) {
  RunResult r = LoadResults("missed.json");
  // The file's claims are unresolved (exit 3), which cannot be accepted; a peak-RSS bar its
  // 0.33x misses makes it a regression (exit 1), which can.
  r.workloads[1].thresholds.max_rss_ratio = 0.3;
  const std::string missed = Explain(r, "missed.json", {"work"});
  EXPECT_NE(missed.find("recorded verdict: unresolved (exit 3)\n"), std::string::npos) << missed;
  r.verdict.exit = ExitCode::kPass;
  r.verdict.accepted = true;
  r.verdict.accepted_by = "--accept-regression";
  const std::string text = Explain(r, "missed.json", {"work"});
  EXPECT_NE(text.find("recorded verdict: accepted regression, accepted by --accept-regression (exit 0)\n"),
            std::string::npos)
      << text;
  // Accepting the miss accepts only the miss: the claims beside it stay unresolved (exit 3), and
  // are never listed as missed.
  EXPECT_NE(text.find("  decided by: max_rss_ratio (margin -11%) missed; accepted by --accept-regression\n"
                      "  also: min_speedup (margin -16%), min_speedup_ci (margin -7%), min_logic_speedup (margin -22%) "
                      "unresolved (not shown either way)\n"),
            std::string::npos)
      << text;
}

// A results file is data: a verdict, checks and sequences edited to a pass do not make explain
// show one; what it shows as decided comes from the samples.
TEST(Explain, AnEditedVerdictIsJudgedAgainFromTheSamples) {
  RunResult r = LoadResults("missed.json");
  EXPECT_NE(Explain(r, "missed.json", {"work"}).find("verdict from the samples: unresolved (exit 3), as recorded\n"),
            std::string::npos);
  r.verdict.exit = ExitCode::kPass;
  r.verdict.lines.clear();
  for (Check& c : r.verdict.checks) {
    c.passed = true;
    c.state = Check::State::kPass;
    c.measured = 2 * c.bar;
  }
  Comparison& c = *r.workloads[1].comparison;
  c.speedup_cs->estimate = c.speedup_cs->low = c.speedup_cs->high = 2.5;
  const std::string text = Explain(r, "missed.json", {"work"});
  EXPECT_NE(text.find("recorded verdict: pass (exit 0)\n"
                      "verdict from the samples: unresolved (exit 3); NOT the recorded one: the file was edited, "
                      "or written by a perfengine whose analysis differs from this one\n"),
            std::string::npos)
      << text;
  // These claims are unresolved, not missed: explain never calls them missed.
  EXPECT_NE(text.find("  decided by: min_speedup (margin -16%), min_speedup_ci (margin -7%), min_logic_speedup "
                      "(margin -22%) unresolved (not shown either way)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("median per-round speedup (baseline / candidate wall): 2.50x"), std::string::npos) << text;
  EXPECT_NE(text.find("\n== verdict lines (from the samples) ==\n  work: median speedup "), std::string::npos) << text;
}

TEST(ExplainGolden, FailedWorkloadShowsTheFailureAndNoAnalysis) {
  const std::string text = Explain(LoadResults("failed.json"), "failed.json", {"work"});
  ExpectGolden("explain_failed_work.txt", text);
  EXPECT_NE(text.find("  signal: work: contender 'rewrite' was killed by signal 11 (Segmentation fault) in round 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  none: the workload failed: nothing is compared\n"), std::string::npos) << text;
}

TEST(Explain, TheSameFileGivesTheSameBytes) {
  const std::string first = Explain(LoadResults("pass.json"), "pass.json");
  const std::string second = Explain(LoadResults("pass.json"), "pass.json");
  EXPECT_EQ(first, second);
}

TEST(Explain, WarmUpRoundsAreShownButMarked) {
  const std::string text = Explain(LoadResults("pass.json"), "pass.json", {"work"});
  EXPECT_NE(
      text.find("  round  first     original  rewrite  ratio  CPU original  CPU rewrite  CPU ratio  after start-up"
                "  winner\n"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("      0  original    545 ms   109 ms  0.20x        491 ms      98.1 ms      0.20x           0.21x"
                "  rewrite  warm-up (not analysed)\n"),
      std::string::npos)
      << text;
}

// The start-up workload has no time after start-up: its table has no such column.
TEST(Explain, OnlyStartupAdjustedWorkloadsShowTheirTimeAfterStartUp) {
  const std::string text = Explain(LoadResults("pass.json"), "pass.json", {"startup"});
  EXPECT_NE(text.find("  round  first     original  rewrite  ratio  CPU original  CPU rewrite  CPU ratio  winner\n"),
            std::string::npos)
      << text;
}

TEST(Explain, WorkloadFilterKeepsFileOrder) {
  const std::string text = Explain(LoadResults("pass.json"), "pass.json", {"tiny", "startup"});
  const auto startup = text.find("\n== startup (startup) ==\n");
  const auto tiny = text.find("\n== tiny ==\n");
  ASSERT_NE(startup, std::string::npos);
  ASSERT_NE(tiny, std::string::npos);
  EXPECT_LT(startup, tiny);
  EXPECT_EQ(text.find("\n== work ==\n"), std::string::npos);
}

TEST(Explain, UnknownWorkloadSuggestsTheNearestName) {
  const RunResult r = LoadResults("pass.json");
  try {
    SelectWorkloads(r, {"wrok"}, "pass.json");
    FAIL() << "no error";
  } catch (const spec::UsageError& e) {
    EXPECT_STREQ(e.what(), "--workload 'wrok': no such workload in pass.json (did you mean 'work'?)");
  }
}

// Every analysed workload of every file: the recomputed figures are the stored ones.
TEST(ExplainAgreement, RecomputedFiguresMatchEveryFile) {
  for (const char* file : {"pass.json", "improved.json", "regressed.json", "missed.json", "failed.json"}) {
    const RunResult r = LoadResults(file);
    for (const WorkloadResult& w : r.workloads) {
      const WorkloadDetail d = ComputeDetail(r, w);
      EXPECT_TRUE(d.disagreements.empty()) << file << " " << w.name << ": " << d.disagreements.front();
      if (!w.comparison) continue;
      ASSERT_TRUE(d.analysis) << file << " " << w.name;
      const Comparison& c = *w.comparison;
      EXPECT_EQ(*d.speedup, c.speedup);
      EXPECT_EQ(d.analysis->wins, c.wins);
      EXPECT_EQ(d.analysis->sign_test_p, *c.sign_test_p);
      EXPECT_EQ(d.analysis->wilcoxon_p, *c.wilcoxon_p);
      EXPECT_EQ(d.analysis->speedup_ci.bca->low, c.speedup_ci->low);
      EXPECT_EQ(d.analysis->speedup_ci.bca->high, c.speedup_ci->high);
      EXPECT_EQ(d.analysis->paired_ratio_low, c.paired_ratio_ci->low);
      EXPECT_EQ(d.analysis->paired_ratio_high, c.paired_ratio_ci->high);
      EXPECT_EQ(d.analysis->power->rounds, *c.rounds_to_resolve);
      EXPECT_EQ(d.startup.logic_speedup, c.logic_speedup);
    }
  }
}

TEST(ExplainAgreement, PrintedFiguresAreTheStoredOnes) {
  const RunResult r = LoadResults("missed.json");
  const Comparison& c = *r.workloads[1].comparison;
  const std::string text = Explain(r, "missed.json", {"work"});
  EXPECT_NE(text.find(fmt::format("= {} over the 10 paired rounds", units::FormatRatio(c.speedup))), std::string::npos);
  EXPECT_NE(text.find(fmt::format("    BCa {} to {} ", units::FormatRatio(c.speedup_ci->low),
                                  units::FormatRatio(c.speedup_ci->high))),
            std::string::npos);
  EXPECT_NE(text.find(units::FormatPValue(*c.sign_test_p)), std::string::npos);
  EXPECT_NE(text.find(fmt::format("takes about {} rounds", *c.rounds_to_resolve)), std::string::npos);
}

// Issue 43: explain's comparison with the file listed its figures by hand. Each threshold's
// figure edited in the file, alone, is called out under the threshold table's label.
TEST(ExplainAgreement, EveryThresholdRowsFigureEditedInTheFileIsCalledOut) {
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    SCOPED_TRACE(std::string(row.key));
    RunResult r = LoadResults("pass.json");
    Comparison& c = *r.workloads[1].comparison;
    if (row.point != nullptr) c.*row.point = 9.5;
    if (row.sequence != nullptr) c.*row.sequence = model::Interval{9.5, 9.0, 10.0, 0.95, "edited"};
    const WorkloadDetail d = ComputeDetail(r, r.workloads[1]);
    const bool named = std::any_of(d.disagreements.begin(), d.disagreements.end(), [&](const std::string& line) {
      return line.starts_with(std::string(row.label) + (row.point != nullptr ? ": " : " sequence"));
    });
    EXPECT_TRUE(named) << ::testing::PrintToString(d.disagreements);
  }
}

TEST(ExplainAgreement, AnEditedFileIsCalledOut) {
  RunResult r = LoadResults("pass.json");
  r.workloads[1].comparison->speedup = 9.5;
  r.workloads[1].comparison->wins = 3;
  const WorkloadDetail d = ComputeDetail(r, r.workloads[1]);
  ASSERT_EQ(d.disagreements.size(), 2u);
  EXPECT_EQ(d.disagreements[0].rfind("speedup: the file says 9.5, recomputed ", 0), 0u) << d.disagreements[0];
  EXPECT_EQ(d.disagreements[1], "wins: the file says 3, recomputed 10");
  const std::string text = ExplainText(r, "pass.json", {&r.workloads[1]});
  EXPECT_NE(text.find("  differs: wins: the file says 3, recomputed 10\n"), std::string::npos) << text;
}

TEST(ExplainDetail, SummaryStatisticsComeFromTheMeasuredRuns) {
  const RunResult r = LoadResults("pass.json");
  const WorkloadDetail d = ComputeDetail(r, r.workloads[1]);
  ASSERT_EQ(d.contenders.size(), 2u);
  std::vector<double> original;
  for (const Sample& s : r.workloads[1].samples) {
    if (!s.warmup && s.contender == "original") original.push_back(s.wall_s);
  }
  ASSERT_EQ(original.size(), 10u);
  EXPECT_EQ(d.contenders[0].median_s, stats::Median(original));
  EXPECT_EQ(d.contenders[0].iqr_s, stats::InterquartileRange(original));
  EXPECT_EQ(*d.contenders[0].sd_s, stats::StandardDeviation(original));
  // Round 7 of the original is the planted outlier, 1.5 times its neighbours.
  ASSERT_EQ(d.analysis->baseline_outliers.tukey.severe.size(), 1u);
  EXPECT_EQ(d.paired.rounds[d.analysis->baseline_outliers.tukey.severe[0]], 7);
}

TEST(ExplainMargin, InTheGatesTerms) {
  Check ratio{"w", "min_speedup", "median speedup", 1.5, 2.0, true, false};
  EXPECT_EQ(Margin(ratio), "-25%");
  Check rate{"w", "min_win_rate", "win rate", 1.0, 0.9, true, true};
  EXPECT_EQ(Margin(rate), "+10 points");
  Check lower{"w", "max_rss_ratio", "peak RSS ratio", 0.5, 1.0, false, true};
  EXPECT_EQ(Margin(lower), "+50%");
  Check skipped{"w", "min_logic_speedup", "startup-adjusted speedup", 0, 2.0, true, true, true};
  EXPECT_EQ(Margin(skipped), "");
  // An exact count that grew from 0 to 5: its ratio is unbounded, not "-n/a".
  Check from_zero{"w", "counters.objects", "objects ratio", std::numeric_limits<double>::infinity(), 1.0, false, false};
  EXPECT_EQ(Margin(from_zero), "-unbounded");
}

}  // namespace
}  // namespace pe::explain

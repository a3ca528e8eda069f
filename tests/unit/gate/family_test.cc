#include "engine/gate/family.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string_view>

#include "engine/model/threshold_table.h"

namespace pe::gate {
namespace {

TEST(Family, CountsTheSequentialRowsOfTheThresholdTable) {
  model::Thresholds t;
  EXPECT_EQ(model::SequentialChecks(t), 0);
  t.min_speedup = 1.1;
  t.max_slowdown = 1.01;
  t.max_rss_ratio = 1.2;  // a point check: no interval, not in the family
  t.max_instructions_ratio = 1.01;
  EXPECT_EQ(model::SequentialChecks(t), 2);
  // Every sequence a sequential row reads counts once, whatever is added later: set them all.
  model::Thresholds all;
  std::set<std::string_view> sequences;  // each sequence by the first row that reads it
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    all.*row.bar = 1.0;
    if (row.burden == model::Check::Burden::kPoint) continue;
    for (const model::ThresholdRow& first : model::kThresholdRows) {
      if (first.sequence == row.sequence) {
        sequences.insert(first.key);
        break;
      }
    }
  }
  EXPECT_EQ(model::SequentialChecks(all), static_cast<int>(sequences.size()));
  EXPECT_EQ(sequences.size(), 4u);  // min_speedup and min_speedup_ci read one sequence
}

TEST(Family, RowsReadingOneSequenceAreOneMember) {
  model::Thresholds t;
  t.min_speedup = 1.0;
  t.min_speedup_ci = 1.1;
  EXPECT_EQ(model::SequentialChecks(t), 1);
  t.min_speedup.reset();
  EXPECT_EQ(model::SequentialChecks(t), 1);
}

TEST(Family, CountsNoisyCountersAndTheCandidatesSweepChecks) {
  model::RunResult run;
  run.candidate = "candidate";
  model::WorkloadResult w;
  w.counters = {{"gcs", "runs", false, 1.2}, {"objects", "objects", true, 1.0}, {"other", "x", false, std::nullopt}};
  model::WorkloadResult startup;
  startup.startup = true;
  startup.thresholds.max_slowdown = 1.01;  // never judged
  run.workloads = {startup, w};
  model::SweepResult sweep;
  sweep.min_scaling_efficiency = 0.5;
  sweep.efficiency_threads = 2;
  sweep.efficiencies = {{"candidate", {}, 2, 0.9, std::nullopt},
                        {"candidate", {}, 4, 0.8, std::nullopt},
                        {"baseline", {}, 2, 0.9, std::nullopt}};
  sweep.max_cost_exponent = 1.2;
  sweep.fits = {{"candidate", "scale"}, {"baseline", "scale"}};
  run.sweeps = {sweep};
  EXPECT_EQ(FamilySize(run), 1 + 1 + 1);  // gcs; the candidate at 2 threads; its fit
}

TEST(Family, AServeWorkloadsAfterStartupCheckIsSkippedSoNotAMember) {
  model::RunResult run;
  model::WorkloadResult serve;
  serve.kind = model::WorkloadResult::Kind::kServe;
  serve.thresholds.min_logic_speedup = 1.0;
  serve.thresholds.min_speedup = 1.0;
  run.workloads = {serve};
  EXPECT_EQ(FamilySize(run), 1);
}

TEST(Family, SumsGatedWorkloadsOnly) {
  model::RunResult run;
  model::WorkloadResult a, b, c;
  a.thresholds.max_slowdown = 1.01;
  a.thresholds.min_win_rate = 0.5;
  b.thresholds.max_slowdown = 1.01;
  c.thresholds.max_slowdown = 1.01;
  c.gate = false;  // measured and reported, never gated
  run.workloads = {a, b, c};
  EXPECT_EQ(FamilySize(run), 3);
}

}  // namespace
}  // namespace pe::gate

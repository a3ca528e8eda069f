#include "engine/gate/family.h"

#include <gtest/gtest.h>

#include "engine/model/threshold_table.h"

namespace pe::gate {
namespace {

TEST(Family, CountsTheSequentialRowsOfTheThresholdTable) {
  model::Thresholds t;
  EXPECT_EQ(SequentialChecks(t), 0);
  t.min_speedup = 1.1;
  t.max_slowdown = 1.01;
  t.max_rss_ratio = 1.2;  // a point check: no interval, not in the family
  t.max_instructions_ratio = 1.01;
  EXPECT_EQ(SequentialChecks(t), 2);
  // Every sequential row counts, whatever it is added later: set them all.
  model::Thresholds all;
  int sequential = 0;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    all.*row.bar = 1.0;
    if (row.burden != model::Check::Burden::kPoint) ++sequential;
  }
  EXPECT_EQ(SequentialChecks(all), sequential);
  EXPECT_EQ(sequential, 5);
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

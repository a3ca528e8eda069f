// Analysis with more than two contenders: one comparison per pair, keyed by names, each from
// its own pair's samples (a third contender once carried the other pair's ratios).
#include <gtest/gtest.h>

#include "engine/analysis/analyze.h"
#include "engine/model/pairs.h"

namespace pe::analysis {

using model::Comparison;
using model::RunResult;
using model::Sample;
using model::WorkloadResult;
namespace {

RunResult ThreeContenders(const std::string& compare) {
  RunResult r;
  r.baseline = "gzip";
  r.candidate = "zstd";
  r.settings.compare = compare;
  for (const char* name : {"gzip", "zstd", "lz4"}) r.contenders.push_back({name, "", {name}, {}, "", ""});
  WorkloadResult w;
  w.name = "compress";
  // gzip 1 s, zstd 0.5 s, lz4 0.25 s, each a little slower every round.
  for (int round = 0; round < 8; ++round) {
    int position = 0;
    for (const auto& [name, wall] : {std::pair{"gzip", 1.0}, std::pair{"zstd", 0.5}, std::pair{"lz4", 0.25}}) {
      Sample s;
      s.contender = name;
      s.round = round;
      s.position = position++;
      s.wall_s = wall * (1 + 0.01 * round);
      s.user_s = s.wall_s * 0.9;
      s.sys_s = s.wall_s * 0.05;
      s.max_rss_kib = 1000;
      w.samples.push_back(s);
    }
  }
  r.workloads.push_back(w);
  return r;
}

TEST(AnalyzeContenders, EachContenderAgainstTheBaselineWithItsOwnRatios) {
  RunResult r = ThreeContenders("baseline");
  Analyze(r, {.intervals = false, .cancelled = {}});
  const WorkloadResult& w = r.workloads[0];
  ASSERT_TRUE(w.comparison);
  EXPECT_EQ(w.comparison->baseline, "gzip");
  EXPECT_EQ(w.comparison->candidate, "zstd");
  EXPECT_DOUBLE_EQ(w.comparison->speedup, 2.0);
  ASSERT_EQ(w.other_comparisons.size(), 1u);
  const Comparison& lz4 = w.other_comparisons[0];
  EXPECT_EQ(lz4.baseline, "gzip");
  EXPECT_EQ(lz4.candidate, "lz4");
  EXPECT_DOUBLE_EQ(lz4.speedup, 4.0);
  EXPECT_EQ(lz4.wins, 8);
  EXPECT_DOUBLE_EQ(*lz4.cpu_ratio, 0.25);
  ASSERT_TRUE(lz4.speedup_cs);
  EXPECT_NEAR(lz4.speedup_cs->estimate, 4.0, 1e-9);
  EXPECT_EQ(model::FindComparison(w, "gzip", "lz4"), &w.other_comparisons[0]);
  EXPECT_EQ(model::FindComparison(w, "zstd", "lz4"), nullptr);
}

TEST(AnalyzeContenders, AllPairsAddsThePairsOfCandidates) {
  RunResult r = ThreeContenders("all-pairs");
  Analyze(r, {.intervals = false, .cancelled = {}});
  const WorkloadResult& w = r.workloads[0];
  ASSERT_EQ(w.other_comparisons.size(), 2u);
  const Comparison* pair = model::FindComparison(w, "zstd", "lz4");
  ASSERT_NE(pair, nullptr);
  EXPECT_DOUBLE_EQ(pair->speedup, 2.0);
  EXPECT_EQ(model::ComparedPairs(r),
            (std::vector<std::pair<std::string, std::string>>{{"gzip", "zstd"}, {"gzip", "lz4"}, {"zstd", "lz4"}}));
}

TEST(AnalyzeContenders, TwoContendersKeepOneComparison) {
  RunResult r = ThreeContenders("all-pairs");
  r.contenders.pop_back();
  std::erase_if(r.workloads[0].samples, [](const Sample& s) { return s.contender == "lz4"; });
  Analyze(r, {.intervals = false, .cancelled = {}});
  EXPECT_TRUE(r.workloads[0].comparison);
  EXPECT_TRUE(r.workloads[0].other_comparisons.empty());
  EXPECT_FALSE(model::SeveralCandidates(r));
}

}  // namespace
}  // namespace pe::analysis

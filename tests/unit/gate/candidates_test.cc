// More than two contenders (docs/spec.md): each further candidate is judged against the
// baseline by the same threshold rows as the run's candidate, as ordinary checks naming it.
#include "engine/gate/candidates.h"

#include <gtest/gtest.h>

#include "engine/gate/gate.h"

namespace pe::gate {

using model::Check;
using model::Comparison;
using model::ExitCode;
using model::Interval;
using model::RunResult;
using model::Verdict;
using model::WorkloadResult;
namespace {

Comparison Pair(const std::string& baseline, const std::string& candidate, Interval speedup) {
  Comparison c;
  c.baseline = baseline;
  c.candidate = candidate;
  c.speedup = speedup.estimate;
  c.rounds = 8;
  c.speedup_cs = speedup;
  return c;
}

RunResult ThreeCompressors() {
  RunResult r;
  r.baseline = "gzip";
  r.candidate = "zstd";
  r.contenders = {
      {"gzip", "", {"gzip"}, {}, "", ""}, {"zstd", "", {"zstd"}, {}, "", ""}, {"lz4", "", {"lz4"}, {}, "", ""}};
  WorkloadResult w;
  w.name = "compress";
  w.thresholds.min_speedup = 1.0;
  w.comparison = Pair("gzip", "zstd", {1.8, 1.5, 2.1, 0.95, ""});
  // lz4 is shown slower than gzip; the zstd-lz4 pair (all-pairs) is reported, never gated.
  w.other_comparisons = {Pair("gzip", "lz4", {0.8, 0.7, 0.9, 0.95, ""}),
                         Pair("zstd", "lz4", {0.4, 0.3, 0.5, 0.95, ""})};
  r.workloads.push_back(w);
  return r;
}

TEST(FurtherCandidates, OneViewPerCandidateAgainstTheBaseline) {
  const RunResult r = ThreeCompressors();
  const std::vector<CandidateView> views = FurtherCandidates(r, r.workloads[0]);
  ASSERT_EQ(views.size(), 1u);
  EXPECT_EQ(views[0].contender, "lz4");
  EXPECT_EQ(views[0].workload.name, "compress");
  EXPECT_EQ(views[0].workload.comparison->candidate, "lz4");
  EXPECT_EQ(views[0].workload.thresholds.min_speedup, 1.0);
  WorkloadResult ungated = r.workloads[0];
  ungated.gate = false;
  EXPECT_TRUE(FurtherCandidates(r, ungated).empty());
}

TEST(FurtherCandidates, AThirdContenderShownSlowerFailsTheGateOnItsOwnLine) {
  const Verdict v = Judge(ThreeCompressors());
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_EQ(v.checks[0].contender, "");
  EXPECT_EQ(v.checks[0].state, Check::State::kPass);
  EXPECT_EQ(v.checks[1].contender, "lz4");
  EXPECT_EQ(v.checks[1].threshold, "min_speedup");
  EXPECT_EQ(v.checks[1].state, Check::State::kFail);
  EXPECT_EQ(v.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(v.lines.size(), 1u);
  EXPECT_EQ(v.lines[0],
            "compress (lz4): median speedup 0.80x (95% confidence sequence 0.70x to 0.90x, 8 rounds) is shown below "
            "the required 1.00x (short by 20%)");
}

TEST(FurtherCandidates, EveryCandidateShownFasterPasses) {
  RunResult r = ThreeCompressors();
  r.workloads[0].other_comparisons[0].speedup_cs = Interval{2.5, 2.2, 2.9, 0.95, ""};
  const Verdict v = Judge(r);
  EXPECT_EQ(v.exit, ExitCode::kPass);
  EXPECT_EQ(v.checks.size(), 2u);
}

}  // namespace
}  // namespace pe::gate

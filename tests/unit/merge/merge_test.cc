#include "engine/merge/merge.h"

#include <gtest/gtest.h>

#include <functional>

#include "engine/merge/consistency.h"
#include "engine/run/shard.h"
#include "engine/spec/spec_error.h"

namespace pe::merge {

using model::Comparison;
using model::ContenderSummary;
using model::ExitCode;
using model::Failure;
using model::RunResult;
using model::Sample;
using model::ShardInfo;
using model::WorkloadResult;
namespace {

const std::vector<std::string> kSelection = {"delta", "alpha", "charlie", "bravo"};

// A point check (a deterministic count against its bar), on the counts each contender's summary
// carries and five measured rounds after one warm-up (the default settings). The comparison the
// file stores says every workload passes: merge must not read it.
WorkloadResult Workload(const std::string& name, double instructions_ratio) {
  WorkloadResult w;
  w.name = name;
  w.thresholds.max_instructions_ratio = 1.0;
  for (int round = 0; round < 6; ++round) {
    for (const char* contender : {"b", "c"}) {
      Sample s;
      s.contender = contender;
      s.round = round;
      s.warmup = round == 0;
      s.wall_s = s.user_s = 0.1;
      w.samples.push_back(s);
    }
  }
  ContenderSummary b, c;
  b.contender = "b";
  b.instructions = 1000;
  c.contender = "c";
  c.instructions = static_cast<std::uint64_t>(1000 * instructions_ratio);
  w.summaries = {b, c};
  Comparison stored;
  stored.instructions_ratio = 0.5;
  w.comparison = stored;
  return w;
}

// Shard k of 2 as `run --shard k/2` writes it: startup first, then its share in run order.
ShardFile Shard(int k, const std::string& host) {
  RunResult r;
  r.engine_version = "0.1.0";
  r.spec_path = "s.toml";
  r.spec_digest = "d";
  r.started_at = "2026-12-03T08:0" + std::to_string(k) + ":00Z";
  r.baseline = "b";
  r.candidate = "c";
  r.contenders = {{"b", "", {"b"}, {}, "", ""}, {"c", "", {"c"}, {}, "", ""}};
  r.complete = true;
  r.machine.hostname = host;
  WorkloadResult startup;
  startup.name = "startup";
  startup.startup = true;
  startup.gate = false;
  startup.samples = Workload("startup", 1).samples;
  r.workloads.push_back(startup);
  ShardInfo info;
  info.index = k;
  info.count = 2;
  info.selection = kSelection;
  info.workloads = run::ShardNames(kSelection, {k, 2});
  info.machine = r.machine;
  info.started_at = r.started_at;
  for (const std::string& name : info.workloads) r.workloads.push_back(Workload(name, name == "charlie" ? 1.5 : 0.9));
  r.shards = {info};
  return {"shard" + std::to_string(k) + ".json", r};
}

TEST(MergeTest, WorkloadsComeBackInRunOrderAndTheGateJudgesTheWhole) {
  // Sorted: alpha bravo charlie delta; shard 1 has alpha and charlie, shard 2 bravo and delta.
  const RunResult merged = MergeShards({Shard(2, "h2"), Shard(1, "h1")});
  std::vector<std::string> names;
  for (const WorkloadResult& w : merged.workloads) names.push_back(w.name);
  EXPECT_EQ(names, (std::vector<std::string>{"startup", "delta", "alpha", "charlie", "bravo"}));
  EXPECT_EQ(merged.verdict.exit, ExitCode::kThresholdMissed);
  ASSERT_EQ(merged.verdict.checks.size(), 4u);
  EXPECT_EQ(merged.verdict.checks[2].workload, "charlie");
  EXPECT_FALSE(merged.verdict.checks[2].passed);  // 1.5 from the counts, not the 0.5 the file stores
  EXPECT_EQ(merged.verdict.checks[2].measured, 1.5);
  ASSERT_EQ(merged.shards.size(), 2u);
  EXPECT_EQ(merged.shards[0].machine.hostname, "h1");
  EXPECT_EQ(merged.shards[1].machine.hostname, "h2");
  EXPECT_EQ(merged.started_at, "2026-12-03T08:01:00Z");
  EXPECT_TRUE(merged.complete);
}

TEST(MergeTest, AnotherShardsStartupFailureAndAnIncompleteShardFailTheMerge) {
  ShardFile two = Shard(2, "h2");
  two.result.workloads[0].failures.push_back({Failure::Kind::kSignal, "startup", "c", "was killed by signal 11", ""});
  two.result.complete = false;
  const RunResult merged = MergeShards({Shard(1, "h1"), two});
  EXPECT_EQ(merged.verdict.exit, ExitCode::kRunFailed);
  ASSERT_EQ(merged.failures.size(), 1u);
  EXPECT_EQ(merged.verdict.lines[0], "startup: contender 'c' (shard 2 of 2) was killed by signal 11");
  EXPECT_FALSE(merged.complete);
  EXPECT_TRUE(merged.workloads[0].failures.empty());  // shard 1's startup is the one kept
}

TEST(MergeTest, AShardListingAnotherShareIsRefused) {
  ShardFile two = Shard(2, "h2");
  two.result.shards[0].workloads = {"alpha"};
  try {
    MergeShards({Shard(1, "h1"), two});
    FAIL();
  } catch (const spec::UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "shard2.json: shard 2 of 2 lists workloads [alpha], not its share of the selection");
  }
}

TEST(MergeTest, AcceptsOneShardOfOne) {
  ShardFile only = Shard(1, "h1");
  only.result.shards[0].count = 1;
  only.result.shards[0].workloads = kSelection;
  only.result.workloads.resize(1);
  for (const std::string& name : kSelection) only.result.workloads.push_back(Workload(name, 0.9));
  EXPECT_EQ(MergeShards({only}).verdict.exit, ExitCode::kPass);
}

// Refused shards: the message names the file, the shard and what is wrong.
std::string RefusedWith(const ShardFile& two) {
  try {
    MergeShards({Shard(1, "h1"), two});
  } catch (const spec::UsageError& e) {
    return e.what();
  }
  return "merged";
}

// A count printed with its noun agrees with it: "outside the 1 round", not "1 rounds".
TEST(MergeTest, ASampleOutsideASingleRoundSaysRoundNotRounds) {
  RunResult r = Shard(1, "h1").result;
  r.settings.rounds = 1;
  r.settings.warmup_rounds = 0;
  WorkloadResult& w = r.workloads[0];
  w.samples.resize(2);  // round 0 of each contender
  w.samples[0].warmup = w.samples[1].warmup = false;
  w.samples[1].round = 1;
  EXPECT_EQ(SamplesProblem(r),
            "workload 'startup': 'c' has a sample in round 1, outside the 1 round the settings allow");
}

TEST(MergeTest, AShardMarkedIncompleteWithNoFailureIsRefused) {
  ShardFile two = Shard(2, "h2");
  two.result.complete = false;
  EXPECT_EQ(RefusedWith(two),
            "shard2.json: shard 2 of 2 is incomplete (marked so, with no failure recorded); run it again");
}

TEST(MergeTest, SamplesNoCompleteRunLeavesAreRefused) {
  const std::string prefix = "shard2.json: shard 2 of 2 cannot be merged: workload 'delta': ";
  const auto with = [](const std::function<void(std::vector<Sample>&)>& change) {
    ShardFile two = Shard(2, "h2");
    change(two.result.workloads[1].samples);
    EXPECT_EQ(two.result.workloads[1].name, "delta");
    return two;
  };
  EXPECT_EQ(RefusedWith(with([](auto& s) { s[3].contender = "x"; })),
            prefix + "a sample of 'x', which is not a contender of the run");
  EXPECT_EQ(RefusedWith(with([](auto& s) { s[4].warmup = true; })),
            prefix + "'b' has round 2 marked as a warm-up, but the settings have 1 warm-up round");
  EXPECT_EQ(RefusedWith(with([](auto& s) { s[11].round = 9; })),
            prefix + "'c' has a sample in round 9, outside the 6 rounds the settings allow");
  EXPECT_EQ(RefusedWith(with([](auto& s) { s.erase(s.begin() + 4, s.begin() + 6); })),
            prefix + "'b' has 4 measured rounds, fewer than the 5 the settings say");
  EXPECT_EQ(RefusedWith(with([](auto& s) { s.erase(s.begin() + 5); })),
            prefix + "'c' has no sample in round 2, which 'b' has");
  EXPECT_EQ(RefusedWith(with([](auto& s) {
              s.pop_back();
              s.push_back(s.back());
            })),
            prefix + "'b' has two samples in round 5");
  EXPECT_EQ(RefusedWith(with([](auto& s) {
              Sample rss = s.back();
              rss.rss_only = true;
              rss.round = 6;
              s.push_back(rss);
            })),
            prefix + "'c' has 1 RSS-only run, not the 0 its thresholds say");
}

}  // namespace
}  // namespace pe::merge

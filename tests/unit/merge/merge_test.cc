#include "engine/merge/merge.h"

#include <gtest/gtest.h>

#include "engine/run/shard.h"
#include "engine/spec/spec_error.h"

namespace pe::merge {

using model::Comparison;
using model::ExitCode;
using model::Failure;
using model::RunResult;
using model::ShardInfo;
using model::WorkloadResult;
namespace {

const std::vector<std::string> kSelection = {"delta", "alpha", "charlie", "bravo"};

// A point check (a deterministic count against its bar), so the gate needs no samples.
WorkloadResult Workload(const std::string& name, double instructions_ratio) {
  WorkloadResult w;
  w.name = name;
  w.thresholds.max_instructions_ratio = 1.0;
  Comparison c;
  c.instructions_ratio = instructions_ratio;
  w.comparison = c;
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
  r.complete = true;
  r.machine.hostname = host;
  WorkloadResult startup;
  startup.name = "startup";
  startup.startup = true;
  startup.gate = false;
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
  EXPECT_FALSE(merged.verdict.checks[2].passed);
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

}  // namespace
}  // namespace pe::merge

// The isolation check in the run loop, over the fake process runner: only the parity execution
// of an isolated contender is traced, and what it mapped fails the run naming the files.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/run/executor.h"
#include "engine/run/parity_checker.h"
#include "tests/unit/run/collaborator_harness.h"

namespace pe::run::internal {
namespace {

namespace fs = std::filesystem;
using model::Failure;
using runner::Command;
using runner::Outcome;
using testing::WriteText;

constexpr const char* kIsolationCheckSpec = R"(
[contenders.baseline]
argv = ["true"]
env = { WHO = "baseline" }
isolated = true
own_objects = ["build-base"]

[contenders.candidate]
argv = ["true"]
env = { WHO = "candidate" }
own_objects = ["build-cand"]

[workloads.work]
args = ["work"]
)";

// Every traced execution maps libc and its own build's ext.so; the baseline's maps the
// candidate's too when `leak` is set.
struct IsolationCheckScript {
  bool leak = false;
  Outcome operator()(const Command& cmd) const {
    Outcome o;
    WriteText(cmd.stdout_path, "answer\n");
    if (!cmd.record_maps) return o;
    const std::string who = Who(cmd);
    o.mapped = {{100, "/usr/lib/x86_64-linux-gnu/libc.so.6"},
                {100, fs::absolute(who == "baseline" ? "build-base/ext.so" : "build-cand/ext.so").string()}};
    if (leak && who == "baseline") o.mapped.push_back({100, fs::absolute("build-cand/ext.so").string()});
    return o;
  }
};

TEST(IsolationCheckTest, OnlyTheIsolatedContendersParityExecutionIsTraced) {
  Harness h(kIsolationCheckSpec, IsolationCheckScript{});
  Executor ex = h.MakeExecutor();
  EXPECT_TRUE(ParityChecker(ex).Check(h.workloads_));
  EXPECT_TRUE(h.R("work").failures.empty());
  std::vector<std::pair<std::string, bool>> traced;
  for (const Command& c : h.runner_.calls) traced.emplace_back(Who(c), c.record_maps);
  // The startup workload, then `work`: the baseline (isolated) traced, the candidate not.
  EXPECT_EQ(traced, (std::vector<std::pair<std::string, bool>>{
                        {"baseline", true}, {"candidate", false}, {"baseline", true}, {"candidate", false}}));
  // A timed execution is never traced.
  Outcome outcome;
  ASSERT_TRUE(ex.Execute(h.C("baseline"), h.W("work"), &outcome, nullptr));
  EXPECT_FALSE(h.runner_.calls.back().record_maps);
}

TEST(IsolationCheckTest, AWorkerMappingTheOtherBuildFailsTheRunNamingTheFiles) {
  Harness h(kIsolationCheckSpec, IsolationCheckScript{.leak = true});
  Executor ex = h.MakeExecutor();
  EXPECT_FALSE(ParityChecker(ex).Check(h.workloads_));
  // The startup workload is checked first and fails there.
  const model::WorkloadResult& startup = h.result_.workloads.front();
  ASSERT_EQ(startup.failures.size(), 1u);
  const Failure& f = startup.failures[0];
  EXPECT_EQ(f.kind, Failure::Kind::kIsolation);
  EXPECT_EQ(f.contender, "baseline");
  const std::string cand = fs::absolute("build-cand").lexically_normal().string();
  const std::string base = fs::absolute("build-base").lexically_normal().string();
  EXPECT_EQ(f.detail, "process 100 mapped " + cand + "/ext.so, which is contender 'candidate''s (" + cand +
                          ")\nprocess 100 mapped two copies of ext.so: " + base + "/ext.so and " + cand + "/ext.so");
  EXPECT_TRUE(f.message.starts_with("is not isolated (isolated = true): process 100 mapped " + cand + "/ext.so"))
      << f.message;
}

}  // namespace
}  // namespace pe::run::internal

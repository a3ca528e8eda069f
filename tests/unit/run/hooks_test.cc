// prepare/cleanup hooks around each execution (engine/run/hooks.cc), over the fake runner:
// their order, their placeholders, their absence from the timed figures, and their failures.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/run/executor.h"
#include "engine/run/parity_checker.h"
#include "engine/run/round_runner.h"
#include "tests/unit/run/collaborator_harness.h"

namespace pe::run::internal {
namespace {

namespace fs = std::filesystem;
using model::Failure;
using runner::Command;
using runner::Outcome;
using testing::WriteText;

constexpr const char* kHooksSpec = R"(
[run]
rounds = 2
warmup_rounds = 1

[contenders.baseline]
argv = ["true"]
env = { WHO = "baseline" }
prepare = ["contender-prepare", "{contender}"]

[contenders.candidate]
argv = ["true"]
env = { WHO = "candidate" }
cleanup = ["contender-cleanup", "{contender}"]

[workloads.work]
args = ["{workdir}/in"]
prepare = ["workload-prepare", "{workdir}/in"]
cleanup = ["workload-cleanup", "{workdir}/in"]
)";

std::string Name(const Command& c) { return fs::path(c.argv[0]).filename().string(); }
bool IsHook(const Command& c) {
  return Name(c).find("-prepare") != std::string::npos || Name(c).find("-cleanup") != std::string::npos;
}

// Hooks take 5 s and the contenders 0.2 s and 0.1 s; `failing` names a hook that exits 3.
struct HooksScript {
  std::string failing;
  Outcome operator()(const Command& cmd) const {
    Outcome o;
    if (IsHook(cmd)) {
      o.wall_s = 5;
      if (Name(cmd) == failing) {
        WriteText(cmd.stderr_path, "first line\ncp: cannot stat 'in': No such file or directory\n");
        o.exit_code = 3;
      }
      return o;
    }
    const bool baseline = Who(cmd) == "baseline";
    o.wall_s = baseline ? 0.2 : 0.1;
    o.user_s = o.wall_s;
    WriteText(cmd.stdout_path, "answer\n");
    return o;
  }
};

// What ran, as "program first-argument" ("true" for a contender).
std::vector<std::string> Ran(const std::vector<Command>& calls) {
  std::vector<std::string> out;
  for (const Command& c : calls) out.push_back(IsHook(c) ? Name(c) + " " + c.argv[1] : Who(c));
  return out;
}

TEST(HooksRunTest, PrepareBeforeAndCleanupAfterEachTimedExecutionWithItsPlaceholders) {
  Harness h(kHooksSpec, HooksScript{});
  Executor ex = h.MakeExecutor();
  Outcome outcome;
  ASSERT_TRUE(ex.Execute(h.C("baseline"), h.W("work"), &outcome, nullptr));
  ASSERT_TRUE(ex.Execute(h.C("candidate"), h.W("work"), &outcome, nullptr));
  const std::string in_b = (h.scratch_.path() / "work" / "c0" / "work" / "in").string();
  const std::string in_c = (h.scratch_.path() / "work" / "c1" / "work" / "in").string();
  // The workload's prepare first, then the contender's; cleanup the other way round.
  EXPECT_EQ(Ran(h.runner_.calls),
            (std::vector<std::string>{"workload-prepare " + in_b, "contender-prepare baseline", "baseline",
                                      "workload-cleanup " + in_b, "workload-prepare " + in_c, "candidate",
                                      "contender-cleanup candidate", "workload-cleanup " + in_c}));
  // The contender reads what the workload's prepare was given: one {workdir}.
  EXPECT_EQ(h.runner_.calls[2].argv[1], in_b);
  // Each hook is its own command (own process group in the real runner), with the contender's env.
  EXPECT_EQ(h.runner_.calls[0].env.at("WHO"), "baseline");
  EXPECT_EQ(h.runner_.calls[0].stderr_path, h.scratch_.path() / "work" / "c0" / "prepare.stderr");
  EXPECT_TRUE(h.R("work").failures.empty());
}

TEST(HooksRunTest, RoundsTimeTheContenderAloneNotItsHooks) {
  Harness h(kHooksSpec, HooksScript{});
  Executor ex = h.MakeExecutor();
  RoundRunner rounds(ex, h.workloads_);
  ASSERT_TRUE(rounds.RunRounds());
  const std::vector<model::Sample>& samples = h.R("work").samples;
  ASSERT_EQ(samples.size(), 6u);  // (1 warm-up + 2 rounds) x 2 contenders
  for (const model::Sample& s : samples) EXPECT_DOUBLE_EQ(s.wall_s, s.contender == "baseline" ? 0.2 : 0.1);
  int prepares = 0;
  for (const Command& c : h.runner_.calls) prepares += Name(c) == "workload-prepare";
  EXPECT_EQ(prepares, 6);  // once per execution of `work`; none on the startup workload
}

TEST(HooksRunTest, ParityCleansUpAfterTheOutputWasCompared) {
  Harness h(kHooksSpec, HooksScript{});
  Executor ex = h.MakeExecutor();
  ASSERT_TRUE(ParityChecker(ex).Check(h.workloads_));
  std::vector<std::string> ran = Ran(h.runner_.calls);
  // startup: the contenders' own hooks only (a workload's are its own).
  ASSERT_GE(ran.size(), 4u);
  EXPECT_EQ(
      std::vector<std::string>(ran.begin(), ran.begin() + 4),
      (std::vector<std::string>{"contender-prepare baseline", "baseline", "candidate", "contender-cleanup candidate"}));
  EXPECT_EQ(ran.size(), 4u + 8u);
  EXPECT_TRUE(h.R("work").failures.empty());
}

TEST(HooksRunTest, AFailingPrepareStopsBeforeTheContenderNamingAllOfIt) {
  Harness h(kHooksSpec, HooksScript{.failing = "workload-prepare"});
  Executor ex = h.MakeExecutor();
  Outcome outcome;
  EXPECT_FALSE(ex.Execute(h.C("candidate"), h.W("work"), &outcome, nullptr));
  ASSERT_EQ(h.runner_.calls.size(), 1u);  // the contender never ran
  ASSERT_EQ(h.R("work").failures.size(), 1u);
  const Failure& f = h.R("work").failures[0];
  EXPECT_EQ(f.kind, Failure::Kind::kExit);
  EXPECT_EQ(f.workload, "work");
  EXPECT_EQ(f.contender, "candidate");
  EXPECT_EQ(f.message,
            "prepare command 'workload-prepare {workdir}/in' ([workloads.work] prepare, run before each execution) "
            "exited with status 3 (cp: cannot stat 'in': No such file or directory)");
  EXPECT_EQ(f.detail, "first line\ncp: cannot stat 'in': No such file or directory");
}

TEST(HooksRunTest, AFailingCleanupFailsTheExecutionAndTheOtherCleanupStillRuns) {
  Harness h(kHooksSpec, HooksScript{.failing = "contender-cleanup"});
  Executor ex = h.MakeExecutor();
  Outcome outcome;
  EXPECT_FALSE(ex.Execute(h.C("candidate"), h.W("work"), &outcome, nullptr));
  const std::vector<std::string> ran = Ran(h.runner_.calls);
  ASSERT_EQ(ran.size(), 4u);
  EXPECT_EQ(ran.back().substr(0, 16), "workload-cleanup");
  ASSERT_EQ(h.R("work").failures.size(), 1u);
  EXPECT_EQ(h.R("work").failures[0].message,
            "cleanup command 'contender-cleanup {contender}' ([contenders.candidate] cleanup, run after each "
            "execution) exited with status 3 (cp: cannot stat 'in': No such file or directory)");
}

}  // namespace
}  // namespace pe::run::internal

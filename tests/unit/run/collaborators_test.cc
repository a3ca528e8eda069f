// The run loop's collaborators on their own, over the fake process runner: the executor, the
// parity checker, the round runner, the counts collector and the fixture preparer, each
// passing and failing. experiment_test.cc runs them together through RunExperiment.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/model/threshold_table.h"
#include "engine/run/counts_collector.h"
#include "engine/run/executor.h"
#include "engine/run/fixture_preparer.h"
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

constexpr const char* kSpec = R"(
[run]
rounds = 3
warmup_rounds = 1

[contenders.baseline]
argv = ["true"]
env = { WHO = "baseline" }

[contenders.candidate]
argv = ["true"]
env = { WHO = "candidate" }

[workloads.work]
args = ["work", "{out}", "{seed}"]
)";

// Both contenders print `answer`, the candidate in half the time, unless told otherwise.
struct Script {
  std::string candidate_out = "answer\n";
  int candidate_exit = 0;
  Outcome operator()(const Command& cmd) const {
    const bool baseline = Who(cmd) == "baseline";
    Outcome o;
    o.wall_s = baseline ? 0.2 : 0.1;
    o.user_s = o.wall_s;
    o.max_rss_kib = baseline ? 1000 : 1200;
    WriteText(cmd.stdout_path, baseline ? "answer\n" : candidate_out);
    WriteText(cmd.stderr_path, baseline ? "" : "candidate's complaint\n");
    if (!baseline) o.exit_code = candidate_exit;
    return o;
  }
};

// Executor

TEST(ExecutorTest, BuildsTheCommandFromTheSpecAndRecordsNothingOnSuccess) {
  Harness h(kSpec, Script{});
  Executor ex = h.MakeExecutor();
  Outcome outcome;
  ASSERT_TRUE(ex.Execute(h.C("candidate"), h.W("work"), &outcome, nullptr));
  ASSERT_EQ(h.runner_.calls.size(), 1u);
  const Command& cmd = h.runner_.calls[0];
  const fs::path dir = h.scratch_.path() / "work" / "c1";
  EXPECT_EQ(cmd.argv[1], "work");
  EXPECT_EQ(cmd.argv[2], (dir / "out").string());
  EXPECT_EQ(cmd.argv[3], std::to_string(h.settings_.seed));
  EXPECT_EQ(cmd.stdout_path, dir / "stdout");
  EXPECT_EQ(cmd.env.at("WHO"), "candidate");
  EXPECT_TRUE(h.R("work").failures.empty());
}

// "baseline" and "candidate" differ in length; the paths they are given must not, or an A/A
// pair's argv and environment differ in size (executor.cc, ContenderDirectory).
TEST(ExecutorTest, BothSidesOfAPairGetPathsOfTheSameLength) {
  Harness h(kSpec, Script{});
  Executor ex = h.MakeExecutor();
  Outcome outcome;
  ASSERT_TRUE(ex.Execute(h.C("baseline"), h.W("work"), &outcome, nullptr));
  ASSERT_TRUE(ex.Execute(h.C("candidate"), h.W("work"), &outcome, nullptr));
  ASSERT_EQ(h.runner_.calls.size(), 2u);
  const Command& b = h.runner_.calls[0];
  const Command& c = h.runner_.calls[1];
  ASSERT_EQ(b.argv.size(), c.argv.size());
  for (std::size_t i = 0; i < b.argv.size(); ++i) EXPECT_EQ(b.argv[i].size(), c.argv[i].size()) << i;
  EXPECT_NE(b.argv[2], c.argv[2]);  // each its own {out}
  EXPECT_EQ(b.cwd.string().size(), c.cwd.string().size());
  EXPECT_EQ(b.stdout_path.string().size(), c.stdout_path.string().size());
}

TEST(ExecutorTest, ContenderDirectoriesArePaddedToOneWidth) {
  spec::Spec spec;
  for (int i = 0; i < 11; ++i) spec.contenders.push_back(spec::Contender{.name = "n" + std::string(i, 'x')});
  EXPECT_EQ(ContenderDirectory(spec, spec.contenders[0]), "c00");
  EXPECT_EQ(ContenderDirectory(spec, spec.contenders[10]), "c10");
}

TEST(ExecutorTest, AFailedExecutionIsAFailureWithTheStderrTail) {
  Harness h(kSpec, Script{.candidate_exit = 3});
  Executor ex = h.MakeExecutor();
  Outcome outcome;
  EXPECT_FALSE(ex.Execute(h.C("candidate"), h.W("work"), &outcome, nullptr));
  ASSERT_EQ(h.R("work").failures.size(), 1u);
  const Failure& f = h.R("work").failures[0];
  EXPECT_EQ(f.kind, Failure::Kind::kExit);
  EXPECT_EQ(f.contender, "candidate");
  EXPECT_EQ(f.message, "exited with status 3");
  EXPECT_EQ(f.detail, "candidate's complaint");
}

TEST(ExecutorTest, AParityExecutionGetsAFreshDirectoryThatIsRemovedAfter) {
  Harness h(kSpec, Script{});
  Executor ex = h.MakeExecutor();
  Outcome outcome;
  ExecutionPaths paths;
  ASSERT_TRUE(ex.Execute(h.C("baseline"), h.W("work"), &outcome, &paths));
  EXPECT_EQ(paths.dir.parent_path(), h.scratch_.path());
  EXPECT_TRUE(paths.dir.filename().string().starts_with("parity+")) << paths.dir;
  EXPECT_EQ(ReadText(paths.stdout_path), "answer\n");
  ex.RemoveParityOutputs(paths);
  EXPECT_FALSE(fs::exists(paths.dir));
}

// ParityChecker

TEST(ParityCheckerTest, AgreeingOutputsPassWithTheBaselineRunFirst) {
  Harness h(kSpec, Script{});
  Executor ex = h.MakeExecutor();
  ParityChecker parity(ex);
  ASSERT_EQ(parity.Order().front()->name, "baseline");
  EXPECT_TRUE(parity.Check(h.workloads_));
  std::vector<std::string> who;
  for (const Command& c : h.runner_.calls) who.push_back(Who(c));
  // The startup workload, then `work`; the baseline first in each.
  EXPECT_EQ(who, (std::vector<std::string>{"baseline", "candidate", "baseline", "candidate"}));
  EXPECT_TRUE(h.R("work").failures.empty());
  EXPECT_TRUE(h.result_.failures.empty());
}

TEST(ParityCheckerTest, ADifferentAnswerIsAParityFailureWithTheDifference) {
  Harness h(kSpec, Script{.candidate_out = "another answer\n"});
  Executor ex = h.MakeExecutor();
  EXPECT_FALSE(ParityChecker(ex).Check(h.workloads_));
  ASSERT_EQ(h.R("work").failures.size(), 1u);
  const Failure& f = h.R("work").failures[0];
  EXPECT_EQ(f.kind, Failure::Kind::kParity);
  EXPECT_EQ(f.contender, "candidate");
  EXPECT_EQ(f.message, "output differs from baseline's (parity: exact); no timing is reported over different work");
  EXPECT_NE(f.detail.find("another answer"), std::string::npos) << f.detail;
  // Nothing a contender wrote is left for the next one: no parity directory remains.
  for (const auto& entry : fs::directory_iterator(h.scratch_.path())) {
    EXPECT_FALSE(entry.path().filename().string().starts_with("parity+")) << entry.path();
  }
}

TEST(ParityCheckerTest, EachParityExecutionIsAProgressStepWithoutAnAnnouncement) {
  double now = 0;  // each execution takes 1 s; every line shown (interval 0)
  Harness h(kSpec, [&now](const Command& c) {
    now += 1;
    return Script{}(c);
  });
  std::ostringstream out;
  Progress progress(
      out, ProgressStyle::kLines, [&] { return now; }, 0);
  Executor ex = h.MakeExecutor(&progress);
  ASSERT_TRUE(ParityChecker(ex).Check(h.workloads_));
  EXPECT_EQ(out.str(),
            "perfengine: parity 1/4: startup (baseline), elapsed 0s\n"
            "perfengine: parity 2/4: startup (candidate), elapsed 1s, ETA 3s\n"
            "perfengine: parity 3/4: work (baseline), elapsed 2s, ETA 2s\n"
            "perfengine: parity 4/4: work (candidate), elapsed 3s, ETA 1s\n");
}

// RoundRunner

TEST(RoundRunnerTest, WarmUpsThenRoundsAlternatingWhoGoesFirst) {
  Harness h(kSpec, Script{});
  Executor ex = h.MakeExecutor();
  RoundRunner rounds(ex, h.workloads_);
  ASSERT_TRUE(rounds.RunRounds());
  const std::vector<model::Sample>& samples = h.R("work").samples;
  ASSERT_EQ(samples.size(), 8u);  // (1 warm-up + 3 rounds) x 2 contenders
  for (const model::Sample& s : samples) {
    EXPECT_EQ(s.warmup, s.round == 0);
    const bool baseline_first = s.round % 2 == 0;  // order = "alternate"
    EXPECT_EQ(s.position, (s.contender == "baseline") == baseline_first ? 0 : 1) << s.round;
    EXPECT_DOUBLE_EQ(s.wall_s, s.contender == "baseline" ? 0.2 : 0.1);
  }
  EXPECT_EQ(h.result_.load.size(), 4u);  // the machine's load, one entry per round
}

TEST(RoundRunnerTest, ACrashInARoundStopsTheRunWithTheFailure) {
  Harness h(kSpec, Script{.candidate_exit = 1});
  Executor ex = h.MakeExecutor();
  RoundRunner rounds(ex, h.workloads_);
  EXPECT_FALSE(rounds.RunRounds());
  // The startup workload's candidate fails first, in round 0, after the baseline ran.
  ASSERT_EQ(h.R("startup").failures.size(), 1u);
  // With the hint that names the startup key (docs/spec.md), as every startup failure has.
  EXPECT_TRUE(h.R("startup").failures[0].message.starts_with("exited with status 1 running its startup command"))
      << h.R("startup").failures[0].message;
  EXPECT_EQ(h.runner_.calls.size(), 2u);
}

constexpr const char* kEarlyStopSpec = R"(
[run]
rounds = 7
max_rounds = 30
warmup_rounds = 0

[contenders.baseline]
argv = ["true"]
env = { WHO = "baseline" }

[contenders.candidate]
argv = ["true"]
env = { WHO = "candidate" }

[workloads.work]
args = ["work"]

[thresholds]
min_speedup = 1.5
)";

TEST(RoundRunnerTest, StopsAtTheMinimumOnceEveryCheckIsResolved) {
  // A candidate twice as fast in every round resolves min_speedup = 1.5 at the minimum, 7.
  Harness h(kEarlyStopSpec, Script{});
  Executor ex = h.MakeExecutor();
  RoundRunner rounds(ex, h.workloads_);
  ASSERT_TRUE(rounds.RunRounds());
  EXPECT_EQ(h.R("work").samples.size(), 14u);
  EXPECT_TRUE(rounds.Unresolved().empty());
}

// A miss no round can undo (an exact counter one more per run) beside a claim no round can
// settle (the candidate's rounds swing 2x each way, so the median speed-up's sequence straddles
// 1.0 to the cap): the exit code is 1 whatever the claim shows, so the rounds stop at the minimum.
constexpr const char* kSettledMissSpec = R"(
[run]
rounds = 7
max_rounds = 30
warmup_rounds = 0

[contenders.baseline]
argv = ["true"]
env = { WHO = "baseline" }

[contenders.candidate]
argv = ["true"]
env = { WHO = "candidate" }

[workloads.work]
args = ["work"]

[counters.objects]
unit = "objects"
exact = true

[thresholds]
min_speedup = 1.0

[thresholds.counters]
objects = 1.0
)";

struct SwingingScript {
  std::shared_ptr<int> candidate_runs = std::make_shared<int>(0);
  Outcome operator()(const Command& cmd) const {
    const bool baseline = Who(cmd) == "baseline";
    Outcome o;
    const bool work = std::find(cmd.argv.begin(), cmd.argv.end(), "work") != cmd.argv.end();  // not startup
    o.wall_s = baseline || !work ? 0.2 : ((*candidate_runs)++ % 2 == 0 ? 0.1 : 0.4);
    o.user_s = o.wall_s;
    WriteText(cmd.stdout_path, "answer\n");
    if (cmd.env.count("PERFENGINE_COUNTERS")) {
      WriteText(cmd.env.at("PERFENGINE_COUNTERS"), baseline ? "objects 1000 objects\n" : "objects 1001 objects\n");
    }
    return o;
  }
};

TEST(RoundRunnerTest, AMissNoRoundCanUndoStopsTheRoundsAtTheMinimumAndSaysWhy) {
  Harness h(kSettledMissSpec, SwingingScript{});
  Executor ex = h.MakeExecutor();
  RoundRunner rounds(ex, h.workloads_);
  ASSERT_TRUE(rounds.RunRounds());
  EXPECT_EQ(h.R("work").samples.size(), 14u);  // 7 rounds x 2 contenders, not 30
  ASSERT_EQ(rounds.Unresolved().size(), 1u);   // the claim is still open
  EXPECT_EQ(h.result_.rounds_stopped,
            "rounds stopped after 7 of up to 30, as a miss no round can undo fixes the exit code at 1 whatever the "
            "unresolved checks show (work: objects ratio 1.001x (candidate 1001 objects, baseline 1000 objects) is "
            "above the allowed 1.000x (over by 0.1%)); --keep-measuring measures them to max_rounds");
}

TEST(RoundRunnerTest, KeepMeasuringAddsRoundsToTheCapPastASettledMiss) {
  Harness h(kSettledMissSpec, SwingingScript{});
  Executor ex = h.MakeExecutor();
  RoundRunner rounds(ex, h.workloads_, {.keep_measuring = true});
  ASSERT_TRUE(rounds.RunRounds());
  EXPECT_EQ(h.R("work").samples.size(), 60u);  // 30 rounds x 2 contenders
  EXPECT_EQ(h.result_.rounds_stopped, "");
}

TEST(RoundRunnerTest, AnAcceptedMissFixesNoExitCodeSoTheRoundsGoOn) {
  // --accept-regression turns the miss into 0, or 3 beside the open claim: the claim decides.
  Harness h(kSettledMissSpec, SwingingScript{});
  Executor ex = h.MakeExecutor();
  RoundRunner rounds(ex, h.workloads_, {.misses_accepted = true});
  ASSERT_TRUE(rounds.RunRounds());
  EXPECT_EQ(h.R("work").samples.size(), 60u);
  EXPECT_EQ(h.result_.rounds_stopped, "");
}

// CountsCollector

TEST(CountsCollectorTest, EveryCountedThresholdOfTheTableAsksForItsCount) {
  Harness h(kSpec, Script{});
  const spec::Workload& w = h.W("work");
  int counted = 0;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    model::Thresholds t;
    t.*row.bar = 1.0;
    if (!row.needs_counts) {
      EXPECT_FALSE(WantsCount(h.spec_, w, t, "instructions")) << row.key;
      EXPECT_FALSE(WantsCount(h.spec_, w, t, "allocations")) << row.key;
      continue;
    }
    ++counted;
    EXPECT_TRUE(WantsCount(h.spec_, w, t, row.count)) << row.key;
    EXPECT_FALSE(WantsCount(h.spec_, h.W("startup"), t, row.count)) << row.key;  // never the startup workload
  }
  EXPECT_EQ(counted, 3);  // instructions, own-code instructions (the same count's files), allocations
}

class CountsCollectorWithAllocationsTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("PERFENGINE_ALLOCCOUNT", "/bin/true", 1); }  // a library that exists
  void TearDown() override { ::unsetenv("PERFENGINE_ALLOCCOUNT"); }
  static constexpr const char* kCounted = R"(
[run]
rounds = 7
measure = ["allocations"]

[contenders.baseline]
argv = ["/bin/true"]
env = { WHO = "baseline" }

[contenders.candidate]
argv = ["/bin/true"]
env = { WHO = "candidate" }

[workloads.work]
args = ["work"]
)";
};

TEST_F(CountsCollectorWithAllocationsTest, EachContenderGetsItsCountOnce) {
  Harness h(kCounted, [](const Command& c) {
    WriteText(c.env.at("PERFENGINE_ALLOC_OUT"), Who(c) == "baseline" ? "1 10 0 0 0 10 100\n" : "1 4 0 0 0 4 40\n");
    return Outcome{};
  });
  Executor ex = h.MakeExecutor();
  ASSERT_TRUE(CountsCollector(ex, h.workloads_).Collect());
  const auto& summaries = h.R("work").summaries;
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(summaries[0].contender, "baseline");
  EXPECT_EQ(summaries[0].allocation_calls, 10u);
  EXPECT_EQ(summaries[1].allocation_calls, 4u);
  EXPECT_EQ(summaries[1].allocated_bytes, 40u);
  EXPECT_FALSE(summaries[1].instructions.has_value());
  EXPECT_EQ(h.runner_.calls.size(), 2u);  // the startup workload is never counted
  EXPECT_TRUE(h.R("startup").summaries.empty());
}

// Counting after the rounds is announced and each count is a progress step (issue 42: minutes of
// instruction counting printed nothing). Every line shown: interval 0.
TEST_F(CountsCollectorWithAllocationsTest, CountingIsAnnouncedAndEachCountIsAProgressStep) {
  double now = 0;  // each count takes 60 s; every line shown (interval 0)
  Harness h(kCounted, [&now](const Command& c) {
    now += 60;
    WriteText(c.env.at("PERFENGINE_ALLOC_OUT"), "1 10 0 0 0 10 100\n");
    return Outcome{};
  });
  std::ostringstream out;
  Progress progress(
      out, ProgressStyle::kLines, [&] { return now; }, 0);
  Executor ex = h.MakeExecutor(&progress);
  ASSERT_TRUE(CountsCollector(ex, h.workloads_).Collect());
  EXPECT_EQ(out.str(),
            "perfengine: counting: allocations (2 runs, one per count, contender and workload)\n"
            "perfengine: counting 1/2: work, allocations of baseline, elapsed 0s\n"
            "perfengine: counting 2/2: work, allocations of candidate, elapsed 60s, ETA 60s\n");
}

TEST_F(CountsCollectorWithAllocationsTest, ACountThatFailsIsANoteNotAFigure) {
  Harness h(kCounted, [](const Command&) {
    Outcome o;
    o.exit_code = 2;
    o.error = "exited with status 2";
    return o;
  });
  Executor ex = h.MakeExecutor();
  ASSERT_TRUE(CountsCollector(ex, h.workloads_).Collect());
  const auto& summaries = h.R("work").summaries;
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_FALSE(summaries[0].allocation_calls.has_value());
  EXPECT_EQ(summaries[0].measure_note, "not measured: exited with status 2");
}

// FixturePreparer

TEST(FixturePreparerTest, ADirectoryFixtureIsUsedWhereItIs) {
  measure::ScratchDir dir("pe-run-test-");
  const std::string text = std::string(kSpec) + "fixture = \"" + dir.path().string() + "\"\n";
  Harness h(text, Script{});
  Failure failure;
  ASSERT_EQ(h.fixtures_.Prepare(h.W("work"), &failure), FixturePreparer::Status::kReady) << failure.message;
  EXPECT_EQ(h.fixtures_.DirectoryOf(h.W("work")), dir.path());
  EXPECT_EQ(h.fixtures_.DirectoryOf(h.W("startup")), fs::path());
  EXPECT_FALSE(h.fixtures_.Written(h.W("work")).has_value());  // not generated: not watched
}

TEST(FixturePreparerTest, AGeneratedFixtureIsWatchedForWrites) {
  const std::string text = std::string(kSpec) + "fixture = { generator = \"text_lines\", lines = 10 }\n";
  Harness h(text, Script{});
  Failure failure;
  ASSERT_EQ(h.fixtures_.Prepare(h.W("work"), &failure), FixturePreparer::Status::kReady) << failure.message;
  const fs::path root = h.fixtures_.DirectoryOf(h.W("work"));
  ASSERT_TRUE(fs::is_directory(root)) << root;
  EXPECT_FALSE(h.fixtures_.Written(h.W("work")).has_value());
  WriteText(root / "left-behind", "x");
  const auto written = h.fixtures_.Written(h.W("work"));
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(*written, "wrote into the fixture " + root.string() + ": created 'left-behind'");
}

TEST(FixturePreparerTest, AFixtureThatCannotBeMadeIsAFixtureFailure) {
  const std::string text = std::string(kSpec) + "fixture = { generator = \"text_lines\", lines = 10 }\n";
  Harness h(text, Script{});
  WriteText(h.scratch_.path() / "cache", "a file where the cache directory should be");
  Failure failure;
  ASSERT_EQ(h.fixtures_.Prepare(h.W("work"), &failure), FixturePreparer::Status::kFailed);
  EXPECT_EQ(failure.kind, Failure::Kind::kFixture);
  EXPECT_EQ(failure.workload, "work");
  EXPECT_TRUE(failure.message.starts_with("preparing the fixture failed: ")) << failure.message;
}

// Issue 27: a run's fixtures are made together (side by side, fixture_child_test.cc proves
// that); workloads naming the same fixture get the same directory, others their own.
TEST(FixturePreparerTest, EveryWorkloadsFixtureIsMadeTogether) {
  const std::string text = std::string(kSpec) +
                           "fixture = { generator = \"text_lines\", lines = 10 }\n"
                           "[workloads.same]\nargs = [\"same\"]\n"
                           "fixture = { generator = \"text_lines\", lines = 10 }\n"
                           "[workloads.other]\nargs = [\"other\"]\n"
                           "fixture = { generator = \"text_lines\", lines = 20 }\n";
  Harness h(text, Script{});
  Failure failure;
  std::size_t failed = 99;
  ASSERT_EQ(h.fixtures_.PrepareAll(h.workloads_, &failure, &failed), FixturePreparer::Status::kReady)
      << failure.message;
  EXPECT_EQ(failed, 99u);
  const fs::path work = h.fixtures_.DirectoryOf(h.W("work"));
  const fs::path other = h.fixtures_.DirectoryOf(h.W("other"));
  EXPECT_EQ(h.fixtures_.DirectoryOf(h.W("same")), work);
  EXPECT_NE(work, other);
  EXPECT_EQ(h.fixtures_.DirectoryOf(h.W("startup")), fs::path());
  ASSERT_TRUE(fs::is_regular_file(work / "lines.txt")) << work;
  ASSERT_TRUE(fs::is_regular_file(other / "lines.txt")) << other;
  EXPECT_LT(fs::file_size(work / "lines.txt"), fs::file_size(other / "lines.txt"));
  EXPECT_FALSE(h.fixtures_.Written(h.W("same")).has_value());
}

TEST(FixturePreparerTest, TheFirstWorkloadWhoseFixtureFailedIsNamed) {
  const std::string text = std::string(kSpec) +
                           "fixture = { generator = \"text_lines\", lines = 10 }\n"
                           "[workloads.other]\nargs = [\"other\"]\n"
                           "fixture = { generator = \"text_lines\", lines = 20 }\n";
  Harness h(text, Script{});
  WriteText(h.scratch_.path() / "cache", "a file where the cache directory should be");
  Failure failure;
  std::size_t failed = 99;
  ASSERT_EQ(h.fixtures_.PrepareAll(h.workloads_, &failure, &failed), FixturePreparer::Status::kFailed);
  ASSERT_LT(failed, h.workloads_.size());
  EXPECT_EQ(h.workloads_[failed]->name, "work");
  EXPECT_EQ(failure.workload, "work");
  EXPECT_EQ(failure.kind, Failure::Kind::kFixture);
  EXPECT_TRUE(failure.message.starts_with("preparing the fixture failed: ")) << failure.message;
}

}  // namespace
}  // namespace pe::run::internal

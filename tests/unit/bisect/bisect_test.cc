#include "engine/bisect/bisect.h"

#include <gtest/gtest.h>

#include "engine/spec/spec_error.h"

namespace pe::bisect {

using model::ExitCode;
using model::Failure;
using model::RunResult;
using model::WorkloadResult;
namespace {

RunResult WithVerdict(ExitCode exit) {
  RunResult r;
  r.baseline = "baseline";
  r.candidate = "candidate";
  r.verdict.exit = exit;
  return r;
}

TEST(StepStatusTest, TheGateDecidesGoodAndBad) {
  EXPECT_EQ(StepStatus(WithVerdict(ExitCode::kPass)), 0);
  EXPECT_EQ(StepStatus(WithVerdict(ExitCode::kThresholdMissed)), 1);
  EXPECT_EQ(StepStatus(WithVerdict(ExitCode::kInterrupted)), 128);
  // Unresolved is neither good nor bad: git bisect skips the commit.
  EXPECT_EQ(StepStatus(WithVerdict(ExitCode::kUnresolved)), 125);
}

TEST(StepStatusTest, ACandidateThatCannotBeMeasuredIsSkippedAnythingElseStops) {
  RunResult build = WithVerdict(ExitCode::kRunFailed);
  build.failures.push_back({Failure::Kind::kBuild, "", "candidate", "could not be built: ...", ""});
  EXPECT_EQ(StepStatus(build), 125);

  RunResult crash = WithVerdict(ExitCode::kRunFailed);
  WorkloadResult w;
  w.failures.push_back({Failure::Kind::kSignal, "w", "candidate", "was killed by signal 11", ""});
  w.failures.push_back({Failure::Kind::kParity, "w", "candidate", "output differs", ""});
  crash.workloads.push_back(w);
  EXPECT_EQ(StepStatus(crash), 125);

  RunResult baseline = build;
  baseline.failures.push_back({Failure::Kind::kBuild, "", "baseline", "could not be built: ...", ""});
  EXPECT_EQ(StepStatus(baseline), 128);

  RunResult fixture = WithVerdict(ExitCode::kRunFailed);
  fixture.failures.push_back({Failure::Kind::kFixture, "w", "", "preparing the fixture failed", ""});
  EXPECT_EQ(StepStatus(fixture), 128);
  EXPECT_EQ(StepStatus(WithVerdict(ExitCode::kRunFailed)), 128);  // failed with no failure recorded
}

TEST(AtCommitsTest, PinsBaselineAndCandidateAndRefusesAContenderNotFromGit) {
  spec::Spec spec;
  spec.path = "s.toml";
  spec.baseline = "old";
  spec.candidate = "new";
  spec::Contender old_c, new_c;
  old_c.name = "old";
  old_c.git = "main";
  old_c.repo = "/r";
  new_c.name = "new";
  new_c.git = "HEAD";
  new_c.repo = "/r";
  spec.contenders = {old_c, new_c};
  const spec::Spec at = AtCommits(spec, "1111", "2222");
  EXPECT_EQ(at.contenders[0].git, "1111");
  EXPECT_EQ(at.contenders[1].git, "2222");
  spec.contenders[1].git = "";
  try {
    AtCommits(spec, "1111", "2222");
    FAIL();
  } catch (const spec::UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "bisect: s.toml must build its baseline and its candidate from git (docs/no-regression.md); 'new' has no "
              "git key");
  }
}

}  // namespace
}  // namespace pe::bisect

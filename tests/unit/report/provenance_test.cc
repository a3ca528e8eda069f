// What was compared and what it cost, in every format: each contender's revision and build
// (commit, ref, dirty or clean, build command) and the run's wall time split into its phases
// with the runner-minutes of the verdict (engine/report/provenance.h).
#include "engine/report/provenance.h"

#include <gtest/gtest.h>

#include "engine/report/csv_reporter.h"
#include "engine/report/html_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "engine/report/reporter.h"
#include "engine/report/terminal_reporter.h"
#include "tests/unit/report/sample_result.h"

namespace pe::report {
namespace {

using model::RunResult;

constexpr const char* kMain = "1111111111111111111111111111111111111111";
constexpr const char* kFeature = "abcdef0123456789abcdef0123456789abcdef01";

// The sample run, its two contenders built from git: main cleanly, the feature branch by a
// build that rewrote a tracked file; 4 min 14 s, phases timed.
RunResult GitRun() {
  RunResult r = testing::SampleResult();
  r.contenders[0].git = "main";
  r.contenders[0].commit = kMain;
  r.contenders[0].build = {"make", "-j2"};
  r.contenders[1].git = "feature/fast";
  r.contenders[1].commit = kFeature;
  r.contenders[1].build = {"cargo", "build", "--release"};
  r.contenders[1].dirty = true;
  r.phases = model::PhaseTimes{
      .build_s = 30, .fixtures_s = 12.5, .parity_s = 3.25, .measuring_s = 200, .analysis_s = 8, .total_s = 254};
  return r;
}

TEST(Provenance, TheHeaderNamesTheContendersAndTheirRevisions) {
  const RunResult r = GitRun();
  EXPECT_EQ(ContendersLine(r),
            "bazel-diff (baseline, git main @ 111111111111) against bazel-diff-rs (candidate, git feature/fast @ "
            "abcdef012345, dirty)");
  // A contender named after its role is not named twice ("baseline baseline").
  RunResult plain = testing::SampleResult();
  plain.baseline = plain.contenders[0].name = "baseline";
  plain.candidate = plain.contenders[1].name = "candidate";
  EXPECT_EQ(ContendersLine(plain), "baseline against candidate");
}

TEST(Provenance, RevisionLinesSayCommitRefStateAndBuild) {
  EXPECT_EQ(RevisionLines(GitRun()),
            (std::vector<std::string>{
                "baseline 'bazel-diff': git ref main, commit 1111111111111111111111111111111111111111, clean "
                "worktree, built with `make -j2`",
                "candidate 'bazel-diff-rs': git ref feature/fast, commit abcdef0123456789abcdef0123456789abcdef01, "
                "dirty (the build changed tracked files), built with `cargo build --release`",
            }));
  EXPECT_EQ(RevisionLines(testing::SampleResult()),
            (std::vector<std::string>{
                "baseline 'bazel-diff': not built from git by perfengine (commit unknown); runs `java -jar "
                "bazel-diff.jar`",
                "candidate 'bazel-diff-rs': not built from git by perfengine (commit unknown); runs `bazel-diff-rs`",
            }));
}

TEST(Provenance, ThePhasesLineSplitsTheRunAndPricesTheVerdict) {
  EXPECT_EQ(PhasesLine(GitRun()),
            "run time 4 min 14 s: build 30.0 s, fixtures 12.5 s, parity 3.25 s, measuring 3 min 20 s, analysis "
            "8.00 s, other 250 ms; this verdict cost 4.2 runner-minutes (one runner)");
  EXPECT_EQ(PhasesLine(testing::SampleResult()), "");  // a file from before phases were recorded
  EXPECT_EQ(FormatWallTime(3725), "1 h 02 min");
}

// A short run costs a little, not "0.0" runner-minutes.
TEST(Provenance, AShortRunsRunnerMinutesAreNotRoundedToNothing) {
  EXPECT_EQ(FormatRunnerMinutes(254), "4.2");
  EXPECT_EQ(FormatRunnerMinutes(60), "1.0");
  EXPECT_EQ(FormatRunnerMinutes(25), "0.42");
  EXPECT_EQ(FormatRunnerMinutes(2), "0.033");
  EXPECT_EQ(FormatRunnerMinutes(0.03), "0.001");
}

// Every format names the commits, the ref, the state and the build, and states the run time
// and the runner-minutes.
TEST(Provenance, EveryFormatNamesTheRevisionsAndTheCost) {
  const RunResult r = GitRun();
  for (const Format& f : Formats()) {
    SCOPED_TRACE(std::string(f.name));
    const std::string text = f.reporter->Render(r, {});
    for (const char* needle : {kMain, kFeature, "feature/fast", "--release"}) {
      EXPECT_NE(text.find(needle), std::string::npos) << needle;
    }
    if (f.name == "json") continue;  // the model itself: its own fields (results-format.md)
    if (f.name == "csv") {
      EXPECT_NE(text.find(",true,cargo build --release,254,30,12.5,3.25,200,8,"), std::string::npos) << text;
      EXPECT_NE(text.find(",false,make -j2,254,30,12.5,3.25,200,8,,\n"), std::string::npos) << text;
      continue;
    }
    EXPECT_NE(text.find("cargo build --release"), std::string::npos);
    EXPECT_NE(text.find("dirty"), std::string::npos);
    EXPECT_NE(text.find("run time 4 min 14 s"), std::string::npos);
    EXPECT_NE(text.find("4.2 runner-minutes"), std::string::npos);
    EXPECT_EQ(text.find("baseline bazel-diff, candidate"), std::string::npos);
  }
}

}  // namespace
}  // namespace pe::report

// Progress lines: plain and rate-limited off a terminal, redrawn on one, silent when quiet.
// The clock is injected, so the rate limit is tested without sleeping.
#include "engine/run/progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pe::run {
namespace {

TEST(ProgressStyle, QuietWinsElseTheTerminalDecides) {
  EXPECT_EQ(ChooseProgressStyle(true, true), ProgressStyle::kOff);
  EXPECT_EQ(ChooseProgressStyle(true, false), ProgressStyle::kOff);
  EXPECT_EQ(ChooseProgressStyle(false, true), ProgressStyle::kTerminal);
  EXPECT_EQ(ChooseProgressStyle(false, false), ProgressStyle::kLines);
}

TEST(Progress, LinesAreRateLimitedAndCarryRoundAndEta) {
  double now = 100;
  std::ostringstream out;
  Progress p(
      out, ProgressStyle::kLines, [&] { return now; }, 10);
  p.Note("generating fixture for big (bazel_workspace, 4800 targets); it is cached for later runs");
  now = 104;
  p.BeginRounds(8, 4);  // 2 commands a round, 4 rounds
  p.SetRound(1);
  now = 106;
  p.Step("big");  // 2 s since the note: too soon
  now = 108;
  p.Step("big");
  EXPECT_EQ(out.str(),
            "perfengine: generating fixture for big (bazel_workspace, 4800 targets); it is cached for later runs\n");
  p.SetRound(2);
  now = 114;  // 10 s after the note; 3 of 8 commands took 10 s of rounds
  p.Step("big");
  now = 120;
  p.Step("big");  // 6 s since the last line: too soon
  EXPECT_EQ(out.str(),
            "perfengine: generating fixture for big (bazel_workspace, 4800 targets); it is cached for later runs\n"
            "perfengine: big, round 2/4, elapsed 14s, ETA 17s\n");
}

TEST(Progress, RoundsAddedBeyondTheMinimumSaySo) {
  double now = 0;
  std::ostringstream out;
  Progress p(
      out, ProgressStyle::kLines, [&] { return now; }, 10);
  p.BeginRounds(2, 1);
  p.SetRound(1);
  p.Step("w");
  p.Step("w");
  p.SetRound(2);
  now = 30;
  p.Step("w");
  EXPECT_EQ(out.str(), "perfengine: w, round 2 (added: a check is unresolved), elapsed 30s, ETA 0s\n");
}

TEST(ExpectedAddedSteps, EachOpenWorkloadRunsToItsNeediestCheckCappedAtMaxRounds) {
  // a: two open checks at 10 rounds, needing 14 and 18: 8 more rounds. b: needs 100, capped at
  // 30: 20 more. c: no number of rounds resolves it: to the cap, 20 more. 3 commands a round.
  const std::vector<OpenCheck> open = {{"a", 10, 14}, {"a", 10, 18}, {"b", 10, 100}, {"c", 10, std::nullopt}};
  EXPECT_EQ(ExpectedAddedSteps(open, 30, 3), (8 + 20 + 20) * 3);
  // A figure already reached (the spread moved) still costs the next round.
  EXPECT_EQ(ExpectedAddedSteps({{"a", 12, 9}}, 30, 2), 2);
  EXPECT_EQ(ExpectedAddedSteps({}, 30, 2), 0);
}

TEST(Progress, TheEtaCountsTheRoundsTheOpenChecksAreExpectedToAdd) {
  double now = 0;
  std::ostringstream out;
  Progress p(
      out, ProgressStyle::kLines, [&] { return now; }, 10);
  p.BeginRounds(2, 1);  // 2 commands, 1 round
  p.SetRound(1);
  now = 10;
  p.Step("w");
  now = 20;
  p.Step("w");                                                  // 10 s a command
  p.ExpectMoreSteps(ExpectedAddedSteps({{"w", 1, 4}}, 30, 2));  // 3 more rounds: 6 commands
  p.SetRound(2);
  now = 30;
  p.Step("w");  // 5 left at 10 s each
  EXPECT_EQ(out.str(),
            "perfengine: w, round 1/1, elapsed 10s, ETA 10s\n"
            "perfengine: w, round 1/1, elapsed 20s, ETA 0s\n"
            "perfengine: w, round 2 (added: a check is unresolved), elapsed 30s, ETA 50s\n");
}

TEST(Progress, ParityRunsAreNotCounted) {
  double now = 0;
  std::ostringstream out;
  Progress p(
      out, ProgressStyle::kLines, [&] { return now; }, 10);
  now = 50;
  p.Step("w");  // round 0: the parity run
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, TerminalRedrawsOneLineAndClearsIt) {
  double now = 0;
  std::ostringstream out;
  Progress p(
      out, ProgressStyle::kTerminal, [&] { return now; }, 10);
  p.BeginRounds(2, 1);
  p.SetRound(1);
  now = 1;
  p.Step("w");
  p.Finish();
  EXPECT_EQ(out.str(), "\r\x1b[Kw, round 1/1, elapsed 1s, ETA 1s\r\x1b[K");
}

// A phase outside the rounds (counts, profiles, git builds, parity): announced at once when it
// says what the wait is for, then each step's status as a round's, rate-limited in a CI log,
// with an ETA from the steps done so far (none before one is done).
TEST(Progress, APhaseIsAnnouncedThenEachStepCarriesItsPlaceAndEta) {
  double now = 100;
  std::ostringstream out;
  Progress p(
      out, ProgressStyle::kLines, [&] { return now; }, 10);
  now = 400;
  p.BeginPhase("counting", 4, "instructions (4 runs, one per count, contender and workload)");
  p.StartStep("a, instructions of baseline");  // just announced: too soon for a line
  now = 520;
  p.StartStep("a, instructions of candidate");  // 1 done in 120 s: 3 left
  now = 525;
  p.StartStep("b, instructions of baseline");  // 5 s since the last line
  now = 700;
  p.StartStep("b, instructions of candidate");  // 3 done in 300 s: 1 left
  p.EndPhase();
  EXPECT_EQ(out.str(),
            "perfengine: counting: instructions (4 runs, one per count, contender and workload)\n"
            "perfengine: counting 2/4: a, instructions of candidate, elapsed 420s, ETA 360s\n"
            "perfengine: counting 4/4: b, instructions of candidate, elapsed 600s, ETA 100s\n");
}

TEST(Progress, APhaseOnATerminalRedrawsEachStepAndClearsTheLineAtItsEnd) {
  double now = 0;
  std::ostringstream out;
  Progress p(
      out, ProgressStyle::kTerminal, [&] { return now; }, 10);
  p.BeginPhase("parity", 2);  // no announcement: parity is quick unless the contenders are slow
  p.StartStep("w (baseline)");
  now = 3;
  p.StartStep("w (candidate)");
  p.EndPhase();
  EXPECT_EQ(out.str(),
            "\r\x1b[Kparity 1/2: w (baseline), elapsed 0s"
            "\r\x1b[Kparity 2/2: w (candidate), elapsed 3s, ETA 3s\r\x1b[K");
}

TEST(Progress, QuietPrintsNothing) {
  double now = 0;
  std::ostringstream out;
  Progress p(
      out, ProgressStyle::kOff, [&] { return now; }, 10);
  p.Note("generating fixture");
  p.BeginRounds(1, 1);
  p.SetRound(1);
  now = 100;
  p.Step("w");
  p.Finish();
  p.BeginPhase("counting", 1, "instructions (1 run)");
  p.StartStep("w, instructions of baseline");
  p.EndPhase();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace pe::run

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
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace pe::run

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

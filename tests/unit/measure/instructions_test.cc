// Instruction counts of the regress program. On hosts whose kernel refuses perf counters
// (most containers) these exercise the valgrind path, which is what kAuto falls back to.
#include "engine/measure/instructions.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/measure/callgrind.h"
#include "engine/measure/perf_counter.h"

namespace pe::measure {

using runner::Command;
using runner::MakeSystemProcessRunner;
using runner::ProcessRunner;
namespace {

Command Regress(int records) {
  Command command;
  command.argv = {REGRESS_PROGRAM, std::to_string(records)};
  return command;
}

class InstructionsTest : public ::testing::Test {
 protected:
  std::unique_ptr<ProcessRunner> runner_ = MakeSystemProcessRunner();
};

TEST_F(InstructionsTest, SameBinarySameInputAgreesWithinATenthOfAPercent) {
  std::vector<double> counts;
  for (int run = 0; run < 3; ++run) {
    InstructionCount count = CountInstructions(Regress(100000), *runner_);
    ASSERT_TRUE(count.count.has_value()) << count.note;
    counts.push_back(static_cast<double>(*count.count));
  }
  for (double c : counts) EXPECT_LT(std::abs(c - counts[0]) / counts[0], 0.001) << c;
}

TEST_F(InstructionsTest, TwiceTheWorkCountsAboutTwice) {
  const InstructionSource callgrind = InstructionSource::kCallgrind;
  InstructionCount once = CountInstructions(Regress(400000), *runner_, callgrind);
  InstructionCount twice = CountInstructions(Regress(800000), *runner_, callgrind);
  ASSERT_TRUE(once.count && twice.count) << once.note << " / " << twice.note;
  EXPECT_EQ(once.source, "valgrind callgrind");
  double ratio = static_cast<double>(*twice.count) / static_cast<double>(*once.count);
  // Start-up costs the same in both, so the ratio falls a little short of 2.
  EXPECT_GT(ratio, 1.85);
  EXPECT_LT(ratio, 2.01);
}

TEST_F(InstructionsTest, AutoSaysWhereTheFigureCameFrom) {
  InstructionCount count = CountInstructions(Regress(1000), *runner_);
  ASSERT_TRUE(count.count.has_value()) << count.note;
  std::string refused = PerfEventUnavailableReason();
  if (refused.empty()) {
    EXPECT_EQ(count.source, "perf_event_open");
  } else {
    EXPECT_EQ(count.source, "valgrind callgrind");
    EXPECT_EQ(count.note, "perf_event_open refused (" + refused + "); counted with valgrind");
  }
}

TEST_F(InstructionsTest, PerfEventOnlyCountsOrSaysWhyNot) {
  InstructionCount count = CountInstructions(Regress(1000), *runner_, InstructionSource::kPerfEvent);
  if (PerfEventUnavailableReason().empty()) {
    ASSERT_TRUE(count.count.has_value()) << count.note;
    EXPECT_GT(*count.count, 1000u);
    EXPECT_EQ(count.source, "perf_event_open");
  } else {
    EXPECT_FALSE(count.count.has_value());
    EXPECT_EQ(count.source, "");
    EXPECT_TRUE(count.note.starts_with("not measured: perf_event_open: ")) << count.note;
  }
}

TEST_F(InstructionsTest, FailingCommandHasNoCount) {
  Command command;
  command.argv = {"false"};
  InstructionCount count = CountInstructions(command, *runner_, InstructionSource::kCallgrind);
  EXPECT_FALSE(count.count.has_value());
  EXPECT_EQ(count.note, "not measured: exited with status 1");
}

TEST_F(InstructionsTest, ChildProcessesAreCountedOnce) {
  // `fork 0` forks a child that exits at once: its file must not repeat the parent's costs.
  Command alone;
  alone.argv = {ALLOC_PROBE, "malloc", "0"};
  Command forked;
  forked.argv = {ALLOC_PROBE, "fork", "0"};
  InstructionCount a = CountInstructions(alone, *runner_, InstructionSource::kCallgrind);
  InstructionCount f = CountInstructions(forked, *runner_, InstructionSource::kCallgrind);
  ASSERT_TRUE(a.count && f.count) << a.note << " / " << f.note;
  double ratio = static_cast<double>(*f.count) / static_cast<double>(*a.count);
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 1.5);  // a parent's start-up counted twice would make it ~2
}

TEST(ParseCallgrindTotalTest, ReadsIrFromTotalsOrSummary) {
  EXPECT_EQ(ParseCallgrindTotal("events: Ir\nsummary: 123\ntotals: 456\n"), 456u);
  EXPECT_EQ(ParseCallgrindTotal("events: Ir\nsummary: 123\n"), 123u);
  EXPECT_EQ(ParseCallgrindTotal("events: Dr Ir Dw\ntotals: 7 8 9\n"), 8u);
  EXPECT_EQ(ParseCallgrindTotal("events: Ir\nfn=main\n"), std::nullopt);
}

}  // namespace
}  // namespace pe::measure

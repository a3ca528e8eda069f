// Instruction and allocation counts through the ProcessRunner seam: a fake runner scripts what
// perf_event_open's held child, valgrind and the allocation interposer would have produced, so
// the figures and notes are exact without running anything.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "engine/measure/allocations.h"
#include "engine/measure/instructions.h"
#include "engine/measure/perf_counter.h"
#include "tests/support/fake_process_runner.h"

namespace pe::measure {
namespace {

using runner::Command;
using runner::Outcome;
using Status = Outcome::Status;

constexpr int kNoSuchPid = 0x3fffffff;  // above any pid_max: attaching a counter to it fails

std::string ArgAfter(const Command& command, const std::string& prefix) {
  for (const std::string& arg : command.argv) {
    if (arg.starts_with(prefix)) return arg.substr(prefix.size());
  }
  return "";
}

// Valgrind's part: one callgrind file with `total` instructions, where the command says.
Outcome WriteCallgrindTotal(const Command& command, const std::string& total) {
  std::string file = ArgAfter(command, "--callgrind-out-file=");
  file.replace(file.find("%p"), 2, "4242");
  testing::WriteText(file, "events: Ir\ntotals: " + total + "\n");
  return Outcome{};
}

// perf_event_open's part: the counter cannot attach to the pid the fake gives it.
Outcome AttachFails(const Command&, const std::function<bool(int)>& attach) {
  Outcome outcome;
  if (!attach(kNoSuchPid)) {
    outcome.status = Status::kSpawnFailed;
    outcome.error = "not started: the counter could not be attached";
  }
  return outcome;
}

Command Program() {
  Command command;
  command.argv = {"/bin/true", "--flag"};
  return command;
}

TEST(MeasureThroughFakeRunnerTest, InstructionsFallBackToCallgrindThroughTheRunner) {
  testing::FakeProcessRunner fake([](const Command& c) { return WriteCallgrindTotal(c, "123456"); });
  fake.held_script = AttachFails;
  const InstructionCount count = CountInstructions(Program(), fake);
  ASSERT_TRUE(count.count.has_value()) << count.note;
  EXPECT_EQ(*count.count, 123456u);
  EXPECT_EQ(count.source, kSourceCallgrind);
  // perf_event_open was tried through the runner's held run when the kernel allows counters.
  EXPECT_EQ(fake.held_calls.size(), PerfEventUnavailableReason().empty() ? 1u : 0u);
  EXPECT_TRUE(count.note.starts_with("perf_event_open refused (perf_event_open: ")) << count.note;
  ASSERT_EQ(fake.calls.size(), 1u);
  const std::vector<std::string>& argv = fake.calls[0].argv;
  EXPECT_TRUE(argv[0].ends_with("valgrind")) << argv[0];
  EXPECT_EQ(argv[1], "--tool=callgrind");
  ASSERT_GE(argv.size(), 2u);
  EXPECT_EQ(argv[argv.size() - 2], "/bin/true");
  EXPECT_EQ(argv.back(), "--flag");
}

TEST(MeasureThroughFakeRunnerTest, AFailingCommandHasNoInstructionCount) {
  testing::FakeProcessRunner fake([](const Command&) {
    Outcome outcome;
    outcome.exit_code = 3;
    outcome.error = "exited with status 3";
    return outcome;
  });
  fake.held_script = AttachFails;
  const InstructionCount count = CountInstructions(Program(), fake, InstructionSource::kCallgrind);
  EXPECT_FALSE(count.count.has_value());
  EXPECT_EQ(count.note, "not measured: exited with status 3");
  EXPECT_TRUE(fake.held_calls.empty());
}

TEST(MeasureThroughFakeRunnerTest, PerfEventOnlyGoesThroughTheHeldRun) {
  testing::FakeProcessRunner fake([](const Command&) { return Outcome{}; });
  fake.held_script = AttachFails;
  const InstructionCount count = CountInstructions(Program(), fake, InstructionSource::kPerfEvent);
  EXPECT_FALSE(count.count.has_value());
  EXPECT_TRUE(count.note.starts_with("not measured: perf_event_open: ")) << count.note;
  EXPECT_TRUE(fake.calls.empty());  // never valgrind
}

class AllocationsThroughFakeRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("PERFENGINE_ALLOCCOUNT", ALLOCCOUNT_LIBRARY, 1); }
  void TearDown() override { ::unsetenv("PERFENGINE_ALLOCCOUNT"); }
};

TEST_F(AllocationsThroughFakeRunnerTest, EveryProcessReportIsSummed) {
  testing::FakeProcessRunner fake([](const Command& c) {
    // The interposer's part: one line per process that exited (pid, malloc, calloc, realloc,
    // memalign, free, bytes).
    testing::WriteText(c.env.at("PERFENGINE_ALLOC_OUT"), "100 5 1 2 0 7 4096\n101 1 0 0 0 1 10\n");
    return Outcome{};
  });
  const AllocationCount count = CountAllocations(Program(), fake);
  ASSERT_TRUE(count.calls.has_value()) << count.note;
  EXPECT_EQ(*count.calls, 9u);
  EXPECT_EQ(*count.bytes, 4106u);
  EXPECT_EQ(*count.frees, 8u);
  EXPECT_EQ(count.processes, 2);
  ASSERT_EQ(fake.calls.size(), 1u);
  EXPECT_EQ(fake.calls[0].env.at("LD_PRELOAD"), ALLOCCOUNT_LIBRARY);
  EXPECT_EQ(fake.calls[0].argv, Program().argv);
}

TEST_F(AllocationsThroughFakeRunnerTest, AFailingCommandHasNoAllocationCount) {
  testing::FakeProcessRunner fake([](const Command&) {
    Outcome outcome;
    outcome.status = Status::kSignalled;
    outcome.signal = 9;
    outcome.error = "killed by signal 9";
    return outcome;
  });
  const AllocationCount count = CountAllocations(Program(), fake);
  EXPECT_FALSE(count.calls.has_value());
  EXPECT_EQ(count.note, "not measured: killed by signal 9");
}

}  // namespace
}  // namespace pe::measure

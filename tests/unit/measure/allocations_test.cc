// The interposer against probe programs whose allocations are known exactly.
#include "engine/measure/allocations.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "tests/unit/gitbuild/test_repo.h"

namespace pe::measure {

using runner::Command;
using runner::MakeSystemProcessRunner;
using runner::ProcessRunner;
namespace {

class AllocationsTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("PERFENGINE_ALLOCCOUNT", ALLOCCOUNT_LIBRARY, 1); }
  void TearDown() override { ::unsetenv("PERFENGINE_ALLOCCOUNT"); }

  AllocationCount Count(std::vector<std::string> argv) {
    Command command;
    command.argv = std::move(argv);
    return CountAllocations(command, *runner_);
  }

  std::unique_ptr<ProcessRunner> runner_ = MakeSystemProcessRunner();
};

TEST_F(AllocationsTest, ThousandMallocsCountExactlyThousandMore) {
  AllocationCount none = Count({ALLOC_PROBE, "malloc", "0"});
  AllocationCount thousand = Count({ALLOC_PROBE, "malloc", "1000"});
  ASSERT_TRUE(none.calls && thousand.calls) << none.note << " / " << thousand.note;
  EXPECT_EQ(thousand.processes, 1);
  EXPECT_GE(*thousand.calls, 1000u);
  EXPECT_GE(*thousand.bytes, 64000u);
  EXPECT_EQ(*thousand.calls - *none.calls, 1000u);
  EXPECT_EQ(*thousand.bytes - *none.bytes, 64000u);
  EXPECT_EQ(*thousand.frees - *none.frees, 1000u);
  EXPECT_EQ(thousand.kinds.malloc - none.kinds.malloc, 1000u);
  EXPECT_EQ(thousand.note, "");
}

TEST_F(AllocationsTest, EveryKindIsCounted) {
  AllocationCount none = Count({ALLOC_PROBE, "malloc", "0"});
  AllocationCount kinds = Count({ALLOC_PROBE, "kinds"});
  ASSERT_TRUE(none.calls && kinds.calls) << none.note << " / " << kinds.note;
  EXPECT_EQ(kinds.kinds.calloc - none.kinds.calloc, 1u);
  EXPECT_EQ(kinds.kinds.realloc - none.kinds.realloc, 1u);
  EXPECT_EQ(kinds.kinds.memalign - none.kinds.memalign, 2u);
  EXPECT_EQ(*kinds.bytes - *none.bytes, 80u + 200u + 128u + 256u);
  EXPECT_EQ(*kinds.frees - *none.frees, 3u);
}

TEST_F(AllocationsTest, ForkedChildReportsOnlyItsOwnCalls) {
  AllocationCount alone = Count({ALLOC_PROBE, "malloc", "0"});
  AllocationCount forked = Count({ALLOC_PROBE, "fork", "500"});
  ASSERT_TRUE(alone.calls && forked.calls) << forked.note;
  EXPECT_EQ(forked.processes, 2);
  // The parent does what `malloc 0` does; the child adds its 500 and none of the start-up
  // allocations it inherited from the parent.
  EXPECT_EQ(*forked.calls, *alone.calls + 500u);
}

TEST_F(AllocationsTest, ExecedChildCounts) {
  AllocationCount alone = Count({ALLOC_PROBE, "malloc", "0"});
  AllocationCount spawned = Count({ALLOC_PROBE, "spawn", "300"});
  ASSERT_TRUE(alone.calls && spawned.calls) << spawned.note;
  EXPECT_EQ(spawned.processes, 2);
  EXPECT_EQ(*spawned.calls, 2 * *alone.calls + 300u);
}

TEST_F(AllocationsTest, StaticProgramIsNotMeasurableNotZero) {
  AllocationCount count = Count({STATIC_PROBE});
  EXPECT_FALSE(count.calls.has_value());
  EXPECT_FALSE(count.bytes.has_value());
  EXPECT_FALSE(count.frees.has_value());
  EXPECT_EQ(count.note, "not measurable: statically linked");
}

TEST_F(AllocationsTest, ProgramWithItsOwnMallocIsNotMeasurableNotZero) {
  AllocationCount count = Count({OWN_MALLOC_PROBE});
  EXPECT_FALSE(count.calls.has_value());
  EXPECT_EQ(count.processes, 1);
  EXPECT_EQ(count.note, "not measurable: the program defines its own malloc (an allocator linked into it)");
}

TEST_F(AllocationsTest, FailedCommandGivesNoFigures) {
  AllocationCount count = Count({ALLOC_PROBE, "bogus"});
  EXPECT_FALSE(count.calls.has_value());
  EXPECT_EQ(count.note, "not measured: exited with status 2");
}

TEST_F(AllocationsTest, MissingLibraryIsNamed) {
  ::setenv("PERFENGINE_ALLOCCOUNT", "/nonexistent/libperfengine-alloccount.so", 1);
  AllocationCount count = Count({ALLOC_PROBE, "malloc", "1"});
  EXPECT_FALSE(count.calls.has_value());
  EXPECT_EQ(count.note,
            "not measured: the allocation counter library is missing: "
            "/nonexistent/libperfengine-alloccount.so");
}

TEST_F(AllocationsTest, ShellThatEndsWithUnderscoreExitReports) {
  // dash leaves through _exit(), skipping destructors; the interposer reports there too.
  AllocationCount count = Count({"sh", "-c", std::string(ALLOC_PROBE) + " malloc 7; true"});
  ASSERT_TRUE(count.calls.has_value()) << count.note;
  EXPECT_EQ(count.processes, 2);
}

TEST_F(AllocationsTest, ProgramThatLeavesNobodyToReportIsExplained) {
  // The shell's `exec` replaces it with a static program: nobody is left to report.
  AllocationCount count = Count({"sh", "-c", std::string("exec ") + STATIC_PROBE});
  EXPECT_FALSE(count.calls.has_value());
  EXPECT_EQ(count.processes, 0);
  EXPECT_NE(count.note.find("no process reported its allocations"), std::string::npos) << count.note;
}

TEST_F(AllocationsTest, ExistingPreloadIsKept) {
  testing::ScratchDirectory dir;
  Command command;
  command.argv = {"printenv", "LD_PRELOAD"};
  command.stdout_path = dir.path() / "preload.txt";
  command.env["LD_PRELOAD"] = "libc.so.6";
  AllocationCount count = CountAllocations(command, *runner_);
  ASSERT_TRUE(count.calls.has_value()) << count.note;
  EXPECT_EQ(testing::ReadText(dir.path() / "preload.txt"), std::string(ALLOCCOUNT_LIBRARY) + ":libc.so.6\n");
}

TEST(ParseAllocationReportTest, SumsLinesAndSkipsMalformedOnes) {
  AllocationCount count = ParseAllocationReport(
      "10 5 1 2 3 9 1000\n"
      "11 1 0 0 0 1 64\n"
      "garbage\n"
      "12 1 2 3\n");
  EXPECT_EQ(count.processes, 2);
  EXPECT_EQ(count.calls, 12u);
  EXPECT_EQ(count.bytes, 1064u);
  EXPECT_EQ(count.frees, 10u);
  EXPECT_EQ(count.kinds.malloc, 6u);
  EXPECT_EQ(count.kinds.memalign, 3u);
  EXPECT_EQ(count.note, "2 malformed report line(s) skipped");
}

TEST(ParseAllocationReportTest, OwnMallocLineVoidsTheCount) {
  AllocationCount count = ParseAllocationReport("10 5 1 2 3 9 1000\n11 own-malloc\n");
  EXPECT_FALSE(count.calls.has_value());
  EXPECT_EQ(count.processes, 2);
  EXPECT_EQ(count.note, kNotMeasurableOwnMalloc);
}

TEST(ParseAllocationReportTest, EmptyReportHasNoFigures) {
  AllocationCount count = ParseAllocationReport("");
  EXPECT_EQ(count.processes, 0);
  EXPECT_FALSE(count.calls.has_value());
}

TEST(AllocCountLibraryPathTest, EnvironmentOverrides) {
  ::setenv("PERFENGINE_ALLOCCOUNT", "/opt/x/lib.so", 1);
  EXPECT_EQ(AllocCountLibraryPath(), "/opt/x/lib.so");
  ::unsetenv("PERFENGINE_ALLOCCOUNT");
  // The build puts the library beside every binary in build/bin, this test included.
  EXPECT_EQ(AllocCountLibraryPath(), std::filesystem::path(ALLOCCOUNT_LIBRARY));
}

}  // namespace
}  // namespace pe::measure

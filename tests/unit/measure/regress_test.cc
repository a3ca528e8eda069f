// The no-regression measurements end to end: the regress program committed at three
// revisions of a throwaway repository (base, planted extra work, planted extra allocations),
// each built by PrepareRevision in its own worktree, then counted and profiled.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/gitbuild/git_build.h"
#include "engine/measure/allocations.h"
#include "engine/measure/instructions.h"
#include "engine/measure/profile.h"
#include "engine/measure/where_the_time_went.h"
#include "tests/unit/gitbuild/test_repo.h"

namespace pe::measure {

using runner::Command;
using runner::MakeSystemProcessRunner;
using runner::ProcessRunner;
namespace {

using testing::ScratchDirectory;
using testing::TestRepo;

constexpr int kRecords = 100000;

class RegressTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new ScratchDirectory;
    TestRepo repo(scratch_->path() / "repo");
    const std::string source = testing::ReadText(REGRESS_SOURCE);
    repo.Commit({{"regress.cc", source}}, "base");
    repo.Commit({{"regress.cc", "#define PLANTED_WORK\n" + source}}, "extra work");
    repo.Commit({{"regress.cc", "#define PLANTED_ALLOCS\n" + source}}, "extra allocations");
    std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
    const std::vector<std::string> build = {CXX_COMPILER, "-O1", "-g", "-o", "regress", "regress.cc"};
    const std::filesystem::path cache = scratch_->path() / "cache";
    base_ = new gitbuild::BuiltRevision(gitbuild::PrepareRevision(repo.dir(), "main~2", build, cache, *runner));
    work_ = new gitbuild::BuiltRevision(gitbuild::PrepareRevision(repo.dir(), "main~1", build, cache, *runner));
    allocs_ = new gitbuild::BuiltRevision(gitbuild::PrepareRevision(repo.dir(), "HEAD", build, cache, *runner));
    again_ = new gitbuild::BuiltRevision(gitbuild::PrepareRevision(repo.dir(), "main~2", build, cache, *runner));
  }
  static void TearDownTestSuite() {
    delete base_;
    delete work_;
    delete allocs_;
    delete again_;
    delete scratch_;
  }

  static Command Contender(const gitbuild::BuiltRevision& revision) {
    Command command;
    command.argv = {"./regress", std::to_string(kRecords)};
    command.cwd = revision.worktree;
    return command;
  }

  std::uint64_t Instructions(const gitbuild::BuiltRevision& revision) {
    InstructionCount count = CountInstructions(Contender(revision), *runner_);
    EXPECT_TRUE(count.count.has_value()) << count.note;
    return count.count.value_or(0);
  }

  std::uint64_t Allocations(const gitbuild::BuiltRevision& revision) {
    AllocationCount count = CountAllocations(Contender(revision), *runner_);
    EXPECT_TRUE(count.calls.has_value()) << count.note;
    return count.calls.value_or(0);
  }

  void SetUp() override { ::setenv("PERFENGINE_ALLOCCOUNT", ALLOCCOUNT_LIBRARY, 1); }
  void TearDown() override { ::unsetenv("PERFENGINE_ALLOCCOUNT"); }

  static ScratchDirectory* scratch_;
  static gitbuild::BuiltRevision* base_;
  static gitbuild::BuiltRevision* work_;
  static gitbuild::BuiltRevision* allocs_;
  static gitbuild::BuiltRevision* again_;
  std::unique_ptr<ProcessRunner> runner_ = MakeSystemProcessRunner();
};

ScratchDirectory* RegressTest::scratch_ = nullptr;
gitbuild::BuiltRevision* RegressTest::base_ = nullptr;
gitbuild::BuiltRevision* RegressTest::work_ = nullptr;
gitbuild::BuiltRevision* RegressTest::allocs_ = nullptr;
gitbuild::BuiltRevision* RegressTest::again_ = nullptr;

TEST_F(RegressTest, EachRevisionHasItsOwnWorktreeAndTheRepeatIsReused) {
  EXPECT_NE(base_->worktree, work_->worktree);
  EXPECT_NE(work_->worktree, allocs_->worktree);
  EXPECT_FALSE(base_->reused);
  EXPECT_TRUE(again_->reused);
  EXPECT_EQ(again_->worktree, base_->worktree);
}

TEST_F(RegressTest, PlantedWorkRaisesInstructionsNotAllocations) {
  std::uint64_t base = Instructions(*base_);
  std::uint64_t work = Instructions(*work_);
  EXPECT_GT(static_cast<double>(work) / static_cast<double>(base), 1.2);
  EXPECT_EQ(Allocations(*work_), Allocations(*base_));
}

TEST_F(RegressTest, PlantedAllocationsAddOnePerRecordPlusTheirVector) {
  EXPECT_EQ(Allocations(*allocs_) - Allocations(*base_), kRecords + 1u);
}

TEST_F(RegressTest, SameRevisionAgainstItselfIsUnchanged) {
  std::uint64_t first = Instructions(*base_);
  std::uint64_t second = Instructions(*again_);
  EXPECT_LT(std::abs(static_cast<double>(second) - static_cast<double>(first)) / static_cast<double>(first), 0.001);
  EXPECT_EQ(Allocations(*again_), Allocations(*base_));
}

TEST_F(RegressTest, ProfileNamesTheFunctionThatGrew) {
  ProfileResult base = ProfileCommand(Contender(*base_), *runner_);
  ProfileResult work = ProfileCommand(Contender(*work_), *runner_);
  ASSERT_FALSE(base.functions.empty()) << base.note;
  ASSERT_FALSE(work.functions.empty()) << work.note;
  std::vector<FunctionDelta> grown = WhereTheTimeWent(base.functions, work.functions, 3);
  ASSERT_FALSE(grown.empty());
  EXPECT_TRUE(grown[0].function.starts_with("(anonymous namespace)::ParseRecords")) << FormatWhereTheTimeWent(grown);
  EXPECT_GT(grown[0].share_delta, 0);
  EXPECT_NE(FormatWhereTheTimeWent(grown).find("ParseRecords"), std::string::npos);
}

}  // namespace
}  // namespace pe::measure

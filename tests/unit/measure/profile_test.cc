#include "engine/measure/profile.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "engine/measure/instructions.h"
#include "engine/measure/scratch_dir.h"

namespace pe::measure {

using runner::Command;
using runner::MakeSystemProcessRunner;
using runner::ProcessRunner;
namespace {

TEST(ParseCallgrindAnnotateTest, ReadsTheFunctionTable) {
  const char* text =
      "--------------------------------------------------------------------------------\n"
      "Ir                 \n"
      "--------------------------------------------------------------------------------\n"
      "6,126,884 (100.0%)  PROGRAM TOTALS\n"
      "\n"
      "--------------------------------------------------------------------------------\n"
      "Ir                  file:function\n"
      "--------------------------------------------------------------------------------\n"
      "6,000,006 (97.93%)  f.cc:Work(long) [/tmp/cgt/f]\n"
      "   21,380 ( 0.35%)  ./elf/./elf/dl-tunables.c:__GI___tunables_init [/lib/ld.so]\n"
      "      120 ( 0.00%)  ???:std::vector<int, std::allocator<int> >::push_back(int&&) [/x]\n"
      "       12 ( 0.00%)  /src/a.cc:pe::(anonymous namespace)::Helper()\n"
      "--------------------------------------------------------------------------------\n"
      "-- Auto-annotated source: f.cc\n"
      "        6 ( 0.00%)  int main() {\n";
  std::vector<FunctionCost> functions = ParseCallgrindAnnotate(text);
  ASSERT_EQ(functions.size(), 4u);
  EXPECT_EQ(functions[0].function, "Work(long)");
  EXPECT_EQ(functions[0].cost, 6000006u);
  EXPECT_EQ(functions[1].function, "__GI___tunables_init");
  EXPECT_EQ(functions[2].function, "std::vector<int, std::allocator<int> >::push_back(int&&)");
  EXPECT_EQ(functions[2].cost, 120u);
  EXPECT_EQ(functions[3].function, "pe::(anonymous namespace)::Helper()");
}

TEST(ProfileTest, NamesTheHotFunctionsOfARealProgram) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  Command command;
  command.argv = {REGRESS_PROGRAM, "100000"};
  ProfileResult profile = ProfileCommand(command, *runner);
  ASSERT_FALSE(profile.functions.empty()) << profile.note;
  EXPECT_GT(profile.total, 0u);
  double shares = 0;
  bool parse = false;
  bool index = false;
  for (const FunctionCost& f : profile.functions) {
    shares += f.share;
    parse = parse || f.function.find("ParseRecords") != std::string::npos;
    index = index || f.function.find("BuildIndex") != std::string::npos;
  }
  EXPECT_TRUE(parse);
  EXPECT_TRUE(index);
  EXPECT_NEAR(shares, 1.0, 0.01);
  EXPECT_NE(profile.functions[0].function.find("ParseRecords"), std::string::npos) << profile.functions[0].function;
}

TEST(ProfileTest, AnInstructionCountsCallgrindFilesGiveTheProfileOfAFreshRun) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  Command command;
  command.argv = {REGRESS_PROGRAM, "100000"};
  ScratchDir kept("pe-profile-test-");
  const InstructionCount count = CountInstructions(command, *runner, InstructionSource::kCallgrind, kept.path());
  ASSERT_TRUE(count.count.has_value()) << count.note;
  ASSERT_FALSE(count.callgrind_files.empty());
  for (const auto& file : count.callgrind_files) EXPECT_TRUE(std::filesystem::exists(file)) << file;
  const ProfileResult reused = ProfileCallgrindFiles(count.callgrind_files, *runner);
  const ProfileResult fresh = ProfileCommand(command, *runner);
  ASSERT_FALSE(reused.functions.empty()) << reused.note;
  ASSERT_FALSE(fresh.functions.empty()) << fresh.note;
  // Read from the very files the count summed: the same total, exactly.
  EXPECT_EQ(reused.total, *count.count);
  // A second run of the same program agrees to within a tenth of a percent (the count's own
  // tolerance, InstructionsTest), so it ranks the same function first at the same cost.
  EXPECT_EQ(reused.functions[0].function, fresh.functions[0].function);
  EXPECT_NE(reused.functions[0].function.find("ParseRecords"), std::string::npos) << reused.functions[0].function;
  EXPECT_NEAR(static_cast<double>(reused.functions[0].cost), static_cast<double>(fresh.functions[0].cost),
              0.001 * static_cast<double>(fresh.functions[0].cost));
  EXPECT_NEAR(static_cast<double>(reused.total), static_cast<double>(fresh.total),
              0.001 * static_cast<double>(fresh.total));
}

TEST(ProfileTest, NoCountFilesAreKeptWithoutADirectoryForThem) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  Command command;
  command.argv = {REGRESS_PROGRAM, "1000"};
  const InstructionCount count = CountInstructions(command, *runner, InstructionSource::kCallgrind);
  ASSERT_TRUE(count.count.has_value()) << count.note;
  EXPECT_TRUE(count.callgrind_files.empty());
}

TEST(ProfileTest, FailedRunHasNoProfile) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  Command command;
  command.argv = {"false"};
  ProfileResult profile = ProfileCommand(command, *runner);
  EXPECT_TRUE(profile.functions.empty());
  EXPECT_EQ(profile.note, "not profiled: exited with status 1");
}

}  // namespace
}  // namespace pe::measure

#include "engine/measure/profile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

// A file dumped while frames were still active (a worker's batch, dumped at its markers)
// holds those frames' arcs as `calls=0` lines carrying the whole cost. callgrind_annotate
// --inclusive=no lists such a frame at 100% self; its self cost is 0, and the function that did
// the work comes first.
TEST(ProfileTest, AFrameStillActiveAtTheDumpHasNoSelfCost) {
  std::unique_ptr<ProcessRunner> runner = MakeSystemProcessRunner();
  ScratchDir dir("pe-profile-test-");
  const std::filesystem::path file = dir.path() / "cg.out";
  std::ofstream(file) << "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npositions: line\n"
                         "events: Ir\nsummary: 1000\n\n"
                         "ob=(1) /usr/bin/ruby3.1\nfl=(1) ???\nfn=(1) (below main)\ncfn=(2) vm_loop\n"
                         "calls=0 0\n0 1000\n\n"
                         "fn=(2)\n0 200\ncob=(2) /build/parser.so\ncfi=(2) parser.c\ncfn=(3) parse\n"
                         "calls=5 10\n10 800\n\n"
                         "ob=(2)\nfl=(2)\nfn=(3)\n11 800\n";
  const ProfileResult profile = ProfileCallgrindFiles({file}, *runner);
  ASSERT_FALSE(profile.functions.empty()) << profile.note;
  EXPECT_EQ(profile.total, 1000u);
  EXPECT_EQ(profile.functions[0].function, "parse");
  EXPECT_EQ(profile.functions[0].cost, 800u);
  for (const FunctionCost& f : profile.functions) {
    if (f.function == "(below main)") EXPECT_EQ(f.cost, 0u);
    if (f.function == "vm_loop") EXPECT_EQ(f.cost, 200u);
  }
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

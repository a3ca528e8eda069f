#include "engine/process/program_lookup.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/unit/runner/temp_dir.h"

namespace pe::process {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void MakeFile(const fs::path& path, fs::perms perms) {
  std::ofstream(path) << "#!/bin/true\n";
  fs::permissions(path, perms);
}

TEST(ProgramLookupTest, FindsNameOnPath) {
  TempDir dir;
  MakeFile(dir / "tool", fs::perms::owner_all);
  ResolvedProgram found = ResolveProgram("tool", {}, "/nonexistent:" + dir.path().string());
  EXPECT_EQ(found.error, "");
  EXPECT_EQ(found.path, dir / "tool");
}

TEST(ProgramLookupTest, FirstPathEntryWins) {
  TempDir first, second;
  MakeFile(first / "tool", fs::perms::owner_all);
  MakeFile(second / "tool", fs::perms::owner_all);
  ResolvedProgram found = ResolveProgram("tool", {}, first.path().string() + ":" + second.path().string());
  EXPECT_EQ(found.path, first / "tool");
}

TEST(ProgramLookupTest, SkipsNonExecutableOnPath) {
  TempDir first, second;
  MakeFile(first / "tool", fs::perms::owner_read | fs::perms::owner_write);
  MakeFile(second / "tool", fs::perms::owner_all);
  ResolvedProgram found = ResolveProgram("tool", {}, first.path().string() + ":" + second.path().string());
  EXPECT_EQ(found.path, second / "tool");
}

TEST(ProgramLookupTest, NameNotOnPath) {
  TempDir dir;
  ResolvedProgram found = ResolveProgram("no-such-tool", {}, dir.path().string());
  EXPECT_EQ(found.error, "program not found: no-such-tool");
  EXPECT_TRUE(found.path.empty());
}

TEST(ProgramLookupTest, EmptyPathEntryIsNotTheCurrentDirectory) {
  TempDir dir;
  MakeFile(dir / "tool", fs::perms::owner_all);
  fs::path saved = fs::current_path();
  fs::current_path(dir.path());
  ResolvedProgram found = ResolveProgram("tool", {}, "::");
  fs::current_path(saved);
  EXPECT_EQ(found.error, "program not found: tool");
}

TEST(ProgramLookupTest, MissingPathWithSlash) {
  ResolvedProgram found = ResolveProgram("/nonexistent/tool", {}, "/usr/bin");
  EXPECT_EQ(found.error, "program not found: /nonexistent/tool");
}

TEST(ProgramLookupTest, FileWithoutExecuteBit) {
  TempDir dir;
  MakeFile(dir / "data", fs::perms::owner_read | fs::perms::owner_write);
  std::string name = (dir / "data").string();
  EXPECT_EQ(ResolveProgram(name, {}, "").error, "not executable: " + name);
}

TEST(ProgramLookupTest, DirectoryIsNotExecutable) {
  TempDir dir;
  std::string name = dir.path().string();
  EXPECT_EQ(ResolveProgram(name, {}, "").error, "not executable: " + name);
}

TEST(ProgramLookupTest, RelativePathIsTakenFromTheChildsDirectory) {
  TempDir dir;
  fs::create_directory(dir / "bin");
  MakeFile(dir / "bin" / "tool", fs::perms::owner_all);
  ResolvedProgram found = ResolveProgram("bin/tool", dir.path(), "");
  EXPECT_EQ(found.error, "");
  EXPECT_EQ(found.path, dir / "bin" / "tool");
  EXPECT_EQ(ResolveProgram("./tool", dir.path(), "").error, "program not found: ./tool");
}

}  // namespace
}  // namespace pe::process

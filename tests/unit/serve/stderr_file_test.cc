#include "engine/serve/stderr_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/runner/temp_dir.h"

namespace pe::serve {

using runner::Command;
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

TEST(StderrFileTest, MakesATemporaryFileAndRemovesIt) {
  Command command;
  fs::path made;
  {
    StderrFile file(&command);
    made = command.stderr_path;
    ASSERT_FALSE(made.empty());
    EXPECT_TRUE(fs::exists(made));
    Write(made, "first\nsecond\n");
    EXPECT_EQ(file.Tail(), "first\nsecond");
  }
  EXPECT_FALSE(fs::exists(made));
}

TEST(StderrFileTest, KeepsTheFileTheCommandNames) {
  testing::TempDir dir;
  Command command;
  command.stderr_path = dir / "server.stderr";
  Write(command.stderr_path, "kept");
  {
    StderrFile file(&command);
    EXPECT_EQ(command.stderr_path, dir / "server.stderr");
    EXPECT_EQ(file.Tail(), "kept");
  }
  EXPECT_TRUE(fs::exists(dir / "server.stderr"));
}

TEST(StderrFileTest, TailKeepsTheLastLinesAndBytes) {
  testing::TempDir dir;
  Command command;
  command.stderr_path = dir / "server.stderr";
  Write(command.stderr_path, "1\n2\n3\n4\n5\n\n");
  StderrFile file(&command);
  EXPECT_EQ(file.Tail(2), "4\n5");
  EXPECT_EQ(file.Tail(1), "5");
  EXPECT_EQ(file.Tail(10), "1\n2\n3\n4\n5");
  EXPECT_EQ(file.Tail(10, 5), "4\n5");  // the last 5 bytes are "4\n5\n\n"
}

TEST(StderrFileTest, EmptyOrMissingFileHasNoTail) {
  testing::TempDir dir;
  Command command;
  command.stderr_path = dir / "never-written";
  StderrFile file(&command);
  EXPECT_EQ(file.Tail(), "");
}

}  // namespace
}  // namespace pe::serve

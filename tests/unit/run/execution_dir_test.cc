#include "engine/run/execution_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace pe::run {
namespace {

namespace fs = std::filesystem;

class ExecutionDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    temp_ = fs::temp_directory_path() / ("pe-execution-dir-test-" + std::to_string(::getpid()));
    fs::remove_all(temp_);
    fs::create_directories(temp_);
    dir_ = temp_ / "w" / "c";
  }
  void TearDown() override { fs::remove_all(temp_); }

  static ino_t Inode(const fs::path& path) {
    struct stat info = {};
    return ::lstat(path.c_str(), &info) == 0 ? info.st_ino : 0;
  }
  static std::string Read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // What is in `dir`, one name per line, sorted, with "/" after directories.
  static std::string Listing(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      names.push_back(fs::relative(entry.path(), dir).string() + (entry.is_directory() ? "/" : ""));
    }
    std::sort(names.begin(), names.end());
    std::string text;
    for (const auto& name : names) text += name + "\n";
    return text;
  }

  fs::path temp_, dir_;
};

TEST_F(ExecutionDirTest, MakesTheDirectoryAndAnEmptyWorkDirectory) {
  ResetExecutionDir(dir_);
  EXPECT_EQ(Listing(dir_), "work/\n");
}

TEST_F(ExecutionDirTest, KeepsTheCapturesForTheRunnerToEmpty) {
  ResetExecutionDir(dir_);
  std::ofstream(dir_ / "stdout") << "an answer";
  std::ofstream(dir_ / "stderr");
  const ino_t out = Inode(dir_ / "stdout"), err = Inode(dir_ / "stderr");
  ResetExecutionDir(dir_);
  EXPECT_EQ(Listing(dir_), "stderr\nstdout\nwork/\n");
  EXPECT_EQ(Inode(dir_ / "stdout"), out);
  EXPECT_EQ(Inode(dir_ / "stderr"), err);
}

TEST_F(ExecutionDirTest, RemovesEverythingTheLastExecutionLeft) {
  ResetExecutionDir(dir_);
  std::ofstream(dir_ / "out") << "x";
  fs::create_directories(dir_ / "work" / "a" / "b");
  std::ofstream(dir_ / "work" / "a" / "b" / "f") << "x";
  std::ofstream(dir_ / "work" / ".hidden") << "x";
  ResetExecutionDir(dir_);
  EXPECT_EQ(Listing(dir_), "work/\n");
}

TEST_F(ExecutionDirTest, RemovesACaptureTurnedIntoALinkWithoutTouchingItsTarget) {
  ResetExecutionDir(dir_);
  const fs::path elsewhere = temp_ / "elsewhere";
  std::ofstream{elsewhere};  // empty, so only the kind of link gives it away
  fs::create_symlink(elsewhere, dir_ / "stdout");
  fs::create_hard_link(elsewhere, dir_ / "stderr");
  ResetExecutionDir(dir_);
  EXPECT_EQ(Listing(dir_), "work/\n");
  EXPECT_TRUE(fs::exists(elsewhere));

  std::ofstream(dir_ / "stdout");
  fs::permissions(dir_ / "stdout", fs::perms::owner_read);
  ResetExecutionDir(dir_);
  EXPECT_EQ(Listing(dir_), "work/\n");
}

TEST_F(ExecutionDirTest, ReplacesAWorkDirectoryTurnedIntoASymlinkOrAFile) {
  ResetExecutionDir(dir_);
  const fs::path target = temp_ / "target";
  fs::create_directories(target);
  std::ofstream(target / "keep") << "mine";
  fs::remove(dir_ / "work");
  fs::create_directory_symlink(target, dir_ / "work");
  ResetExecutionDir(dir_);
  EXPECT_EQ(Listing(dir_), "work/\n");
  EXPECT_FALSE(fs::is_symlink(dir_ / "work"));
  EXPECT_EQ(Read(target / "keep"), "mine");

  fs::remove(dir_ / "work");
  std::ofstream(dir_ / "work") << "x";
  ResetExecutionDir(dir_);
  EXPECT_EQ(Listing(dir_), "work/\n");
}

TEST_F(ExecutionDirTest, RemakesADirectoryTheLastExecutionRemoved) {
  ResetExecutionDir(dir_);
  fs::remove_all(dir_);
  ResetExecutionDir(dir_);
  EXPECT_EQ(Listing(dir_), "work/\n");
}

}  // namespace
}  // namespace pe::run

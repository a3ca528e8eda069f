// The one helper every scratch site makes its directory with (engine/measure/scratch_dir.h).
#include "engine/measure/scratch_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <stdexcept>

namespace pe::measure {
namespace {

namespace fs = std::filesystem;

TEST(ScratchDirTest, APrivateDirectoryIsNewOwnerOnlyAndNamedAsMkdtempNamesIt) {
  const ScratchDir parent("pe-scratch-test-");
  const auto a = MakePrivateDirectory(parent.path(), "parity+");
  const auto b = MakePrivateDirectory(parent.path(), "parity+");
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(a->parent_path(), parent.path());
  const std::string name = a->filename().string();
  ASSERT_EQ(name.size(), std::string("parity+").size() + 6);
  EXPECT_TRUE(name.starts_with("parity+"));
  EXPECT_TRUE(std::all_of(name.begin() + 7, name.end(), [](unsigned char c) { return std::isalnum(c) != 0; }));
  struct stat info = {};
  ASSERT_EQ(::lstat(a->c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  EXPECT_EQ(info.st_uid, ::geteuid());
}

TEST(ScratchDirTest, AMissingParentIsNoDirectoryWithErrnoSaid) {
  errno = 0;
  EXPECT_FALSE(MakePrivateDirectory("/nonexistent/perfengine", "x-").has_value());
  EXPECT_EQ(errno, ENOENT);
  try {
    const ScratchDir dir("/nonexistent/perfengine", "x-", "cannot create a scratch directory");
    FAIL() << "made " << dir.path();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot create a scratch directory");
  }
}

TEST(ScratchDirTest, EverythingInItIsRemovedWithIt) {
  const ScratchDir parent("pe-scratch-test-");
  fs::path made;
  {
    const ScratchDir dir(parent.path(), "validate-", "unused");
    made = dir.path();
    fs::create_directories(made / "a" / "b");
    EXPECT_TRUE(fs::is_directory(made / "a" / "b"));
  }
  EXPECT_FALSE(fs::exists(made));
}

}  // namespace
}  // namespace pe::measure

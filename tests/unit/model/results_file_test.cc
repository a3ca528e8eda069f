#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/model/atomic_file.h"
#include "engine/model/json.h"
#include "tests/unit/model/expect_same.h"
#include "tests/unit/model/full_result.h"

namespace pe {
namespace {

namespace fs = std::filesystem;

class ResultsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "pe_model_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  static std::string Read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
  }

  static std::string ErrorFrom(auto&& action) {
    try {
      action();
    } catch (const std::runtime_error& error) {
      return error.what();
    }
    return "(no error)";
  }

  fs::path dir_;
};

TEST_F(ResultsFileTest, WritesTheContentAndLeavesNoTemporaryFile) {
  WriteFileAtomically(dir_ / "results.json", "hello\n");
  EXPECT_EQ(Read(dir_ / "results.json"), "hello\n");
  EXPECT_EQ(Entries(), std::vector<std::string>{"results.json"});
}

TEST_F(ResultsFileTest, ReplacesAnExistingFileAndIsReadableByOthers) {
  WriteFileAtomically(dir_ / "results.json", "a much longer first version\n");
  WriteFileAtomically(dir_ / "results.json", "second\n");
  EXPECT_EQ(Read(dir_ / "results.json"), "second\n");
  EXPECT_EQ(fs::status(dir_ / "results.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  EXPECT_EQ(Entries(), std::vector<std::string>{"results.json"});
}

TEST_F(ResultsFileTest, MissingDirectoryIsAnErrorNamingIt) {
  fs::path target = dir_ / "missing" / "results.json";
  EXPECT_EQ(ErrorFrom([&] { WriteFileAtomically(target, "x"); }),
            target.string() + ": cannot create a temporary file in " +
                (dir_ / "missing").string() + ": No such file or directory");
  EXPECT_TRUE(Entries().empty());
}

TEST_F(ResultsFileTest, FailedRenameRemovesTheTemporaryFile) {
  fs::create_directories(dir_ / "results.json" / "occupied");
  EXPECT_EQ(ErrorFrom([&] { WriteFileAtomically(dir_ / "results.json", "x"); }),
            (dir_ / "results.json").string() + ": rename failed: Is a directory");
  EXPECT_EQ(Entries(), std::vector<std::string>{"results.json"});
}

// A write cut short (here by a file-size limit, as a full disk would) must leave the old
// file whole and no temporary file behind. Run in a child so the limit stays there.
TEST_F(ResultsFileTest, AFailedWriteNeverLeavesAPartialFile) {
  fs::path target = dir_ / "results.json";
  WriteFileAtomically(target, "old\n");
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // so write() fails with EFBIG instead of killing us
    struct rlimit limit = {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      WriteFileAtomically(target, std::string(100000, 'n'));
    } catch (const std::runtime_error& error) {
      bool named = std::string(error.what()) == target.string() + ": write failed: File too large";
      ::_exit(named ? 0 : 2);
    }
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no error was raised, 2: the message was wrong";
  EXPECT_EQ(Read(target), "old\n");
  EXPECT_EQ(Entries(), std::vector<std::string>{"results.json"});
}

TEST_F(ResultsFileTest, ResultsFileRoundTrips) {
  RunResult original = testing::FullResult();
  WriteFileAtomically(dir_ / "results.json", ToJsonText(original));
  testing::Same(original, ReadResultsFile(dir_ / "results.json"));
}

TEST_F(ResultsFileTest, ReadErrorsNameTheFile) {
  fs::path path = dir_ / "results.json";
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(path); }),
            path.string() + ": cannot read: No such file or directory");

  WriteFileAtomically(path, "{\"format\": }");
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(path); }),
            path.string() +
                ": not valid JSON: parse error at line 1, column 12: syntax error while parsing "
                "value - unexpected '}'; expected '[', '{', or a literal");

  WriteFileAtomically(path, "{\"format\": \"perfengine-results/1\"}");
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(path); }),
            path.string() + ": missing field \"engine_version\"");
}

}  // namespace
}  // namespace pe

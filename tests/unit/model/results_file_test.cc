#include <fcntl.h>
#include <gtest/gtest.h>
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
#include <tuple>
#include <vector>

#include "engine/model/atomic_file.h"
#include "engine/model/json.h"
#include "tests/unit/model/expect_same.h"
#include "tests/unit/model/full_result.h"

namespace pe::model {
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
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  EXPECT_EQ(Entries(), std::vector<std::string>{"results.json"});
}

TEST_F(ResultsFileTest, MissingDirectoryIsAnErrorNamingIt) {
  fs::path target = dir_ / "missing" / "results.json";
  EXPECT_EQ(ErrorFrom([&] { WriteFileAtomically(target, "x"); }),
            target.string() + ": cannot create a temporary file in " + (dir_ / "missing").string() +
                ": No such file or directory");
  EXPECT_TRUE(Entries().empty());
}

TEST_F(ResultsFileTest, ADirectoryIsRefusedAndLeftAlone) {
  fs::create_directories(dir_ / "results.json" / "occupied");
  const std::string expected = (dir_ / "results.json").string() + ": is a directory; give a file path";
  EXPECT_EQ(ErrorFrom([&] { CheckWritable(dir_ / "results.json"); }), expected);
  EXPECT_EQ(ErrorFrom([&] { WriteFileAtomically(dir_ / "results.json", "x"); }), expected);
  EXPECT_EQ(Entries(), std::vector<std::string>{"results.json"});
  EXPECT_TRUE(fs::exists(dir_ / "results.json" / "occupied"));
}

// A symlink is never replaced by a regular file: its target gets the content.
TEST_F(ResultsFileTest, ASymlinkIsWrittenThroughAndKept) {
  fs::create_directories(dir_ / "real");
  fs::create_symlink("real/results.json", dir_ / "link.json");  // dangling until written
  WriteFileAtomically(dir_ / "link.json", "first\n");
  WriteFileAtomically(dir_ / "link.json", "second\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link.json")));
  EXPECT_EQ(Read(dir_ / "real" / "results.json"), "second\n");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"link.json", "real"}));
}

// As root, `--json /dev/null` once replaced /dev/null with a regular file.
TEST_F(ResultsFileTest, ACharacterDeviceIsWrittenThroughNotReplaced) {
  CheckWritable("/dev/null");
  WriteFileAtomically("/dev/null", "discarded\n");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(ErrorFrom([&] { WriteFileAtomically("/dev/full", "x"); }),
            "/dev/full: write failed: No space left on device");
}

TEST_F(ResultsFileTest, AFifoIsWrittenThroughOrRefusedWhenNobodyReads) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(ErrorFrom([&] { WriteFileAtomically(fifo, "x"); }),
            fifo.string() + ": nothing is reading the FIFO: No such device or address");
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  WriteFileAtomically(fifo, "through\n");
  char buffer[32] = {};
  EXPECT_EQ(::read(reader, buffer, sizeof buffer), 8);
  EXPECT_EQ(std::string(buffer), "through\n");
  ::close(reader);
  EXPECT_EQ(Entries(), std::vector<std::string>{"pipe"});
}

TEST_F(ResultsFileTest, CheckWritableNamesAMissingDirectoryAndLeavesNothing) {
  const fs::path target = dir_ / "missing" / "results.json";
  EXPECT_EQ(ErrorFrom([&] { CheckWritable(target); }), target.string() + ": cannot create a file in " +
                                                           (dir_ / "missing").string() + ": No such file or directory");
  CheckWritable(dir_ / "results.json");
  EXPECT_TRUE(Entries().empty());
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
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(path); }), path.string() + ": cannot read: No such file or directory");

  WriteFileAtomically(path, "{\"format\": }");
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(path); }),
            path.string() +
                ": not valid JSON: parse error at line 1, column 12: syntax error while parsing "
                "value - unexpected '}'; expected '[', '{', or a literal");

  WriteFileAtomically(path, "{\"format\": \"perfengine-results/1\"}");
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(path); }), path.string() + ": missing field \"engine_version\"");
}

// explain and compare once read /dev/zero until memory ran out and blocked on a FIFO.
TEST_F(ResultsFileTest, DevicesDirectoriesAndEmptyFifosAreClearErrors) {
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile("/dev/zero"); }),
            "/dev/zero: is a character device, not a results file (write one with perfengine run --json)");
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(dir_); }),
            dir_.string() + ": is a directory, not a results file (write one with perfengine run --json)");
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(fifo); }), fifo.string() + ": empty, not a results file");
}

TEST_F(ResultsFileTest, AHugeNumberIsAShortParseErrorNotALibraryException) {
  const fs::path path = dir_ / "results.json";
  WriteFileAtomically(path, "{\"format\": 1" + std::string(400, '7') + "}");
  const std::string error = ErrorFrom([&] { ReadResultsFile(path); });
  EXPECT_EQ(error.substr(0, path.string().size() + 50),
            path.string() + ": not valid JSON: number overflow parsing '1777777")
      << error;
  EXPECT_LT(error.size(), path.string().size() + 300) << error;  // 240 characters of the message, then "..."
  EXPECT_EQ(error.find("[json.exception"), std::string::npos) << error;
}

TEST_F(ResultsFileTest, AZeroNegativeOrNaNTimeNamesTheFileAndTheSample) {
  const fs::path path = dir_ / "results.json";
  const nlohmann::json good = ToJson(testing::FullResult());
  const std::string sample = ": workload 'large_graph', sample 1 (contender 'bazel-diff-rs', round 3): ";
  for (const auto& [field, value, expected] :
       {std::tuple{"wall_s", nlohmann::json(0.0),
                   "wall_s is 0; a measured time must be a finite number greater than 0"},
        std::tuple{"wall_s", nlohmann::json(-1.5),
                   "wall_s is -1.5; a measured time must be a finite number greater than 0"},
        std::tuple{"wall_s", nlohmann::json("NaN"),
                   "wall_s is nan; a measured time must be a finite number greater than 0"},
        std::tuple{"sys_s", nlohmann::json(-0.25),
                   "sys_s is -0.25; a CPU time must be a finite number of at least 0"}}) {
    nlohmann::json bad = good;
    bad["workloads"][0]["samples"][1][field] = value;
    WriteFileAtomically(path, bad.dump());
    EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(path); }), path.string() + sample + expected);
  }
}

// `report` rendered a file with `rounds = -5`. Settings no spec could ask for (engine/model/
// limits.h) name the file and the field; so does a machine with fewer than no cores.
TEST_F(ResultsFileTest, ImpossibleSettingsNameTheFileAndTheField) {
  const fs::path path = dir_ / "results.json";
  const nlohmann::json good = ToJson(testing::FullResult());
  for (const auto& [object, field, value, expected] : {
           std::tuple{"settings", "rounds", nlohmann::json(-5),
                      "field \"settings.rounds\" must be an integer from 1 to 100000, not -5"},
           std::tuple{"settings", "rounds", nlohmann::json(0),
                      "field \"settings.rounds\" must be an integer from 1 to 100000, not 0"},
           std::tuple{"settings", "rounds", nlohmann::json(2000000000),
                      "field \"settings.rounds\" must be an integer from 1 to 100000, not 2000000000"},
           std::tuple{"settings", "warmup_rounds", nlohmann::json(-1),
                      "field \"settings.warmup_rounds\" must be an integer from 0 to 10000, not -1"},
           std::tuple{"settings", "max_rounds", nlohmann::json(-3),
                      "field \"settings.max_rounds\" must be an integer from 0 to 100000, not -3"},
           std::tuple{"settings", "bootstrap_resamples", nlohmann::json(2147483647),
                      "field \"settings.bootstrap_resamples\" must be an integer from 100 to 1000000, not 2147483647"},
           std::tuple{"settings", "family_checks", nlohmann::json(-2),
                      "field \"settings.family_checks\" must be an integer from 0 to 2147483647, not -2"},
           std::tuple{"settings", "scale", nlohmann::json(-1),
                      "field \"settings.scale\" must be a number above 0 and at most 1000, not -1"},
           std::tuple{"settings", "timeout_s", nlohmann::json("NaN"),
                      "field \"settings.timeout_s\" must be a number from 0 to 604800, not nan"},
           std::tuple{"settings", "confidence", nlohmann::json(1.5),
                      "field \"settings.confidence\" must be a number from 0.5 to 0.9999, not 1.5"},
           std::tuple{"settings", "check_confidence", nlohmann::json(-0.1),
                      "field \"settings.check_confidence\" must be 0 (not recorded) or a number above 0 and below "
                      "1, not -0.1"},
           std::tuple{"machine", "cores", nlohmann::json(-4), "field \"machine.cores\" must be at least 0, not -4"},
       }) {
    nlohmann::json bad = good;
    bad[object][field] = value;
    WriteFileAtomically(path, bad.dump());
    EXPECT_EQ(ErrorFrom([&] { ReadResultsFile(path); }), path.string() + ": " + expected);
  }
}

}  // namespace
}  // namespace pe::model

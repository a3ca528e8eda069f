// The counters file a contender writes (docs/counters.md): every line it may hold, and the
// exact error for each kind of bad one.
#include "engine/run/counters_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace pe::run {
namespace {

const std::vector<model::Counter> kDeclared = {{"ruby_objects", "objects", true, 1.0},
                                               {"cache_misses", "misses", false, std::nullopt}};

std::string Error(std::string_view text) {
  std::vector<model::CounterValue> out;
  return ParseCounterLines(text, kDeclared, out).value_or("(no error)");
}

TEST(CountersFile, ReadsEveryDeclaredCounterInTheOrderDeclared) {
  std::vector<model::CounterValue> out;
  EXPECT_EQ(ParseCounterLines("\ncache_misses\t2.5e3 misses\r\n  ruby_objects 1413917 objects\n\n", kDeclared, out),
            std::nullopt);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "ruby_objects");
  EXPECT_EQ(out[0].value, 1413917);
  EXPECT_EQ(out[1].name, "cache_misses");
  EXPECT_EQ(out[1].value, 2500);
  // Without a final newline, and zero is a value like any other.
  EXPECT_EQ(ParseCounterLines("ruby_objects 0 objects\ncache_misses 1 misses", kDeclared, out), std::nullopt);
  EXPECT_EQ(out[0].value, 0);
}

TEST(CountersFile, EachBadLineIsNamedWithItsNumberAndText) {
  EXPECT_EQ(Error("ruby_objects 12x objects\n"), "line 1 'ruby_objects 12x objects': '12x' is not a number");
  EXPECT_EQ(Error("ruby_objects 1 objects\n\nruby_objects\n"),
            "line 3 'ruby_objects': expected three fields, 'name value unit'");
  EXPECT_EQ(Error("ruby_object 1 objects\n"),
            "line 1 'ruby_object 1 objects': counter 'ruby_object' is not declared (the spec declares: ruby_objects, "
            "cache_misses)");
  EXPECT_EQ(Error("ruby_objects 1 objects\nruby_objects 2 objects\n"),
            "line 2 'ruby_objects 2 objects': counter 'ruby_objects' is reported twice (first on line 1)");
  EXPECT_EQ(Error("ruby_objects 5 bytes\n"),
            "line 1 'ruby_objects 5 bytes': unit 'bytes' is not the declared unit 'objects' of counter 'ruby_objects'");
  EXPECT_EQ(Error("ruby_objects -1 objects\n"),
            "line 1 'ruby_objects -1 objects': '-1' must be a finite number at least 0");
  EXPECT_EQ(Error("ruby_objects inf objects\n"),
            "line 1 'ruby_objects inf objects': 'inf' must be a finite number at least 0");
  EXPECT_EQ(Error("ruby_objects 1 objects\n"),
            "no line for counter 'cache_misses' (expected 'cache_misses VALUE misses')");
  EXPECT_EQ(Error(""), "no line for counter 'ruby_objects' (expected 'ruby_objects VALUE objects')");
  // A control character is shown as '?', in the line and in the field, and a long line is cut.
  EXPECT_EQ(Error(std::string("ruby_objects 1\x01 objects")), "line 1 'ruby_objects 1? objects': '1?' is not a number");
  const std::string long_line = "x " + std::string(300, 'y') + " z w";
  EXPECT_EQ(Error(long_line).substr(0, 20), "line 1 'x yyyyyyyyyy");
  EXPECT_NE(Error(long_line).find("y'...: expected three fields"), std::string::npos) << Error(long_line);
}

// Found by fuzz_counters_parser: a field is shown as the line is, without its control bytes
// (DEL, ESC) and cut short, and "-0" reads as 0, not as a negative zero.
TEST(CountersFile, AnErrorNeverEchoesControlBytesOrAHugeField) {
  EXPECT_EQ(Error("ruby_ob\x7fjects 1 objects"),
            "line 1 'ruby_ob?jects 1 objects': counter 'ruby_ob?jects' is not declared (the spec declares: "
            "ruby_objects, cache_misses)");
  EXPECT_EQ(Error("ruby_objects 5\x1b[31m objects"), "line 1 'ruby_objects 5?[31m objects': '5?[31m' is not a number");
  EXPECT_EQ(Error("ruby_objects " + std::string(100, '9') + "x objects"),
            "line 1 'ruby_objects " + std::string(100, '9') + "x objec'...: '" + std::string(40, '9') +
                "...' is not a number");
  std::vector<model::CounterValue> out;
  EXPECT_EQ(ParseCounterLines("ruby_objects -0 objects\ncache_misses 0 misses", kDeclared, out), std::nullopt);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(std::signbit(out[0].value));
}

TEST(CountersFile, AMissingFileSaysWhichFileAndWhy) {
  std::vector<model::CounterValue> out;
  const auto error = ReadCountersFile("/nonexistent-dir/counters", kDeclared, out);
  EXPECT_EQ(error,
            "wrote no counters file ($PERFENGINE_COUNTERS = /nonexistent-dir/counters): No such file or directory");
}

TEST(CountersFile, AFileIsReadWhole) {
  const std::filesystem::path file = std::filesystem::path(::testing::TempDir()) / "counters-file-test";
  std::ofstream(file) << "ruby_objects 7 objects\ncache_misses 3 misses\n";
  std::vector<model::CounterValue> out;
  EXPECT_EQ(ReadCountersFile(file, kDeclared, out), std::nullopt);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].value, 7);
  std::ofstream(file) << "ruby_objects 7 objects\ncache_misses 3\n";
  EXPECT_EQ(ReadCountersFile(file, kDeclared, out),
            "wrote a bad counters file ($PERFENGINE_COUNTERS): line 2 'cache_misses 3': expected three fields, 'name "
            "value unit'");
  std::filesystem::remove(file);
}

// A fresh directory of its own for the file tests below, removed with everything in it.
struct CountersDir {
  std::filesystem::path path;
  // One directory per test and process: ctest runs these tests as processes side by side, and a
  // shared one was removed by one test while another used it (ADirectoryIsRefusedAsOne failed a
  // full ctest -j2 so).
  CountersDir()
      : path(std::filesystem::path(::testing::TempDir()) /
             ("counters-kinds-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
              std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~CountersDir() { std::filesystem::remove_all(path); }
  std::string Error(const std::filesystem::path& file) const {
    std::vector<model::CounterValue> out;
    return ReadCountersFile(file, kDeclared, out).value_or("(no error)");
  }
};

TEST(CountersFile, ASymbolicLinkIsNotFollowedEvenToDevZero) {
  CountersDir dir;
  const auto file = dir.path / "counters";
  std::filesystem::create_symlink("/dev/zero", file);
  EXPECT_EQ(dir.Error(file),
            "left a counters file that is a symbolic link, not a regular file ($PERFENGINE_COUNTERS = " +
                file.string() + ")");
}

TEST(CountersFile, ALinkToAFileNeverEchoesItsTarget) {
  CountersDir dir;
  std::ofstream(dir.path / "secret") << "ruby_objects 7 objects\ncache_misses 3 misses\nTOP-SECRET\n";
  std::filesystem::create_symlink(dir.path / "secret", dir.path / "counters");
  const std::string error = dir.Error(dir.path / "counters");
  EXPECT_NE(error.find("is a symbolic link, not a regular file"), std::string::npos) << error;
  EXPECT_EQ(error.find("TOP-SECRET"), std::string::npos) << error;
  EXPECT_EQ(error.find("ruby_objects"), std::string::npos) << error;
}

TEST(CountersFile, AFifoIsRefusedWithoutWaitingForAWriter) {
  CountersDir dir;
  const auto file = dir.path / "counters";
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  EXPECT_EQ(dir.Error(file),
            "left a counters file that is a FIFO, not a regular file ($PERFENGINE_COUNTERS = " + file.string() + ")");
}

TEST(CountersFile, ADirectoryIsRefusedAsOne) {
  CountersDir dir;
  const auto file = dir.path / "counters";
  std::filesystem::create_directory(file);
  EXPECT_EQ(dir.Error(file), "left a counters file that is a directory, not a regular file ($PERFENGINE_COUNTERS = " +
                                 file.string() + ")");
}

TEST(CountersFile, ADeviceIsRefusedAsOne) {
  CountersDir dir;
  EXPECT_EQ(dir.Error("/dev/zero"),
            "left a counters file that is a character device, not a regular file ($PERFENGINE_COUNTERS = /dev/zero)");
}

TEST(CountersFile, AFileAboveTheCapIsRefusedNamingTheCap) {
  CountersDir dir;
  const auto file = dir.path / "counters";
  std::string text = "ruby_objects 7 objects\ncache_misses 3 misses\n";
  text.resize(kCountersFileCap, '\n');  // blank lines: exactly the cap is still read
  std::ofstream(file, std::ios::binary) << text;
  EXPECT_EQ(dir.Error(file), "(no error)");
  std::ofstream(file, std::ios::binary | std::ios::app) << "\n";
  EXPECT_EQ(dir.Error(file), "wrote a counters file larger than the 1 MiB the engine reads ($PERFENGINE_COUNTERS = " +
                                 file.string() + ")");
}

}  // namespace
}  // namespace pe::run

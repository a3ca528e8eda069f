#include "engine/run/scratch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace pe::run {
namespace {

namespace fs = std::filesystem;

class ScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    temp_ = fs::temp_directory_path() / ("pe-scratch-test-" + std::to_string(::getpid()));
    fs::remove_all(temp_);
    fs::create_directories(temp_);
  }
  void TearDown() override { fs::remove_all(temp_); }

  fs::path Make(const std::string& name, bool with_lock) {
    fs::create_directories(temp_ / name / "w");
    std::ofstream(temp_ / name / "w" / "out") << "x";
    if (with_lock) std::ofstream(temp_ / name / ".lock");
    return temp_ / name;
  }

  fs::path temp_;
};

TEST_F(ScratchTest, ReclaimsDirectoriesOfRunsThatDiedAndKeepsLiveOnes) {
  const fs::path dead = Make("perfengine-AbC123", true);  // a lock nobody holds: its run died
  const fs::path live = Make("perfengine-Live01", true);
  const int held = ::open((live / ".lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);
  const fs::path old_unlocked = Make("perfengine-Old001", false);
  fs::last_write_time(old_unlocked, fs::file_time_type::clock::now() - std::chrono::hours(48));
  const fs::path new_unlocked = Make("perfengine-New001", false);
  const fs::path other_names[] = {Make("perfengine-serve-x", true), Make("perfengine-12345", true),
                                  Make("notperfengine-A", true)};

  EXPECT_EQ(ReclaimStaleScratch(temp_), 2);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(old_unlocked));
  EXPECT_TRUE(fs::exists(live / "w" / "out"));
  EXPECT_TRUE(fs::exists(new_unlocked));
  for (const fs::path& kept : other_names) EXPECT_TRUE(fs::exists(kept)) << kept;
  ::close(held);
  // Its run is gone now: the next look reclaims it.
  EXPECT_EQ(ReclaimStaleScratch(temp_), 1);
  EXPECT_FALSE(fs::exists(live));
}

TEST_F(ScratchTest, ARunHoldsItsDirectoryUntilItEnds) {
  fs::path path;
  {
    RunScratch scratch(temp_);
    path = scratch.path();
    EXPECT_EQ(path.filename().string().rfind("perfengine-", 0), 0u);
    EXPECT_TRUE(fs::exists(path / ".lock"));
    EXPECT_EQ(ReclaimStaleScratch(temp_), 0);  // in use
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(ScratchTest, AnEngineKilledMidRunLeavesADirectoryTheNextRunReclaims) {
  const pid_t engine = ::fork();
  ASSERT_GE(engine, 0);
  if (engine == 0) {
    RunScratch scratch(temp_);
    std::ofstream(scratch.path() / "half-written") << "x";
    ::pause();  // killed here, before any destructor can run
    ::_exit(0);
  }
  fs::path left;
  for (int i = 0; i < 500 && left.empty(); ++i) {
    for (const auto& entry : fs::directory_iterator(temp_)) {
      if (fs::exists(entry.path() / "half-written")) left = entry.path();
    }
    if (left.empty()) ::usleep(2000);
  }
  ASSERT_FALSE(left.empty());
  ::kill(engine, SIGKILL);
  ::waitpid(engine, nullptr, 0);
  EXPECT_TRUE(fs::exists(left));
  RunScratch next(temp_);
  EXPECT_FALSE(fs::exists(left));
  EXPECT_TRUE(fs::exists(next.path()));
}

}  // namespace
}  // namespace pe::run

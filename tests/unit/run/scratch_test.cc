#include "engine/run/scratch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>

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

  // A directory as a run would leave it: a file inside, and (as asked) a .lock and the marker.
  fs::path Make(const std::string& name, bool with_lock, bool with_marker = true) {
    fs::create_directories(temp_ / name / "w");
    std::ofstream(temp_ / name / "w" / "out") << "x";
    if (with_lock) std::ofstream(temp_ / name / ".lock");
    if (with_marker) std::ofstream(temp_ / name / std::string(kScratchMarker)) << kScratchMarkerText;
    return temp_ / name;
  }

  fs::path temp_;
};

TEST_F(ScratchTest, ReclaimsDirectoriesOfRunsThatDiedAndKeepsLiveOnes) {
  const fs::path dead = Make("perfengine-AbC123", true);  // a lock nobody holds: its run died
  const fs::path live = Make("perfengine-Live01", true);
  const int held = ::open((live / ".lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);
  const fs::path no_lock = Make("perfengine-New001", false);
  const fs::path other_names[] = {Make("perfengine-serve-x", true), Make("perfengine-12345", true),
                                  Make("notperfengine-A", true)};

  EXPECT_EQ(ReclaimStaleScratch(temp_), 1);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live / "w" / "out"));
  EXPECT_TRUE(fs::exists(no_lock));
  for (const fs::path& kept : other_names) EXPECT_TRUE(fs::exists(kept)) << kept;
  ::close(held);
  // Its run is gone now: the next look reclaims it.
  EXPECT_EQ(ReclaimStaleScratch(temp_), 1);
  EXPECT_FALSE(fs::exists(live));
}

// Issue 26 (B1): a passing run deleted the user's $TMPDIR/perfengine-master with its sources,
// perfengine-backup and perfengine-v1.2.3: named like scratch, but never made by the engine.
// Only a real directory of ours, named as mkdtemp names, with the marker's exact text, goes.
TEST_F(ScratchTest, OnlyDirectoriesTheEngineProvablyMadeAreReclaimed) {
  const fs::path master = Make("perfengine-master", true, false);
  const fs::path backup = Make("perfengine-backup", false, false);
  const fs::path old = Make("perfengine-Old001", true, false);  // no marker, however old
  fs::last_write_time(old, fs::file_time_type::clock::now() - std::chrono::hours(24 * 365));
  const fs::path version = Make("perfengine-v1.2.3", true);  // marker, but not a name mkdtemp makes
  const fs::path wrong_text = Make("perfengine-Wrong1", true, false);
  std::ofstream(wrong_text / std::string(kScratchMarker)) << "perfengine\n";
  const fs::path linked_marker = Make("perfengine-Link01", true, false);
  std::ofstream(temp_ / "marker-elsewhere") << kScratchMarkerText;
  fs::create_symlink(temp_ / "marker-elsewhere", linked_marker / std::string(kScratchMarker));
  // A symlink named like scratch, to a directory that would be stale: neither goes.
  const fs::path target = Make("target", true);
  fs::create_symlink(target, temp_ / "perfengine-Sym001");
  const fs::path stale = Make("perfengine-Stale1", true);
  EXPECT_EQ(ReclaimStaleScratch(temp_), 1);
  EXPECT_FALSE(fs::exists(stale));
  for (const fs::path& kept : {master, backup, old, version, wrong_text, linked_marker})
    EXPECT_TRUE(fs::exists(kept / "w" / "out")) << kept;
  EXPECT_TRUE(fs::is_symlink(temp_ / "perfengine-Sym001"));
  EXPECT_TRUE(fs::exists(target / "w" / "out"));
}

// As root, the engine once reached other users' directories in a shared /tmp. Here the
// directories are ours and the engine runs as another uid, so no root is needed.
TEST_F(ScratchTest, AnotherUsersDirectoryIsNeverReclaimed) {
  const fs::path theirs = Make("perfengine-Their1", true);
  const fs::path also_theirs = Make("perfengine-Their2", true);
  EXPECT_EQ(ReclaimStaleScratch(temp_, ::geteuid() + 1), 0);
  EXPECT_TRUE(fs::exists(theirs / "w" / "out"));
  EXPECT_TRUE(fs::exists(also_theirs / "w" / "out"));
  // Their owner would reclaim them: ownership alone kept them.
  EXPECT_EQ(ReclaimStaleScratch(temp_, ::geteuid()), 2);
}

TEST_F(ScratchTest, ARunHoldsItsDirectoryUntilItEnds) {
  fs::path path;
  {
    RunScratch scratch(temp_);
    path = scratch.path();
    EXPECT_EQ(path.filename().string().rfind("perfengine-", 0), 0u);
    EXPECT_TRUE(fs::exists(path / ".lock"));
    std::ifstream marker(path / std::string(kScratchMarker));
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(marker), {}), kScratchMarkerText);
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

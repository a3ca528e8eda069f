#include "generators/fixture_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "generators/file_io.h"
#include "test_util.h"

namespace pe::gen {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

// Writes a fixed file and counts how often it was asked to.
class CountingGenerator : public Generator {
 public:
  std::string_view Name() const override { return "counting"; }
  std::string_view Description() const override { return "test"; }
  int Version() const override { return version; }
  void Check(const Params&) const override {}
  void Generate(const Params&, const Context& ctx) const override {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    fs::create_directories(ctx.out_dir / "sub" / "empty");
    WriteFile(ctx.out_dir / "sub" / "data.txt", "payload");
    WriteFile(ctx.out_dir / "tool", "#!/bin/true\n", 0755);
    if (fail) throw std::runtime_error("disk full");
  }
  int version = 1;
  bool fail = false;
  mutable std::atomic<int> calls = 0;
  int sleep_ms = 0;  // widens the window in which a second run could race the first
};

Context Ctx(std::uint64_t seed = 1, double scale = 1) {
  Context ctx;
  ctx.seed = seed;
  ctx.scale = scale;
  return ctx;
}

TEST(FixtureCache, ReusesAVerifiedFixture) {
  ScratchDir cache;
  CountingGenerator gen;
  const fs::path first = Materialize(gen, {}, Ctx(), cache.path());
  const fs::path second = Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_EQ(first, second);
  EXPECT_EQ(gen.calls, 1);
  EXPECT_EQ(ReadFile(first / "sub" / "data.txt"), "payload");
  EXPECT_TRUE(fs::is_directory(first / "sub" / "empty"));
}

TEST(FixtureCache, ConcurrentRunsMakeTheFixtureOnceAndNeverReplaceIt) {
  ScratchDir cache;
  CountingGenerator gen;
  gen.sleep_ms = 200;
  std::vector<fs::path> dirs(4);
  std::vector<std::thread> runs;
  for (auto& dir : dirs) runs.emplace_back([&] { dir = Materialize(gen, {}, Ctx(), cache.path()); });
  for (auto& run : runs) run.join();
  EXPECT_EQ(gen.calls, 1);
  for (const auto& dir : dirs) {
    EXPECT_EQ(dir, dirs[0]);
    EXPECT_EQ(ReadFile(dir / "sub" / "data.txt"), "payload");
  }
}

TEST(FixtureCache, RegeneratesADamagedFixture) {
  ScratchDir cache;
  CountingGenerator gen;
  const fs::path dir = Materialize(gen, {}, Ctx(), cache.path());
  WriteFile(dir / "sub" / "data.txt", "paylod!");  // same size would not do: change bytes
  EXPECT_EQ(Materialize(gen, {}, Ctx(), cache.path()), dir);
  EXPECT_EQ(gen.calls, 2);
  EXPECT_EQ(ReadFile(dir / "sub" / "data.txt"), "payload");

  WriteFile(dir / "sub" / "data.txt", "PAYLOAD");  // same size, different bytes
  Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_EQ(gen.calls, 3);

  fs::permissions(dir / "tool", fs::perms::owner_exec, fs::perm_options::remove);
  Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_EQ(gen.calls, 4);

  fs::remove_all(dir / "sub" / "empty");
  Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_EQ(gen.calls, 5);

  fs::remove(dir / ".perfengine-manifest");
  Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_EQ(gen.calls, 6);
}

// A contender once wrote its answer into {fixture} and read it back on later runs (a
// persistent 7.29x "speed-up"). The cache entry is read-only, and anything added to it
// (here by root, whom the bits do not stop) means it is made again from scratch.
TEST(FixtureCache, FixturesAreReadOnlyAndAPlantedFileIsNeverReused) {
  ScratchDir cache;
  CountingGenerator gen;
  const fs::path dir = Materialize(gen, {}, Ctx(), cache.path());
  const auto perms = [](const fs::path& p) { return fs::symlink_status(p).permissions() & fs::perms::all; };
  const fs::perms r = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  const fs::perms rx = r | fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  EXPECT_EQ(perms(dir), rx);
  EXPECT_EQ(perms(dir / "sub"), rx);
  EXPECT_EQ(perms(dir / "sub" / "data.txt"), r);
  EXPECT_EQ(perms(dir / "tool"), rx);

  WriteFile(dir / "sub" / "empty" / "answer.txt", "42");
  EXPECT_FALSE(IsCached(dir));
  EXPECT_EQ(Materialize(gen, {}, Ctx(), cache.path()), dir);
  EXPECT_EQ(gen.calls, 2);
  EXPECT_FALSE(fs::exists(dir / "sub" / "empty" / "answer.txt"));
  EXPECT_TRUE(IsCached(dir));

  fs::create_symlink("/etc/passwd", dir / "sub" / "link");
  EXPECT_FALSE(IsCached(dir));
  Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_EQ(gen.calls, 3);
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "sub" / "link")));
}

// The check opens every file itself (two threads, one open and one fstat each): a file swapped
// for a FIFO fails it at once instead of blocking the open, and a symlink to identical bytes
// is not the file the manifest lists.
TEST(FixtureCache, AFileSwappedForAFifoOrASymlinkFailsTheCheckWithoutHanging) {
  ScratchDir cache;
  CountingGenerator gen;
  const fs::path dir = Materialize(gen, {}, Ctx(), cache.path());
  const fs::path data = dir / "sub" / "data.txt";
  fs::permissions(dir / "sub", fs::perms::owner_write, fs::perm_options::add);
  fs::remove(data);
  ASSERT_EQ(::mkfifo(data.c_str(), 0644), 0);
  EXPECT_FALSE(IsCached(dir));
  EXPECT_EQ(Materialize(gen, {}, Ctx(), cache.path()), dir);
  EXPECT_EQ(gen.calls, 2);
  EXPECT_TRUE(IsCached(dir));

  WriteFile(cache.path() / "copy.txt", "payload");
  fs::permissions(dir / "sub", fs::perms::owner_write, fs::perm_options::add);
  fs::remove(data);
  fs::create_symlink(cache.path() / "copy.txt", data);
  EXPECT_FALSE(IsCached(dir));
  Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_EQ(gen.calls, 3);
  EXPECT_EQ(ReadFile(data), "payload");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(data)));
}

// HasManifest reads no file: a fixture whose bytes were changed still has its manifest (so a
// progress line stays quiet), while IsCached and Materialize see the damage.
TEST(FixtureCache, HasManifestIsTheCompletedMarkAndReadsNoFile) {
  ScratchDir cache;
  CountingGenerator gen;
  const fs::path dir = Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_TRUE(HasManifest(dir));
  WriteFile(dir / "sub" / "data.txt", "PAYLOAD");
  EXPECT_TRUE(HasManifest(dir));
  EXPECT_FALSE(IsCached(dir));
  EXPECT_FALSE(HasManifest(cache.path() / "never-made"));
}

TEST(FixtureCache, FailedGenerationLeavesNothingBehind) {
  ScratchDir cache;
  CountingGenerator gen;
  gen.fail = true;
  EXPECT_THROW(Materialize(gen, {}, Ctx(), cache.path()), std::runtime_error);
  // Only the lock files stay (removing a lock file others may hold would break the lock).
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(cache.path())) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{".locks"});
}

// A partial named as engines before issue 26 named them (a 16-digit key, no lock file of that
// name): judged by whether its writer's pid still runs.
TEST(FixtureCache, RemovesTemporariesOfDeadRuns) {
  ScratchDir cache;
  CountingGenerator gen;
  const std::string key = FixtureKey(gen, {}, 1, 1);
  // pid 2^22 + 1 is above Linux's pid_max limit, so no process can hold it.
  const fs::path stale = cache.path() / (".tmp-counting-" + key.substr(0, 16) + "-4194305");
  fs::create_directories(stale / "half");
  Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_FALSE(fs::exists(stale));
}

// Issue 26 (M3): an interrupted or killed writer's partial stayed in the cache until that same
// fixture was made again (185-257 MB each). Any Materialize sweeps every partial whose writer
// is gone, judged by the fixture's lock, which a writer holds for as long as its partial exists.
TEST(FixtureCache, SweepsPartialsOfOtherFixturesWhoseWriterIsGoneAndKeepsALiveOne) {
  ScratchDir cache;
  CountingGenerator gen;
  CountingGenerator other;
  other.version = 2;  // another fixture: another key, another lock
  const fs::path other_dir = FixtureDirectory(other, {}, Ctx(), cache.path());
  const fs::path third_dir = FixtureDirectory(gen, {}, Ctx(3), cache.path());
  fs::create_directories(cache.path() / ".locks");
  // A writer that was killed: its lock file stays, nobody holds it. The pid is one no process
  // can have (above Linux's pid_max), as for a writer that is gone.
  const fs::path left = cache.path() / (".tmp-" + other_dir.filename().string() + "-4194305");
  fs::create_directories(left / "half");
  WriteFile(cache.path() / ".locks" / other_dir.filename(), "");
  // A writer at work: it holds its lock. Even with a pid that looks dead, its partial stays.
  const fs::path live = cache.path() / (".tmp-" + third_dir.filename().string() + "-4194305");
  fs::create_directories(live / "half");
  const fs::path live_lock = cache.path() / ".locks" / third_dir.filename();
  WriteFile(live_lock, "");
  const int held = ::open(live_lock.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);
  EXPECT_TRUE(IsBeingMade(third_dir));
  EXPECT_FALSE(IsBeingMade(other_dir));

  Materialize(gen, {}, Ctx(), cache.path());
  EXPECT_FALSE(fs::exists(left));
  EXPECT_TRUE(fs::exists(live / "half"));
  // A run whose fixture is cached sweeps too.
  fs::create_directories(left / "half");
  EXPECT_EQ(Materialize(gen, {}, Ctx(), cache.path()), FixtureDirectory(gen, {}, Ctx(), cache.path()));
  EXPECT_EQ(gen.calls, 1);
  EXPECT_FALSE(fs::exists(left));
  EXPECT_TRUE(fs::exists(live / "half"));
  ::close(held);
  EXPECT_FALSE(IsBeingMade(third_dir));
  SweepPartials(cache.path());  // as the engine does once it killed a generator
  EXPECT_FALSE(fs::exists(live));
}

TEST(FixtureCache, MaterializesARealGenerator) {
  ScratchDir cache;
  auto gen = BuiltinRegistry().Create("bazel_workspace");
  const Params params = {{"targets", std::int64_t{120}}};
  const fs::path dir = Materialize(*gen, params, Ctx(), cache.path());
  EXPECT_EQ(dir.filename().string().rfind("bazel_workspace-", 0), 0u);
  const auto written = fs::last_write_time(dir / "query.pb");
  EXPECT_EQ(Materialize(*gen, params, Ctx(), cache.path()), dir);
  EXPECT_EQ(fs::last_write_time(dir / "query.pb"), written);
  const fs::path other = Materialize(*gen, params, Ctx(2), cache.path());
  EXPECT_NE(other, dir);
  EXPECT_THROW(Materialize(*gen, {{"targets", std::int64_t{-5}}}, Ctx(), cache.path()), ParamError);
}

TEST(FixtureCache, KeyCoversEveryInput) {
  CountingGenerator gen;
  const Params params = {{"targets", std::int64_t{10}}};
  const std::string key = FixtureKey(gen, params, 1, 1);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, FixtureKey(gen, params, 1, 1));
  EXPECT_NE(key, FixtureKey(gen, params, 1, 2));
  EXPECT_NE(key, FixtureKey(gen, params, 2, 1));
  EXPECT_NE(key, FixtureKey(gen, {{"targets", std::int64_t{11}}}, 1, 1));
  EXPECT_NE(key, FixtureKey(gen, {{"targets", 10.0}}, 1, 1));
  EXPECT_NE(key, FixtureKey(gen, {}, 1, 1));
  gen.version = 2;
  EXPECT_NE(key, FixtureKey(gen, params, 1, 1));
  EXPECT_EQ(FixtureKey(gen, {}, 1, 1), "44f93323b45bee423d14a1408e87a64ab80a0166c94c58c34379948e4f76116b");
}

TEST(FixtureCache, ShimDigestIsPartOfTheKey) {
  auto shim = BuiltinRegistry().Create("bazel_workspace");
  EXPECT_EQ(shim->KeyExtra().rfind("shim=", 0), 0u);
  // hash_pair carries the shim too (get-impacted-targets -b); streamed_proto alone does not.
  EXPECT_EQ(BuiltinRegistry().Create("hash_pair")->KeyExtra(), shim->KeyExtra());
  EXPECT_EQ(BuiltinRegistry().Create("streamed_proto")->KeyExtra(), "");
}

TEST(FixtureCache, DefaultRootFollowsTheEnvironment) {
  ::setenv("PERFENGINE_CACHE", "/tmp/pe-cache-x", 1);
  EXPECT_EQ(DefaultCacheRoot(), fs::path("/tmp/pe-cache-x"));
  ::unsetenv("PERFENGINE_CACHE");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(DefaultCacheRoot(), fs::path("/tmp/xdg/perfengine"));
  ::unsetenv("XDG_CACHE_HOME");
}

}  // namespace
}  // namespace pe::gen

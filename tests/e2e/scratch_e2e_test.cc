// Issue 26, end to end: the real binary's scratch directory in a $TMPDIR it shares with the
// user, and its fixture cache when the engine is interrupted or killed mid-generation.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string Json(const std::string& text) { return nlohmann::json(text).dump(); }

fs::path WriteScratchSpec(const fs::path& dir, const std::string& workload, const std::string& run = "rounds = 1\n") {
  const fs::path spec = dir / "spec.toml";
  std::ofstream(spec) << "[run]\nwarmup_rounds = 0\n"
                      << run << "\n[contenders.baseline]\nwritable = [\".\"]\nargv = [" << Json(STUB_CONTENDER)
                      << "]\n\n"
                      << "[contenders.candidate]\nwritable = [\".\"]\nargv = [" << Json(STUB_CONTENDER) << "]\n\n"
                      << "[workloads.work]\n"
                      << workload;
  return spec;
}

// $TMPDIR for the engines a test starts, restored when it ends.
class ScratchScopedTmpdir {
 public:
  explicit ScratchScopedTmpdir(const fs::path& dir) {
    if (const char* old = std::getenv("TMPDIR")) saved_ = old;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScratchScopedTmpdir() {
    if (saved_)
      ::setenv("TMPDIR", saved_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }

 private:
  std::optional<std::string> saved_;
};

std::set<std::string> Entries(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.insert(e.path().filename().string());
  return names;
}

std::vector<fs::path> Partials(const fs::path& cache) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cache, ec)) {
    if (e.path().filename().string().rfind(".tmp-", 0) == 0) found.push_back(e.path());
  }
  return found;
}

std::uintmax_t TreeBytes(const fs::path& root) {
  std::uintmax_t bytes = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) bytes += it->file_size(ec);
  }
  return bytes;
}

// The live processes whose parent is `parent`, from /proc.
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent && state != 'Z') children.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return children;
}

// A fixture that takes many seconds to generate (hundreds of MB), so a test can act mid-way.
const std::string kSlowFixture =
    "args = [\"--print\", \"{fixture}\"]\nfixture = { generator = \"hash_pair\", targets = 150000 }\n";
const std::string kSlowRun = "rounds = 1\nscale = 50\n";

// Waits until an engine has started writing a partial fixture into `cache`.
bool WaitForPartial(const fs::path& cache) {
  for (int i = 0; i < 600; ++i) {
    if (!Partials(cache).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// B1: a passing run once deleted the user's $TMPDIR/perfengine-master (with sources),
// perfengine-backup and perfengine-v1.2.3, and as root other users' directories. A directory
// is reclaimed only when the engine provably made it and its run is gone.
TEST(ScratchE2E, ARunReclaimsOnlyTheScratchOfADeadEngineAndNothingNamedLikeIt) {
  TempDir dir;
  const fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  const ScratchScopedTmpdir tmpdir(tmp);

  // A real engine's scratch, left behind by an engine killed mid-run.
  const fs::path hang_dir = dir.path() / "hang";
  const fs::path log = hang_dir / "started.log";  // where its contenders may write (writable = ["."])
  fs::create_directories(hang_dir);
  const fs::path hang_spec =
      WriteScratchSpec(hang_dir, "args = [\"--log\", " + Json(log.string()) + ", \"w\", \"--hang\"]\n");
  Running hung({"run", hang_spec.string()}, hang_dir);
  for (int i = 0; i < 600 && ReadLog(log).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_FALSE(ReadLog(log).empty());
  ::kill(hung.pid(), SIGKILL);
  hung.Wait();
  ASSERT_EQ(Entries(tmp).size(), 1u);
  const fs::path dead = tmp / *Entries(tmp).begin();
  ASSERT_EQ(dead.filename().string().rfind("perfengine-", 0), 0u) << dead;

  // Everything a stale engine scratch holds at its top (its lock, its marker), copied.
  const auto copy_top_files = [&](const fs::path& to) {
    fs::create_directories(to);
    for (const auto& e : fs::directory_iterator(dead)) {
      if (e.is_regular_file()) fs::copy_file(e.path(), to / e.path().filename());
    }
  };
  const auto plant = [](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  };
  const auto two_days_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);
  plant(tmp / "perfengine-master" / "src" / "main.cc", "int main() {}\n");
  fs::last_write_time(tmp / "perfengine-master", two_days_ago);
  plant(tmp / "perfengine-backup" / ".lock", "");
  plant(tmp / "perfengine-backup" / "notes.txt", "keep\n");
  plant(tmp / "perfengine-v1.2.3" / "README", "keep\n");
  copy_top_files(tmp / "perfengine-v1.2.3");  // a marker does not make a name mkdtemp never makes
  plant(tmp / "perfengine-Old001" / ".lock", "");
  plant(tmp / "perfengine-Old001" / "data", "keep\n");
  fs::last_write_time(tmp / "perfengine-Old001", two_days_ago);
  const fs::path elsewhere = dir.path() / "elsewhere";
  copy_top_files(elsewhere);
  plant(elsewhere / "keep", "keep\n");
  fs::create_directory_symlink(elsewhere, tmp / "perfengine-Sym001");
  std::set<std::string> planted = {"perfengine-master", "perfengine-backup", "perfengine-v1.2.3", "perfengine-Old001",
                                   "perfengine-Sym001"};
  const bool root = ::geteuid() == 0;
  if (root) {  // as root: another user's stale scratch, identical but for its owner
    const fs::path theirs = tmp / "perfengine-Their1";
    copy_top_files(theirs);
    plant(theirs / "data", "keep\n");
    for (const auto& e : fs::recursive_directory_iterator(theirs))
      ASSERT_EQ(::lchown(e.path().c_str(), 65534, 65534), 0);
    ASSERT_EQ(::lchown(theirs.c_str(), 65534, 65534), 0);
    planted.insert("perfengine-Their1");
  }

  const fs::path spec = WriteScratchSpec(dir.path(), "args = [\"--print\", \"same\"]\n");
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_FALSE(fs::exists(dead)) << "the dead engine's scratch was not reclaimed";
  EXPECT_EQ(Entries(tmp), planted);  // the run's own scratch went too
  EXPECT_EQ(ReadAll(tmp / "perfengine-master" / "src" / "main.cc"), "int main() {}\n");
  EXPECT_EQ(ReadAll(tmp / "perfengine-backup" / "notes.txt"), "keep\n");
  EXPECT_EQ(ReadAll(tmp / "perfengine-v1.2.3" / "README"), "keep\n");
  EXPECT_EQ(ReadAll(tmp / "perfengine-Old001" / "data"), "keep\n");
  EXPECT_TRUE(fs::is_symlink(tmp / "perfengine-Sym001"));
  EXPECT_EQ(ReadAll(elsewhere / "keep"), "keep\n");
  if (root) {
    EXPECT_EQ(ReadAll(tmp / "perfengine-Their1" / "data"), "keep\n");
  }
}

TEST(ScratchE2E, AMissingOrWrongTmpdirIsNamed) {
  TempDir dir;
  const fs::path spec = WriteScratchSpec(dir.path(), "args = [\"--print\", \"same\"]\n");
  {
    const ScratchScopedTmpdir tmpdir(dir.path() / "nope");
    for (const char* command : {"run", "validate"}) {
      const Finished f = RunPerfengine({command, spec.string()}, dir.path());
      EXPECT_EQ(f.exit, 2) << command;
      EXPECT_EQ(f.err, "perfengine: TMPDIR '" + (dir.path() / "nope").string() + "' does not exist\n") << command;
    }
  }
  {
    const ScratchScopedTmpdir tmpdir(spec);
    const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
    EXPECT_EQ(f.exit, 2);
    EXPECT_EQ(f.err, "perfengine: TMPDIR '" + spec.string() + "' is not a directory\n");
  }
}

// Minor 12: a full $TMPDIR was reported as "contender 'baseline' exited with status 1".
TEST(ScratchE2E, AFullTmpdirIsTheEnginesProblemNotTheContenders) {
  if (::geteuid() != 0) {
    // Not root: this test again, as root of a user and mount namespace of its own (unshare
    // -Urm), where mounting a tmpfs is allowed. Where that is not allowed either, it fails.
    TempDir dir;
    const fs::path log = dir.path() / "inner.out";
    const std::string command =
        "unshare --user --map-root-user --mount '" + fs::read_symlink("/proc/self/exe").string() +
        "' --gtest_filter=ScratchE2E.AFullTmpdirIsTheEnginesProblemNotTheContenders > '" + log.string() + "' 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << ReadAll(log);
    EXPECT_NE(ReadAll(log).find("[  PASSED  ] 1 test."), std::string::npos) << ReadAll(log);
    return;
  }
  TempDir dir;
  const fs::path full = dir.path() / "full";
  fs::create_directories(full);
  ASSERT_EQ(::mount("tmpfs", full.c_str(), "tmpfs", 0, "size=64k"), 0) << std::strerror(errno);
  struct Unmount {
    fs::path path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{full};
  const fs::path big = dir.path() / "big";
  std::ofstream(big) << std::string(512 * 1024, 'x');
  const fs::path spec =
      WriteScratchSpec(dir.path(), "args = [\"--copy\", " + Json(big.string()) + ", \"/dev/stdout\"]\n");
  const ScratchScopedTmpdir tmpdir(full);
  const Finished f = RunPerfengine({"run", spec.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  const std::string start = "\n  work: the scratch directory " + (full / "perfengine-").string();
  const std::size_t at = f.out.find(start);
  ASSERT_NE(at, std::string::npos) << f.out;
  const std::string rest = f.out.substr(at + start.size() + 6);  // past mkdtemp's six characters
  EXPECT_EQ(rest.rfind(" is out of space (", 0), 0u) << rest;
  EXPECT_NE(rest.find(" free on its filesystem): contender 'baseline' exited with status 1 while it was full, "
                      "which says nothing about the contender. Free space in " +
                      full.string() + " or point TMPDIR at a larger filesystem\n"),
            std::string::npos)
      << rest;
  EXPECT_EQ(f.out.find("work: contender 'baseline'"), std::string::npos) << f.out;
}

// M1: an engine killed with SIGKILL mid-generation left its generator running, writing
// hundreds of MB into the cache. It dies with the engine now; the next run sweeps its partial.
TEST(ScratchE2E, KillingTheEngineDuringGenerationStopsTheGeneratorAndTheNextRunSweepsItsPartial) {
  TempDir dir;
  const fs::path cache = dir.path() / "cache";
  const fs::path spec = WriteScratchSpec(dir.path(), kSlowFixture, kSlowRun);
  Running run({"run", spec.string(), "--cache-dir", cache.string()}, dir.path());
  ASSERT_TRUE(WaitForPartial(cache));
  const std::vector<pid_t> children = ChildrenOf(run.pid());  // the generator and the spawner
  ASSERT_FALSE(children.empty());
  ::kill(run.pid(), SIGKILL);
  run.Wait();
  std::vector<pid_t> alive = children;
  for (int i = 0; i < 100 && !alive.empty(); ++i) {
    std::erase_if(alive, [](pid_t pid) { return !IsAlive(pid); });
    if (!alive.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(alive.empty()) << alive.size() << " of the engine's children outlived it by 5 s";
  for (pid_t pid : alive) ::kill(pid, SIGKILL);  // leave nothing writing after the test
  const std::vector<fs::path> partials = Partials(cache);
  ASSERT_EQ(partials.size(), 1u);
  const std::uintmax_t before = TreeBytes(partials[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(TreeBytes(partials[0]), before) << "something is still writing the partial fixture";

  // Any later run's cache sweeps the partial its writer left, whatever fixture it makes.
  const fs::path small = dir.path() / "small";
  fs::create_directories(small);
  const fs::path small_spec =
      WriteScratchSpec(small, "args = [\"--print\", \"same\"]\nfixture = { generator = \"text_lines\", lines = 10 }\n");
  const Finished next = RunPerfengine({"run", small_spec.string(), "--cache-dir", cache.string()}, small);
  EXPECT_EQ(next.exit, 0) << next.out << next.err;
  EXPECT_TRUE(Partials(cache).empty());
}

// M3: Ctrl-C, SIGTERM or SIGHUP during generation left a 185-257 MB partial fixture in the cache
// until that same fixture was generated again.
TEST(ScratchE2E, InterruptingGenerationRemovesThePartialFixture) {
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(::strsignal(signal));
    TempDir dir;
    const fs::path cache = dir.path() / "cache";
    const fs::path spec = WriteScratchSpec(dir.path(), kSlowFixture, kSlowRun);
    Running run({"run", spec.string(), "--cache-dir", cache.string()}, dir.path());
    ASSERT_TRUE(WaitForPartial(cache));
    ::kill(run.pid(), signal);
    const Finished f = run.Wait();
    EXPECT_EQ(f.exit, 130) << f.out << f.err;
    EXPECT_TRUE(Partials(cache).empty());
  }
}

// Minor 18: a run waiting for another process's generation of the same fixture said it was
// generating it.
TEST(ScratchE2E, ASecondRunWaitingForTheSameFixtureSaysSo) {
  TempDir dir;
  const fs::path cache = dir.path() / "cache";
  const fs::path spec = WriteScratchSpec(dir.path(), kSlowFixture, kSlowRun);
  const fs::path first_dir = dir.path() / "first", second_dir = dir.path() / "second";
  fs::create_directories(first_dir);
  fs::create_directories(second_dir);
  Running first({"run", spec.string(), "--cache-dir", cache.string()}, first_dir);
  ASSERT_TRUE(WaitForPartial(cache));
  Running second({"run", spec.string(), "--cache-dir", cache.string()}, second_dir);
  const std::string waiting =
      "perfengine: waiting for another process to generate the fixture for work (hash_pair, 7500000 targets); it is "
      "cached for later runs\n";
  for (int i = 0; i < 600 && ReadAll(second_dir / "perfengine.err") != waiting; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(second.pid(), SIGINT);
  ::kill(first.pid(), SIGINT);
  const Finished f = second.Wait();
  first.Wait();
  EXPECT_EQ(f.err, waiting);
  EXPECT_EQ(f.exit, 130) << f.out;
}

}  // namespace
}  // namespace pe::e2e

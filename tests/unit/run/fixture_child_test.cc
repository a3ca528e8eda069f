#include "engine/run/fixture_child.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace pe::run {
namespace {

namespace fs = std::filesystem;

// Running means neither gone nor a zombie waiting for a reaper.
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// Issue 26 (M1): an engine killed with SIGKILL cannot kill its generator, which went on
// writing the cache as an orphan. The kernel kills it now (PR_SET_PDEATHSIG).
TEST(FixtureChild, TheGeneratorDiesWithAnEngineKilledBySigkill) {
  const fs::path pid_file = fs::temp_directory_path() / ("pe-fixture-child-" + std::to_string(::getpid()));
  fs::remove(pid_file);
  const pid_t engine = ::fork();
  ASSERT_GE(engine, 0);
  if (engine == 0) {
    MakeInChild([&]() -> fs::path {
      std::ofstream(pid_file.string() + ".part") << ::getpid();
      fs::rename(pid_file.string() + ".part", pid_file);
      ::pause();  // a generator that takes long
      return {};
    });
    ::_exit(0);
  }
  pid_t generator = 0;
  for (int i = 0; i < 1000 && generator == 0; ++i) {
    std::ifstream(pid_file) >> generator;
    if (generator == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  fs::remove(pid_file);
  ASSERT_GT(generator, 0);
  ::kill(engine, SIGKILL);
  ::waitpid(engine, nullptr, 0);
  for (int i = 0; i < 500 && Running(generator); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(Running(generator)) << "the generator outlived its engine by 5 s";
  ::kill(generator, SIGKILL);
}

// A generator killed before it answered leaves what it was writing; the engine cleans it once
// the generator is gone (the fixture cache's partial, issue 26 M3).
TEST(FixtureChild, AfterAKilledGeneratorIsGoneItsLeftoversAreCleaned) {
  int cleaned = 0;
  try {
    MakeInChild(
        []() -> fs::path {
          ::raise(SIGKILL);
          return {};
        },
        [&] { ++cleaned; });
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the generator was killed by signal 9 (Killed)");
  }
  EXPECT_EQ(cleaned, 1);
  // One that answered leaves nothing to clean.
  EXPECT_EQ(MakeInChild([] { return fs::path("/made"); }, [&] { ++cleaned; }), "/made");
  EXPECT_EQ(cleaned, 1);
}

// Waits (up to a minute, only so a broken build cannot hang the suite) until `path` exists.
bool AwaitFile(const fs::path& path) {
  for (int i = 0; i < 6000; ++i) {
    if (fs::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Issue 27: independent fixtures are made side by side. Each of the first two makers waits for
// the other to have started, so they finish only if both children run at once; the third may
// start only once one of them is done (at most two at a time).
TEST(FixtureChild, ChildrenRunSideBySideUpToTheLimit) {
  const fs::path dir = fs::temp_directory_path() / ("pe-fixture-children-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto pair = [&](int self, int other) {
    return [=]() -> fs::path {
      std::ofstream(dir / ("started-" + std::to_string(self))) << "x";
      if (!AwaitFile(dir / ("started-" + std::to_string(other)))) throw std::runtime_error("ran alone");
      std::ofstream(dir / ("done-" + std::to_string(self))) << "x";
      return dir / std::to_string(self);
    };
  };
  const std::function<fs::path()> makes[] = {pair(0, 1), pair(1, 0), [&]() -> fs::path {
                                               const bool one_done =
                                                   fs::exists(dir / "done-0") || fs::exists(dir / "done-1");
                                               if (!one_done)
                                                 throw std::runtime_error("started while two were running");
                                               return dir / "2";
                                             }};
  std::vector<std::size_t> started;
  const auto made = MakeInChildren(makes, 2, {}, [&](std::size_t i) { started.push_back(i); });
  ASSERT_EQ(made.size(), 3u);
  for (std::size_t i = 0; i < made.size(); ++i) {
    EXPECT_EQ(made[i].state, MadeInChild::State::kMade) << i << ": " << made[i].error;
    EXPECT_EQ(made[i].dir, dir / std::to_string(i));
  }
  EXPECT_EQ(started, (std::vector<std::size_t>{0, 1, 2}));
  fs::remove_all(dir);
}

// After a failure no further maker starts; the outcomes stay in the makers' order, with the
// error's text and how a killed child died.
TEST(FixtureChild, AFailureStopsFurtherStartsAndOutcomesKeepTheirOrder) {
  int cleaned = 0;
  const std::function<fs::path()> makes[] = {
      [] { return fs::path("/first"); },
      []() -> fs::path { throw std::runtime_error("cannot write /x: No space left on device"); },
      [] { return fs::path("/never"); }};
  const auto made = MakeInChildren(makes, 1, [&] { ++cleaned; });
  ASSERT_EQ(made.size(), 3u);
  EXPECT_EQ(made[0].state, MadeInChild::State::kMade);
  EXPECT_EQ(made[0].dir, "/first");
  EXPECT_EQ(made[1].state, MadeInChild::State::kFailed);
  EXPECT_EQ(made[1].error, "cannot write /x: No space left on device");
  EXPECT_EQ(made[2].state, MadeInChild::State::kNotStarted);
  EXPECT_EQ(cleaned, 0);  // every child answered

  const std::function<fs::path()> killed[] = {[]() -> fs::path {
                                                ::raise(SIGKILL);
                                                return {};
                                              },
                                              [] { return fs::path("/second"); }};
  const auto both = MakeInChildren(killed, 2, [&] { ++cleaned; });
  EXPECT_EQ(both[0].state, MadeInChild::State::kFailed);
  EXPECT_EQ(both[0].error, "the generator was killed by signal 9 (Killed)");
  EXPECT_EQ(both[1].state, MadeInChild::State::kMade);
  EXPECT_EQ(cleaned, 1);
}

}  // namespace
}  // namespace pe::run

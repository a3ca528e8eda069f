#include "engine/run/fixture_child.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

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

}  // namespace
}  // namespace pe::run

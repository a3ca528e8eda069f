#include "tests/unit/runner/process_table.h"

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include "engine/runner/spawn.h"

namespace pe::testing {

using runner::SpawnerPid;
namespace {

struct StatFields {
  pid_t ppid = 0;
  pid_t pgrp = 0;
};

// /proc/PID/stat is "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses,
// so fields are read after the last ')'.
bool ReadStat(const std::filesystem::path& dir, StatFields* fields) {
  std::ifstream in(dir / "stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  auto close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 1));
  std::string state;
  return static_cast<bool>(rest >> state >> fields->ppid >> fields->pgrp);
}

int Count(const std::function<bool(const StatFields&)>& match) {
  int count = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    StatFields fields;
    if (ReadStat(entry.path(), &fields) && match(fields)) ++count;
  }
  return count;
}

}  // namespace

int CountInGroup(pid_t pgid) {
  return Count([pgid](const StatFields& f) { return f.pgrp == pgid; });
}

int CountChildrenOf(pid_t ppid) {
  return Count([ppid](const StatFields& f) { return f.ppid == ppid; });
}

bool Gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

int CountLeftOver() {
  int count = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const pid_t spawner = SpawnerPid();
    count = CountChildrenOf(::getpid()) - (spawner > 0 ? 1 : 0) + (spawner > 0 ? CountChildrenOf(spawner) : 0);
    if (count == 0) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return count;
}

}  // namespace pe::testing

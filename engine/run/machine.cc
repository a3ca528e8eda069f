#include "engine/run/machine.h"

#include <fmt/format.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

namespace pe::run {

using model::MachineInfo;

namespace {

// The value after "key:" on the first line of `path` that starts with key.
std::string FieldOf(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return "";
}

}  // namespace

MachineInfo ReadMachineInfo() {
  MachineInfo m;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  utsname u{};
  if (::uname(&u) == 0) m.os = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  m.cpu = FieldOf("/proc/cpuinfo", "model name");
  m.cores = static_cast<int>(std::thread::hardware_concurrency());
  const std::string mem = FieldOf("/proc/meminfo", "MemTotal");
  if (!mem.empty()) m.memory_kib = std::stoll(mem);
  return m;
}

std::string NowIso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::vector<int> UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

}  // namespace pe::run

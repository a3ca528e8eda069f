#include "engine/run/machine_load.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <sstream>

namespace pe::run {

using model::RoundLoad;
namespace {

// Plain read(2): this runs every round, and iostreams cost more than the read itself.
std::string ReadSmallFile(const char* path) {
  std::string text;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

// "cpu MHz" in /proc/cpuinfo is live only with a cpufreq driver or APERF/MPERF counters;
// without them (VMs like this project's) it is the nominal clock, fixed for the boot, and
// reading /proc/cpuinfo (tens of microseconds) every round would be waste.
std::optional<double> CpuMhz() {
  static const std::string first = ReadSmallFile("/proc/cpuinfo");
  static const bool live =
      ::access("/sys/devices/system/cpu/cpu0/cpufreq", F_OK) == 0 || first.find(" aperfmperf") != std::string::npos;
  if (live) return ParseCpuMhz(ReadSmallFile("/proc/cpuinfo"));
  static const std::optional<double> fixed = ParseCpuMhz(first);
  return fixed;
}

double EngineCpuSeconds() {
  rusage self = {};
  ::getrusage(RUSAGE_SELF, &self);
  return self.ru_utime.tv_sec + self.ru_utime.tv_usec / 1e6 + self.ru_stime.tv_sec + self.ru_stime.tv_usec / 1e6;
}

}  // namespace

std::optional<CpuTicks> ParseProcStat(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("cpu ", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) return std::nullopt;
    fields >> steal;  // absent before Linux 2.6.11
    CpuTicks ticks;
    ticks.busy = user + nice + system + irq + softirq;
    ticks.idle = idle + iowait;
    ticks.steal = steal;
    return ticks;
  }
  return std::nullopt;
}

std::optional<double> ParseLoadAvg(const std::string& text) {
  std::istringstream in(text);
  double load = 0;
  if (in >> load) return load;
  return std::nullopt;
}

std::optional<double> ParseCpuMhz(const std::string& cpuinfo) {
  std::istringstream lines(cpuinfo);
  std::string line;
  double sum = 0;
  int count = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    try {
      sum += std::stod(line.substr(colon + 1));
      ++count;
    } catch (const std::exception&) {
    }
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

RoundLoad LoadBetween(const CpuTicks& before, const CpuTicks& after, double own_cpu_s, double ticks_per_s) {
  RoundLoad load;
  if (after.total() <= before.total() || ticks_per_s <= 0) return load;
  const double total = static_cast<double>(after.total() - before.total());
  const double busy_s = static_cast<double>(after.busy - before.busy) / ticks_per_s;
  const double steal = static_cast<double>(after.steal - before.steal);
  load.steal_share = steal / total;
  // Capacity from the ticks themselves, not wall x cores: the two disagree by rounding at the
  // tick, and the share must stay within 0..1.
  const double capacity_s = total / ticks_per_s;
  load.others_share = std::clamp((busy_s - own_cpu_s) / capacity_s, 0.0, 1.0);
  return load;
}

void LoadProbe::Begin() {
  ticks_ = ParseProcStat(ReadSmallFile("/proc/stat"));
  engine_cpu_s_ = EngineCpuSeconds();
}

RoundLoad LoadProbe::End(int round, double children_cpu_s) {
  RoundLoad load;
  const auto after = ParseProcStat(ReadSmallFile("/proc/stat"));
  const double engine_cpu_s = EngineCpuSeconds();
  if (ticks_ && after) {
    const double own = children_cpu_s + (engine_cpu_s - engine_cpu_s_);
    load = LoadBetween(*ticks_, *after, own, static_cast<double>(::sysconf(_SC_CLK_TCK)));
  }
  // The next round's interval starts here.
  ticks_ = after;
  engine_cpu_s_ = engine_cpu_s;
  load.round = round;
  load.load_1m = ParseLoadAvg(ReadSmallFile("/proc/loadavg"));
  load.cpu_mhz = CpuMhz();
  return load;
}

}  // namespace pe::run

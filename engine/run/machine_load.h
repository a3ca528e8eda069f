// How busy the machine was while a round ran, so a result measured on a saturated or
// overcommitted host says so. From /proc/stat (CPU time of every process, and steal: time a
// hypervisor gave our virtual CPUs to someone else), minus what the round's own children and
// the engine used; the 1-minute load average; the CPU clock where the kernel reports it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/model/result.h"

namespace pe::run {

// The aggregate "cpu" line of /proc/stat, in clock ticks.
struct CpuTicks {
  std::uint64_t busy = 0;  // user + nice + system + irq + softirq (guest is inside user)
  std::uint64_t idle = 0;  // idle + iowait
  std::uint64_t steal = 0;
  std::uint64_t total() const { return busy + idle + steal; }
};

// Parses the text of /proc/stat; nullopt when it has no aggregate cpu line.
std::optional<CpuTicks> ParseProcStat(const std::string& text);
// The first field of /proc/loadavg; nullopt when unreadable.
std::optional<double> ParseLoadAvg(const std::string& text);
// The mean of the "cpu MHz" lines of /proc/cpuinfo; nullopt when there are none (many ARM and
// virtual machines do not report a clock).
std::optional<double> ParseCpuMhz(const std::string& cpuinfo);

// The CPU shares of one interval: steal, and the busy time not accounted for by `own_cpu_s`
// (the CPU time the round's children and the engine used in it), over all CPU time in it.
// `ticks_per_s` is sysconf(_SC_CLK_TCK). Empty shares when no tick passed.
model::RoundLoad LoadBetween(const CpuTicks& before, const CpuTicks& after, double own_cpu_s, double ticks_per_s);

// Samples the machine at the start of the first round and turns each interval into a
// RoundLoad at a round's end, which also starts the next round's interval (one /proc/stat read
// a round, not two). Fields it cannot read stay empty; nothing here fails the run.
class LoadProbe {
 public:
  void Begin();
  // `children_cpu_s`: user + sys of every sample the round measured; the engine's own CPU time
  // since the interval began is counted as well.
  model::RoundLoad End(int round, double children_cpu_s);

 private:
  std::optional<CpuTicks> ticks_;
  double engine_cpu_s_ = 0;
};

}  // namespace pe::run

#include "engine/report/machine_load_line.h"

#include <fmt/format.h>

#include <algorithm>

namespace pe::report {

using model::RoundLoad;
using model::RunResult;

std::string BusyMachineLine(const RunResult& result) {
  double load = 0, others = 0, steal = 0;
  int busy_rounds = 0;
  for (const RoundLoad& round : result.load) {
    load = std::max(load, round.load_1m.value_or(0));
    others = std::max(others, round.others_share.value_or(0));
    steal = std::max(steal, round.steal_share.value_or(0));
    const bool overloaded = result.machine.cores > 0 && round.load_1m.value_or(0) > result.machine.cores;
    if (overloaded || round.steal_share.value_or(0) > kBusyStealShare) ++busy_rounds;
  }
  if (busy_rounds == 0) return "";
  return fmt::format(
      "note: the machine was busy in {} of {} round{} (load average up to {:.1f} on {} core{}, other processes "
      "up to {:.0f}% of CPU time, steal up to {:.1f}%): timings may be slower and noisier than on an idle "
      "machine; `perfengine explain` shows each round",
      busy_rounds, result.load.size(), result.load.size() == 1 ? "" : "s", load, result.machine.cores,
      result.machine.cores == 1 ? "" : "s", others * 100, steal * 100);
}

}  // namespace pe::report

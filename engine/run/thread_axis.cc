#include "engine/run/thread_axis.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

namespace pe::run {

std::vector<std::string> ThreadAxisWarnings(const spec::Spec& spec, int cores) {
  if (cores <= 0) return {};
  std::map<std::string, long> most;  // sweep -> its largest threads value
  for (const spec::Workload& w : spec.workloads) {
    for (const auto& [axis, value] : w.point) {
      if (axis != "threads") continue;
      long n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec == std::errc() && end == value.data() + value.size()) most[w.sweep] = std::max(most[w.sweep], n);
    }
  }
  std::vector<std::string> warnings;
  for (const spec::Sweep& s : spec.sweeps) {  // in spec order
    const auto it = most.find(s.name);
    if (it == most.end() || it->second <= cores) continue;
    warnings.push_back(
        fmt::format("sweep '{}' runs up to {} threads on a {}-core machine: past {} threads its "
                    "throughput and scaling efficiency measure contention for cores, not scaling",
                    s.name, it->second, cores, cores));
  }
  return warnings;
}

}  // namespace pe::run

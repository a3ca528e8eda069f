#include "engine/explain/select.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/base/error.h"
#include "engine/base/suggest.h"

namespace pe::explain {

using model::RunResult;
using model::WorkloadResult;

std::vector<const WorkloadResult*> SelectWorkloads(const RunResult& result, const std::vector<std::string>& names,
                                                   const std::string& file) {
  std::vector<std::string> known;
  for (const WorkloadResult& w : result.workloads) known.push_back(w.name);
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw base::UsageError(
          fmt::format("--workload '{}': no such workload in {}{}", name, file, base::DidYouMean(name, known)));
    }
  }
  std::vector<const WorkloadResult*> selected;
  for (const WorkloadResult& w : result.workloads) {
    if (names.empty() || std::find(names.begin(), names.end(), w.name) != names.end()) {
      selected.push_back(&w);
    }
  }
  return selected;
}

}  // namespace pe::explain

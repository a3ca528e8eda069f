// Which workloads of a results file `--workload` names.
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::explain {

// The workloads named in `names`, in the file's order; all of them when `names` is empty.
// An unknown name throws base::UsageError: "--workload 'wrok': no such workload in
// results.json (did you mean 'work'?)"; `file` names the results file in that message.
std::vector<const model::WorkloadResult*> SelectWorkloads(const model::RunResult& result,
                                                          const std::vector<std::string>& names,
                                                          const std::string& file);

}  // namespace pe::explain

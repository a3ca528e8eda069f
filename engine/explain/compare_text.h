// The report `perfengine compare` prints: a table of workloads, each workload's figures
// worked out, every threshold line and a one-line summary.
#pragma once

#include <string>

#include "engine/explain/compare.h"
#include "engine/model/result.h"

namespace pe::explain {

// `old_file` and `new_file` are the paths as the user gave them.
std::string CompareText(const model::RunResult& old_run, const std::string& old_file, const model::RunResult& new_run,
                        const std::string& new_file, const RunComparison& comparison);

}  // namespace pe::explain

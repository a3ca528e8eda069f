// Facts about the machine a run measured on, recorded in every results file.
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::run {

model::MachineInfo ReadMachineInfo();
std::string NowIso8601();  // UTC, second resolution

// The CPUs this process may run on (sched_getaffinity), in increasing order.
std::vector<int> UsableCpus();

}  // namespace pe::run

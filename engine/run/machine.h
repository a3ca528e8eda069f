// Facts about the machine a run measured on, recorded in every results file.
#pragma once

#include <string>

#include "engine/model/result.h"

namespace pe::run {

model::MachineInfo ReadMachineInfo();
std::string NowIso8601();  // UTC, second resolution

}  // namespace pe::run

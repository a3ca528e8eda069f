// The one line every human-readable report prints when the machine was busy while the run
// measured (the per-round figures are in the results file's "load" and in `explain`).
#pragma once

#include <string>

#include "engine/model/result.h"

namespace pe::report {

// Steal above this share of CPU time means a hypervisor took a noticeable part of our CPUs.
inline constexpr double kBusyStealShare = 0.03;

// "" when the machine was not busy: no round's 1-minute load average above the core count,
// no round with steal above kBusyStealShare, or no load recorded (older results files).
std::string BusyMachineLine(const model::RunResult& result);

}  // namespace pe::report

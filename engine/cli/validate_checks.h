// The checks `validate` makes by running something, which parsing alone cannot: every git
// revision a contender names exists, and every contender's startup command exits 0 (a shell
// contender's default `sh --version` once failed only at run time).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"
#include "engine/spec/spec.h"

namespace pe::cli {

// One SpecError per problem, each at the key at fault; empty when all is well. Startup
// commands run with a 10 s timeout, their output discarded; contenders built from git are
// not run (their programs exist only once built).
std::vector<spec::SpecError> CheckByRunning(const spec::Spec& spec, runner::ProcessRunner& runner);

// A spec whose gate can never fail: no gated workload has a threshold in force that some
// figure could miss (none set, or only bars every figure meets, such as min_win_rate = 0), and
// no sweep has a gate. The warning validate prints (exit 0, or 2 with --strict); nullopt when
// something is gated. A copied CI example without [thresholds] once passed a 6% regression.
std::optional<std::string> GatesNothingWarning(const spec::Spec& spec);

}  // namespace pe::cli

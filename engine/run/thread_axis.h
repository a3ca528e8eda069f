// A sweep whose `threads` axis goes past the machine's cores measures contention for cores,
// not the program's scaling: say so before the run, on stderr (docs/sweeps.md).
#pragma once

#include <string>
#include <vector>

#include "engine/spec/spec.h"

namespace pe::run {

// One warning per sweep whose largest `threads` value exceeds `cores`, e.g.
// "sweep 'dense' runs up to 8 threads on a 2-core machine: past 2 threads its throughput and
// scaling efficiency measure contention for cores, not scaling".
std::vector<std::string> ThreadAxisWarnings(const spec::Spec& spec, int cores);

}  // namespace pe::run

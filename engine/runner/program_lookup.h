// Finding a command's program before it is spawned: engine/process/program_lookup.h, below the
// runner so that generators' helpers find theirs the same way. The runner's names for it, as the
// engine's code spells them.
#pragma once

#include "engine/process/program_lookup.h"

namespace pe::runner {

using process::EnginePathVariable;
using process::ResolvedProgram;
using process::ResolveProgram;

}  // namespace pe::runner

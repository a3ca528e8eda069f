// The end of every run of a spawned child, shared by the runner's Run and RunHeld: wait until it
// exits, its deadline passes or the engine is interrupted; kill its process group unless it
// exited; reap it. Nothing of the child is alive once it returns.
#pragma once

#include "engine/runner/process_runner.h"
#include "engine/runner/spawn.h"
#include "engine/runner/wait_for_exit.h"

namespace pe::runner {

struct Reaped {
  Outcome outcome;  // ReapChild's: the child's own exit, signal and resource figures
  WaitEnd end = WaitEnd::kExited;
};

// `timeout_s` > 0 is counted from spawned.start; 0 waits without a deadline. A child killed by
// a signal after an interrupt counts as interrupted (end == kInterrupted) even when it exited
// first: the handler may have killed its group before poll() noticed the wake-up.
Reaped WaitKillAndReap(Spawned& spawned, double timeout_s);

}  // namespace pe::runner

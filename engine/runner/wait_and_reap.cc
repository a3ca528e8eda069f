#include "engine/runner/wait_and_reap.h"

#include <chrono>
#include <optional>

#include "engine/process/interrupt.h"
#include "engine/runner/process_group.h"

namespace pe::runner {

Reaped WaitKillAndReap(Spawned& spawned, double timeout_s) {
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> deadline;
  if (timeout_s > 0) {
    deadline = spawned.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  }
  Reaped reaped;
  reaped.end = WaitForExit(spawned.done.get(), deadline);
  if (reaped.end != WaitEnd::kExited) KillGroup(KnownPid(spawned));
  // The spawner kills what the child left behind (helpers in its group, daemons that escaped
  // with setsid) before it reports, so nothing of this run outlives the call.
  reaped.outcome = ReapChild(spawned);
  if (reaped.end == WaitEnd::kExited && interrupt::Interrupted() &&
      reaped.outcome.status == Outcome::Status::kSignalled) {
    reaped.end = WaitEnd::kInterrupted;
  }
  return reaped;
}

}  // namespace pe::runner

// Duet rounds (`[run] order = "duet"`, docs/reducing-variance.md): within a round every contender
// runs at the same time, each pinned to a core of its own, so interference from the rest of the
// machine (a neighbour's build, a noisy VM host) lands on both at once and cancels in the pair's
// ratio. Bulej, Horky, Tuma, Farquet & Prokopec, "Duet Benchmarking: Improving Measurement
// Accuracy in the Cloud", ICPE 2020 (and Empirical Software Engineering 25, 2020). Each
// contender's time is still its own wait4 accounting. Opt-in: the default stays "alternate".
#pragma once

#include <functional>
#include <vector>

#include "engine/run/machine.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/spec.h"
#include "engine/spec/spec_error.h"

namespace pe::run {

// Why `spec`'s order = "duet" cannot be honoured with `usable_cores` cores, one error each at
// [run] order: fewer cores than contenders, a serve workload (a server and its load client are
// more than one thread each), a workload whose `threads` axis is above 1 or a contender that
// declares `threads` above 1 (two threads of one contender would share, or leave, its core).
// Empty when the order is not "duet" or nothing stands in its way.
std::vector<spec::SpecError> DuetRefusals(const spec::Spec& spec, int usable_cores);

// Throws spec::SpecError::Several(DuetRefusals(spec, UsableCpus().size())) when there is any.
void CheckDuet(const spec::Spec& spec);

// Runs `commands` at the same time (command i already carries its cpu) through `runner`, which
// must allow concurrent Run calls (the system runner does: one spawner minder per child), and
// returns each one's outcome, in the same order. `ended(i)`, when given, runs in command i's own
// thread as soon as its Run returned, while the others may still run: what it reads of command
// i's files (its counters) is read before a rival that is still running could rewrite them.
std::vector<runner::Outcome> RunAtOnce(runner::ProcessRunner& runner, const std::vector<runner::Command>& commands,
                                       const std::function<void(size_t)>& ended = {});

namespace internal {
class Executor;

// One duet round of `w`: the contenders in `order` all at once, the i-th pinned to the i-th
// usable core; each one's sample from its own wait4, and its counters (docs/counters.md) from
// the file as it was when its own process ended. False after a failure (recorded).
bool RunDuetRound(Executor& ex, const spec::Workload& w, int round, const std::vector<size_t>& order,
                  double* children_cpu_s);
}  // namespace internal

}  // namespace pe::run

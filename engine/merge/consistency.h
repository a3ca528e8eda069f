// Whether a shard's samples can be what one complete run of its settings wrote. merge
// recomputes every figure from the samples (a shard file comes from a job that ran the pull
// request's code, so its stored figures prove nothing); these checks refuse the samples a
// complete run cannot have left, e.g. a shard cut down to its favourable rounds.
#pragma once

#include <string>

#include "engine/model/result.h"

namespace pe::merge {

// The first way the samples of `result` differ from a complete run's, or "" when none does.
// Per workload without a failure: every sample is of a contender of the run; each contender
// has one timed sample per round, in the same rounds as the others (pairing), rounds 0 to
// R - 1 without a gap, warm-ups exactly the first settings.warmup_rounds; R is at least
// warmup_rounds + rounds and at most warmup_rounds + max(rounds, max_rounds); a process
// workload has thresholds.rss_runs RSS-only runs of each contender. E.g.
// "workload 'alpha': 'candidate' has 4 measured rounds, fewer than the 7 the settings say".
std::string SamplesProblem(const model::RunResult& result);

}  // namespace pe::merge

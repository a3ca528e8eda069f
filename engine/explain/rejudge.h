// A results file is data: whatever wrote it (a job that ran a pull request's code, an editor),
// its stored figures, checks and verdict are claims. explain shows the verdict the samples give.
#pragma once

#include "engine/model/result.h"

namespace pe::explain {

// `result` with every figure computed again from its samples by engine/analysis, sweeps fitted
// again, and the gate's verdict on those (as `run` computes them after its last round). A
// regression the file records as accepted (--accept-regression) stays accepted: that is a
// decision, not a figure.
model::RunResult Rejudged(const model::RunResult& result);

}  // namespace pe::explain

// Figures across the points of a sweep: scaling efficiency over threads and the fitted cost
// exponent over scale, per contender and configuration (the other axes held fixed).
#pragma once

#include "engine/model/result.h"

namespace pe::analysis {

// Fills fits and efficiencies of every sweep in result.sweeps from its point workloads'
// summaries and samples. Needs Analyze() to have run first.
void AnalyzeSweeps(model::RunResult& result);

}  // namespace pe::analysis

#include "engine/explain/rejudge.h"

#include "engine/analysis/analyze.h"
#include "engine/analysis/sweeps.h"
#include "engine/gate/gate.h"

namespace pe::explain {

model::RunResult Rejudged(const model::RunResult& result) {
  model::RunResult again = result;
  for (model::SweepResult& sweep : again.sweeps) {
    sweep.fits.clear();
    sweep.efficiencies.clear();
  }
  analysis::Analyze(again);
  analysis::AnalyzeSweeps(again);
  again.verdict = gate::Judge(again);
  if (result.verdict.accepted) gate::Accept(again.verdict, result.verdict.accepted_by);
  return again;
}

}  // namespace pe::explain

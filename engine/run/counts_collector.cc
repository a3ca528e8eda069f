#include "engine/run/counts_collector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>

#include "engine/gate/gate.h"
#include "engine/measure/allocations.h"
#include "engine/measure/instructions.h"
#include "engine/measure/profile.h"
#include "engine/measure/where_the_time_went.h"
#include "engine/model/threshold_table.h"
#include "engine/runner/interrupt.h"

namespace pe::run::internal {

using model::Check;
using model::ContenderSummary;
using model::WorkloadResult;

bool WantsCount(const spec::Spec& spec, const spec::Workload& w, const model::Thresholds& t, std::string_view count) {
  if (w.startup || w.serve) return false;
  if (count == "instructions" && spec.measure_instructions) return true;
  if (count == "allocations" && spec.measure_allocations) return true;
  return std::any_of(std::begin(model::kThresholdRows), std::end(model::kThresholdRows),
                     [&](const model::ThresholdRow& row) { return row.count == count && (t.*row.bar).has_value(); });
}

bool CountsCollector::Collect() {
  const spec::Spec& spec = ex_.spec();
  for (const spec::Workload* w : workloads_) {
    const model::Thresholds& t = ex_.ResultFor(*w).thresholds;
    const bool instructions = WantsCount(spec, *w, t, "instructions");
    const bool allocations = WantsCount(spec, *w, t, "allocations");
    if (!instructions && !allocations) continue;
    for (const spec::Contender& c : spec.contenders) {
      ContenderSummary counts;
      counts.contender = c.name;
      std::vector<std::string> notes;
      if (instructions) {
        const ExecutionPaths paths = ex_.PathsFor(c, *w);
        if (!ex_.Prepare(c, *w, paths)) return false;  // the spec's hooks, as around every execution
        const measure::InstructionCount n = measure::CountInstructions(ex_.BuildCommand(c, *w, paths), ex_.runner());
        if (!ex_.Cleanup(c, *w, paths)) return false;
        counts.instructions = n.count;
        counts.instructions_source = n.source;
        if (!n.note.empty()) notes.push_back(n.note);
      }
      if (allocations) {
        const ExecutionPaths paths = ex_.PathsFor(c, *w);
        if (!ex_.Prepare(c, *w, paths)) return false;
        const measure::AllocationCount a = measure::CountAllocations(ex_.BuildCommand(c, *w, paths), ex_.runner());
        if (!ex_.Cleanup(c, *w, paths)) return false;
        counts.allocation_calls = a.calls;
        counts.allocated_bytes = a.bytes;
        if (!a.note.empty()) notes.push_back(a.note);
      }
      counts.measure_note = fmt::format("{}", fmt::join(notes, "; "));
      ex_.ResultFor(*w).summaries.push_back(std::move(counts));
      if (interrupt::Interrupted()) return ex_.Interrupted();
    }
  }
  return true;
}

void CountsCollector::ProfileRegressions() {
  const spec::Spec& spec = ex_.spec();
  const model::Verdict& verdict = ex_.result().verdict;
  for (const spec::Workload* w : workloads_) {
    // A counter the contender reports (docs/counters.md) has no row of the threshold table; a
    // missed one is profiled too: extra Ruby objects are extra work in some C function.
    const std::string counter_prefix = fmt::format("{}.", model::kCountersKey);
    const bool regressed = std::any_of(verdict.checks.begin(), verdict.checks.end(), [&](const Check& c) {
      return c.workload == w->name && !c.passed &&
             (gate::ProfileExplains(c) || c.threshold.starts_with(counter_prefix));
    });
    if (!regressed) continue;
    const spec::Contender* b = spec.FindContender(spec.baseline);
    const spec::Contender* k = spec.FindContender(spec.candidate);
    const measure::ProfileResult base =
        measure::ProfileCommand(ex_.BuildCommand(*b, *w, ex_.PathsFor(*b, *w)), ex_.runner());
    const measure::ProfileResult cand =
        measure::ProfileCommand(ex_.BuildCommand(*k, *w, ex_.PathsFor(*k, *w)), ex_.runner());
    WorkloadResult& wr = ex_.ResultFor(*w);
    for (const measure::FunctionDelta& d : measure::WhereTheTimeWent(base.functions, cand.functions, 8)) {
      // A few instructions in a stub or the loader are not where time went.
      if (d.share_delta < 0.001 && d.cand_share < 0.005) continue;
      wr.profile.push_back({d.function, d.base_cost, d.cand_cost, d.base_share, d.cand_share});
    }
    wr.profile_note = !base.note.empty()   ? base.note
                      : !cand.note.empty() ? cand.note
                                           : "callgrind: self instructions per function";
  }
}

}  // namespace pe::run::internal

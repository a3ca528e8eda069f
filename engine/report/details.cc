#include "engine/report/details.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/model/pairs.h"
#include "engine/model/samples.h"
#include "engine/units/units.h"

namespace pe::report {

using model::Comparison;
using model::ContenderSummary;
using model::FunctionShift;
using model::RunResult;
using model::ServeFigures;
using model::SummaryOf;
using model::WorkloadResult;

namespace {

std::string Count(std::optional<std::uint64_t> n) { return n ? fmt::format("{}", *n) : "-"; }

}  // namespace

std::vector<std::string> MeasureLines(const RunResult& result) {
  std::vector<std::string> lines;
  // Each candidate against the baseline (model/pairs.h); a further candidate's line names it.
  const bool several = model::SeveralCandidates(result);
  for (const WorkloadResult& w : result.workloads) {
    for (const std::string& candidate : model::Candidates(result)) {
      const ContenderSummary* b = SummaryOf(w, result.baseline);
      const ContenderSummary* k = SummaryOf(w, candidate);
      const Comparison* found = candidate == result.candidate && w.comparison
                                    ? &*w.comparison
                                    : model::FindComparison(w, result.baseline, candidate);
      if (!b || !k || !found || w.startup || w.kind == WorkloadResult::Kind::kServe) continue;
      const Comparison& c = *found;
      const bool counted = b->instructions || k->instructions || b->allocation_calls || k->allocation_calls ||
                           !b->measure_note.empty() || !k->measure_note.empty() || !c.counters.empty();
      const bool regression_gated = w.thresholds.max_slowdown.has_value();
      if (!counted && !regression_gated) continue;
      std::vector<std::string> parts;
      // The medians only: the figure max_slowdown reads (the median per-round ratio) is the
      // table's, beside its verdict, and a ratio of these medians beside it would be a second
      // answer to the same question (issue 42 item 1); explain shows both.
      parts.push_back(fmt::format("CPU {} -> {} (medians)", units::FormatSeconds(b->median_cpu_s),
                                  units::FormatSeconds(k->median_cpu_s)));
      if (b->instructions || k->instructions) {
        parts.push_back(
            fmt::format("instructions {} -> {}{}{}", Count(b->instructions), Count(k->instructions),
                        c.instructions_ratio ? fmt::format(" ({}", units::FormatRatio(*c.instructions_ratio)) : " (",
                        fmt::format("{}{})", c.instructions_ratio ? ", " : "", k->instructions_source)));
      }
      if (b->own_instructions || k->own_instructions) {
        parts.push_back(fmt::format(
            "own-code instructions {} -> {}{}", Count(b->own_instructions), Count(k->own_instructions),
            c.own_instructions_ratio ? fmt::format(" ({})", units::FormatRatio(*c.own_instructions_ratio)) : ""));
      }
      if (b->allocation_calls || k->allocation_calls) {
        parts.push_back(
            fmt::format("allocations {} -> {}{}", Count(b->allocation_calls), Count(k->allocation_calls),
                        c.allocations_ratio ? fmt::format(" ({})", units::FormatRatio(*c.allocations_ratio)) : ""));
      }
      // Each declared counter's medians (docs/counters.md), baseline -> candidate.
      for (const model::CounterComparison& cc : c.counters) {
        std::string unit;
        for (const model::Counter& counter : w.counters) {
          if (counter.name == cc.name && !counter.unit.empty()) unit = " " + counter.unit;
        }
        parts.push_back(fmt::format("{} {} -> {}{}", cc.name, cc.baseline, cc.candidate, unit));
      }
      if (!b->measure_note.empty() && b->measure_note == k->measure_note) {
        parts.push_back(fmt::format("both: {}", b->measure_note));
      } else {
        for (const ContenderSummary* s : {b, k}) {
          if (!s->measure_note.empty()) parts.push_back(fmt::format("{}: {}", s->contender, s->measure_note));
        }
      }
      lines.push_back(
          fmt::format("{}{}: {}", w.name, several ? fmt::format(" ({})", candidate) : "", fmt::join(parts, "; ")));
    }
  }
  return lines;
}

std::vector<std::string> ServeLines(const RunResult& result) {
  std::vector<std::string> lines;
  for (const WorkloadResult& w : result.workloads) {
    if (w.kind != WorkloadResult::Kind::kServe) continue;
    for (const ContenderSummary& s : w.summaries) {
      if (!s.serve) continue;
      const ServeFigures& f = *s.serve;
      lines.push_back(fmt::format("{}: {}: p50 {}, p90 {}, p99 {}, max {}; {} requests/s; time-to-ready {}", w.name,
                                  s.contender, units::FormatSeconds(f.p50_s), units::FormatSeconds(f.p90_s),
                                  units::FormatSeconds(f.p99_s), units::FormatSeconds(f.max_s),
                                  units::FormatRate(f.throughput_rps), units::FormatSeconds(f.time_to_ready_s)));
    }
    for (const std::string& note : w.notes) lines.push_back(fmt::format("{}: {}", w.name, note));
  }
  return lines;
}

std::vector<std::string> ProfileLines(const RunResult& result) {
  std::vector<std::string> lines;
  for (const WorkloadResult& w : result.workloads) {
    if (w.profile.empty() && w.profile_note.empty()) continue;
    lines.push_back(fmt::format("{}: where the extra time went ({}):", w.name, w.profile_note));
    if (w.profile.empty()) lines.push_back("  no function's cost grew");
    for (const FunctionShift& f : w.profile) {
      const std::int64_t grew =
          static_cast<std::int64_t>(f.candidate_cost) - static_cast<std::int64_t>(f.baseline_cost);
      if (f.basis == "inclusive") {  // an own function named by the call graph (engine/measure/call_graph.h)
        lines.push_back(fmt::format("  {} ({}): {:+} instructions inclusive ({} -> {}){}", f.function, f.object, grew,
                                    f.baseline_cost, f.candidate_cost, f.detail.empty() ? "" : ", " + f.detail));
        continue;
      }
      if (f.basis == "calls") {  // what the contender counted itself ($PERFENGINE_PROFILE)
        lines.push_back(fmt::format("  {}: {} -> {} calls (counted by the contender){}", f.function, f.baseline_cost,
                                    f.candidate_cost, f.detail.empty() ? "" : ", " + f.detail));
        continue;
      }
      lines.push_back(fmt::format(
          "  {}: {} -> {} instructions (+{}), {} -> {} of the run", f.function, f.baseline_cost, f.candidate_cost,
          static_cast<std::int64_t>(f.candidate_cost) - static_cast<std::int64_t>(f.baseline_cost),
          units::FormatPercent(f.baseline_share), units::FormatPercent(f.candidate_share)));
    }
  }
  return lines;
}

std::vector<std::string> UncomparedLines(const RunResult& result) {
  std::vector<std::string> lines;
  for (const WorkloadResult& w : result.workloads) {
    if (w.parity != "none") continue;
    lines.push_back(
        fmt::format("{}: parity = \"none\": outputs were not compared; these figures compare time only, "
                    "not the same work",
                    w.name));
  }
  return lines;
}

}  // namespace pe::report

#include "engine/report/gated_figures.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/model/samples.h"
#include "engine/model/threshold_table.h"
#include "engine/report/overview.h"
#include "engine/report/text_table.h"
#include "engine/units/units.h"

namespace pe::report {

using model::Check;
using model::Comparison;
using model::ContenderSummary;
using model::RunResult;
using model::ThresholdRow;
using model::WorkloadResult;

namespace {

const Check* FindCheck(const RunResult& result, const WorkloadResult& w, std::string_view key,
                       std::string_view contender) {
  for (const Check& c : result.verdict.checks) {
    if (c.workload == w.name && c.threshold == key && c.contender == contender) return &c;
  }
  return nullptr;
}

// The check's figures in its unit, the bar with the decimals the spec wrote it with, and a
// missed figure with at least as many, raised until it never prints as equal to its bar (as the
// gate's own line does, gate::CheckLine).
class Formatter {
 public:
  explicit Formatter(const Check& c) : c_(c) {
    bar_decimals_ = units::DecimalsToShow(c.bar, Own(c.bar));
    const bool missed = c.state == Check::State::kFail || (!c.passed && !c.skipped);
    if (missed) least_ = bar_decimals_;
    while (missed && c_.unit != Check::Unit::kRate && extra_ < 6 && Figure(c.measured) == Bar()) {
      extra_ = std::max({extra_, Own(c.measured), bar_decimals_}) + 1;
    }
  }
  std::string Figure(double x) const { return Text(x, std::max(Own(x), least_)); }
  std::string Bar() const { return Text(c_.bar, bar_decimals_); }

 private:
  int Own(double x) const { return c_.unit == Check::Unit::kNumber ? 2 : units::RatioDecimals(x); }
  std::string Text(double x, int decimals) const {
    if (std::isinf(x)) return x > 0 ? "unbounded" : "-unbounded";
    if (c_.unit == Check::Unit::kRate) return units::FormatPercent(x);
    decimals = std::max(decimals, extra_);
    return c_.unit == Check::Unit::kNumber ? units::FormatFixed(x, decimals) : units::FormatRatio(x, decimals);
  }
  const Check& c_;
  int bar_decimals_ = 0;
  int least_ = 0;
  int extra_ = 0;
};

std::string ExactCount(const std::optional<std::uint64_t>& n) { return n ? fmt::format("{}", *n) : "-"; }

// The exact values behind a point row's ratio, baseline -> candidate: what the ratio divides.
// Every point row of the threshold table has them (GatedFiguresTest.EveryThresholdRow...).
std::string ExactValues(const ThresholdRow& row, const ContenderSummary* b, const ContenderSummary* k) {
  if (b == nullptr || k == nullptr) return "";
  if (row.point == &Comparison::instructions_ratio) {
    return fmt::format("{} -> {} instructions", ExactCount(b->instructions), ExactCount(k->instructions));
  }
  if (row.point == &Comparison::own_instructions_ratio) {
    return fmt::format("{} -> {} own-code instructions", ExactCount(b->own_instructions),
                       ExactCount(k->own_instructions));
  }
  if (row.point == &Comparison::allocations_ratio) {
    return fmt::format("{} -> {} allocations", ExactCount(b->allocation_calls), ExactCount(k->allocation_calls));
  }
  if (row.point == &Comparison::rss_ratio) {
    return fmt::format("{} -> {}", units::FormatKiB(b->median_max_rss_kib), units::FormatKiB(k->median_max_rss_kib));
  }
  if (row.point == &Comparison::p99_ratio && b->serve && k->serve) {
    return fmt::format("p99 {} -> {}", units::FormatSeconds(b->serve->p99_s), units::FormatSeconds(k->serve->p99_s));
  }
  return "";
}

std::string Verdict(const Check& c, RowStatus& status) {
  if (c.skipped) {
    status = RowStatus::kNone;
    return "skipped";
  }
  switch (c.state) {
    case Check::State::kPass:
      status = c.passed ? RowStatus::kPass : RowStatus::kMissed;
      return c.passed ? "pass" : "missed";
    case Check::State::kFail:
      status = RowStatus::kMissed;
      return "missed";
    case Check::State::kUnresolved:
      // A no-regression check passes while its miss is not shown; a claim does not.
      status = c.passed ? RowStatus::kPass : RowStatus::kUnresolved;
      return c.passed ? "pass (unresolved)" : "unresolved";
  }
  return std::string(kNothing);
}

// One gated check's figure: `exact` the values behind a point figure ("" for none).
GatedFigure FigureOf(const Check& c, std::string_view label, const std::string& exact, const Comparison* comparison,
                     bool shows_wins) {
  GatedFigure f;
  f.threshold = c.threshold;
  f.check = fmt::format("{} ({})", label, c.threshold);
  const Formatter format(c);
  f.bar = fmt::format("{} {}", c.higher_is_better ? "at least" : "at most", format.Bar());
  f.verdict = Verdict(c, f.status);
  if (c.skipped) {
    f.figure = LogicNoteShortForm(c.note);
    return f;
  }
  f.figure = format.Figure(c.measured);
  std::vector<std::string> details;
  if (c.interval)
    details.push_back(fmt::format("{}-{}", format.Figure(c.interval->low), format.Figure(c.interval->high)));
  if (!exact.empty()) details.push_back(exact);
  if (shows_wins && comparison != nullptr)
    details.push_back(fmt::format("{}/{} won", comparison->wins, comparison->rounds));
  if (!details.empty()) f.figure += fmt::format(" ({})", fmt::join(details, "; "));
  return f;
}

// The information figure of a workload no check gates: the median per-round speed-up
// (kFigureRows' "median_round_speedup") with its sequence.
GatedFigure Information(const RunResult& result, const WorkloadResult& w, const Comparison* c,
                        std::string_view check_contender) {
  GatedFigure f;
  f.check = "median per-round speed-up (information)";
  f.status = StatusOf(result, w, check_contender);
  f.verdict = VerdictText(f.status);
  if (c == nullptr || !c->speedup_cs) {
    f.figure = kNothing;
    return f;
  }
  const model::Interval& cs = *c->speedup_cs;
  f.figure = units::FormatRatio(cs.estimate);
  if (std::isfinite(cs.high) && cs.low > 0) {
    f.figure += fmt::format(" ({}-{})", units::FormatRatio(cs.low), units::FormatRatio(cs.high));
  }
  return f;
}

}  // namespace

std::vector<GatedFigure> GatedFigures(const RunResult& result, const WorkloadResult& w, const std::string& candidate,
                                      const Comparison* comparison, std::string_view check_contender) {
  if (!w.failures.empty()) return {};
  std::vector<GatedFigure> figures;
  if (w.gate) {
    const ContenderSummary* b = model::SummaryOf(w, result.baseline);
    const ContenderSummary* k = model::SummaryOf(w, candidate);
    for (const ThresholdRow& row : model::kThresholdRows) {
      const Check* check = FindCheck(result, w, row.key, check_contender);
      if (check == nullptr) continue;  // no bar, or not judged (no comparison)
      const std::string exact = row.burden == Check::Burden::kPoint ? ExactValues(row, b, k) : "";
      figures.push_back(FigureOf(*check, row.label, exact, comparison, row.shows_wins));
    }
    for (const model::Counter& counter : w.counters) {
      const std::string key = fmt::format("{}.{}", model::kCountersKey, counter.name);
      const Check* check = FindCheck(result, w, key, check_contender);
      if (check == nullptr) continue;
      std::string exact;
      if (comparison != nullptr && counter.exact) {
        for (const model::CounterComparison& cc : comparison->counters) {
          if (cc.name == counter.name) exact = fmt::format("{} -> {} {}", cc.baseline, cc.candidate, counter.unit);
        }
      }
      while (!exact.empty() && exact.back() == ' ') exact.pop_back();
      figures.push_back(FigureOf(*check, check->label, exact, comparison, false));
    }
  }
  if (figures.empty()) figures.push_back(Information(result, w, comparison, check_contender));
  return figures;
}

std::string GatedFigureLine(const GatedFigure& f) {
  if (f.bar.empty()) return fmt::format("{} {}: {}", f.check, f.figure, f.verdict);
  return fmt::format("{} {}, {}: {}", f.check, f.figure, f.bar, f.verdict);
}

}  // namespace pe::report

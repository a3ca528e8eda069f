#include "engine/report/speedup_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/model/pairs.h"
#include "engine/model/samples.h"
#include "engine/units/units.h"

namespace pe::report {

using model::Comparison;
using model::Interval;
using model::RunResult;
using model::WorkloadResult;

namespace {

// How many times faster `fast` ran than `slow`: the pair's median per-round speed-up and its
// confidence sequence, turned round when the pair was compared the other way.
struct Speedup {
  double estimate = 0;
  std::optional<Interval> interval;
};

std::optional<Speedup> SpeedupOf(const WorkloadResult& w, const std::string& fast, const std::string& slow) {
  // Stored as (baseline = slow, candidate = fast): baseline time / candidate time already.
  if (const Comparison* c = model::FindComparison(w, slow, fast)) {
    if (c->speedup_cs) return Speedup{c->speedup_cs->estimate, c->speedup_cs};
    return Speedup{c->speedup, std::nullopt};
  }
  if (const Comparison* c = model::FindComparison(w, fast, slow)) {
    if (c->speedup_cs && c->speedup_cs->estimate > 0 && c->speedup_cs->low > 0) {
      Interval turned = *c->speedup_cs;
      turned.estimate = 1 / c->speedup_cs->estimate;
      turned.low = 1 / c->speedup_cs->high;
      turned.high = 1 / c->speedup_cs->low;
      return Speedup{turned.estimate, turned};
    }
    if (c->speedup > 0) return Speedup{1 / c->speedup, std::nullopt};
  }
  return std::nullopt;
}

std::string Figure(const Speedup& s) {
  if (s.interval && std::isfinite(s.interval->low) && std::isfinite(s.interval->high)) {
    return fmt::format("{} [{}, {}]", units::FormatRatio(s.estimate), units::FormatRatio(s.interval->low),
                       units::FormatRatio(s.interval->high));
  }
  // No sequence at all (a file from before them): the ratio of medians, named as descriptive.
  if (!s.interval) return fmt::format("{} [ratio of medians, descriptive]", units::FormatRatio(s.estimate));
  return fmt::format("{} [no interval]", units::FormatRatio(s.estimate));
}

double MedianOf(const WorkloadResult& w, const std::string& contender) {
  const model::ContenderSummary* s = model::SummaryOf(w, contender);
  return s && s->n > 0 ? s->median_wall_s : std::nan("");
}

// "lz4 ran 5.77x [5.10x, 6.31x] faster than gzip, 2.51x [2.40x, 2.63x] than zstd", or empty when
// a pair with the fastest is missing.
std::string FromFastest(const WorkloadResult& w, const std::vector<std::string>& by_speed) {
  std::vector<std::string> parts;
  for (std::size_t i = 1; i < by_speed.size(); ++i) {
    const std::optional<Speedup> s = SpeedupOf(w, by_speed.front(), by_speed[i]);
    if (!s) return "";
    parts.push_back(fmt::format("{} {}than {}", Figure(*s), i == 1 ? "faster " : "", by_speed[i]));
  }
  return fmt::format("{} ran {}", by_speed.front(), fmt::join(parts, ", "));
}

// Each candidate set against the baseline, the faster of the two leading.
std::string AgainstBaseline(const RunResult& result, const WorkloadResult& w,
                            const std::vector<std::string>& by_speed) {
  std::vector<std::string> parts;
  for (const std::string& contender : by_speed) {
    if (contender == result.baseline) continue;
    const std::optional<Speedup> s = SpeedupOf(w, contender, result.baseline);
    if (!s) continue;
    if (s->estimate >= 1) {
      parts.push_back(fmt::format("{} ran {} faster than {}", contender, Figure(*s), result.baseline));
    } else if (const std::optional<Speedup> turned = SpeedupOf(w, result.baseline, contender)) {
      parts.push_back(fmt::format("{} ran {} faster than {}", result.baseline, Figure(*turned), contender));
    }
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::vector<std::string> SpeedupSummary(const RunResult& result) {
  if (!model::SeveralCandidates(result)) return {};
  std::vector<std::string> lines;
  std::optional<double> level;
  for (const WorkloadResult& w : result.workloads) {
    if (w.startup || model::ComparisonsOf(w).empty()) continue;
    for (const Comparison* c : model::ComparisonsOf(w)) {
      if (!level && c->speedup_cs) level = c->speedup_cs->level;
    }
    std::vector<std::string> by_speed = {result.baseline};
    for (const std::string& c : model::Candidates(result)) by_speed.push_back(c);
    by_speed.erase(std::remove_if(by_speed.begin(), by_speed.end(),
                                  [&](const std::string& c) { return std::isnan(MedianOf(w, c)); }),
                   by_speed.end());
    std::stable_sort(by_speed.begin(), by_speed.end(),
                     [&](const std::string& a, const std::string& b) { return MedianOf(w, a) < MedianOf(w, b); });
    if (by_speed.size() < 2) continue;
    std::string line = FromFastest(w, by_speed);
    if (line.empty()) line = AgainstBaseline(result, w, by_speed);
    if (!line.empty()) lines.push_back(fmt::format("{}: {}", w.name, line));
  }
  if (lines.empty()) return {};
  lines.insert(lines.begin(),
               fmt::format("median per-round speed-up [{} confidence sequence], the figure min_speedup reads",
                           units::FormatConfidence(level.value_or(result.settings.confidence))));
  return lines;
}

}  // namespace pe::report

#include "engine/explain/explain_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/explain/detail.h"
#include "engine/explain/rejudge.h"
#include "engine/gate/gate.h"
#include "engine/gate/unresolved.h"
#include "engine/model/final_look.h"
#include "engine/model/names.h"
#include "engine/model/threshold_table.h"
#include "engine/report/confidence_lines.h"
#include "engine/report/overview.h"
#include "engine/report/speedup_summary.h"
#include "engine/report/text.h"
#include "engine/report/text_table.h"
#include "engine/units/units.h"

namespace pe::explain {

using model::Check;
using model::Comparison;
using model::ExitCodeName;
using model::Failure;
using model::FailureKindName;
using model::Interval;
using model::RoundLoad;
using model::RunResult;
using model::Verdict;
using model::WorkloadResult;

namespace {

// A check of a proportion (min_win_rate; the threshold table's unit): its margin is in points.
bool IsRateRow(const Check& c) {
  const model::ThresholdRow* row = model::FindThresholdRow(c.threshold);
  return row != nullptr && row->unit == Check::Unit::kRate;
}

using units::FormatKiB;
using units::FormatPercent;
using units::FormatPValue;
using units::FormatRatio;
using units::FormatSeconds;

// A plain number to `digits` decimals, never "-0.000".
std::string Fixed(double x, int digits) {
  std::string text = fmt::format("{:.{}f}", x, digits);
  if (text.find_first_not_of("-0.") == std::string::npos && text[0] == '-') text.erase(0, 1);
  return text;
}

std::string Optional(const std::optional<double>& seconds) { return seconds ? FormatSeconds(*seconds) : "-"; }

std::string Heading(const std::string& text) { return "\n" + text; }

std::string ThresholdList(const model::Thresholds& t, const model::Settings& settings) {
  std::vector<std::string> parts;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    const std::optional<double>& bar = t.*row.bar;
    if (!bar) continue;
    parts.push_back(
        fmt::format("{} {}", row.key, row.unit == model::Check::Unit::kRate ? FormatPercent(*bar) : FormatRatio(*bar)));
  }
  if (parts.empty()) return "none";
  const bool overridden = settings.check_confidence > 0 && std::abs(t.confidence - settings.check_confidence) > 1e-12;
  return fmt::format("{} (each check at {}{})", fmt::join(parts, ", "), units::FormatConfidence(t.confidence),
                     overridden ? ", a per-check override (per_check_confidence)" : "");
}

// The machine's load in one round (engine/run/machine_load.h), or nullptr for results files
// from before it was recorded.
const RoundLoad* LoadOf(const RunResult& result, int round) {
  for (const RoundLoad& load : result.load) {
    if (load.round == round) return &load;
  }
  return nullptr;
}

// A round's candidate / baseline time after start-up; "-" where either is missing, and "none
// left" where start-up noise left one of them no time after start-up.
std::string LogicRatio(const std::optional<double>& b, const std::optional<double>& k) {
  if (!b || !k) return "-";
  return *b > 0 && *k > 0 ? FormatRatio(*k / *b) : "none left";
}

std::string Rounds(const RunResult& result, const WorkloadDetail& d) {
  const bool with_load = !result.load.empty();
  const bool with_logic = std::any_of(d.rows.begin(), d.rows.end(), [](const RoundRow& r) {
    return r.baseline_logic_s.has_value() || r.candidate_logic_s.has_value();
  });
  std::vector<std::vector<std::string>> rows = {{"round", "first", result.baseline, result.candidate, "ratio",
                                                 "CPU " + result.baseline, "CPU " + result.candidate, "CPU ratio",
                                                 "winner"}};
  if (with_logic) rows[0].insert(rows[0].end() - 1, "after start-up");
  if (with_load) rows[0].insert(rows[0].end(), {"load", "others' CPU", "steal", "MHz"});
  rows[0].push_back("");
  const auto ratio = [](const std::optional<double>& b, const std::optional<double>& k) {
    return b && k && *b > 0 ? FormatRatio(*k / *b) : std::string("-");
  };
  for (const RoundRow& r : d.rows) {
    std::vector<std::string> row = {std::to_string(r.round),
                                    r.first.empty() ? "-" : r.first,
                                    Optional(r.baseline_s),
                                    Optional(r.candidate_s),
                                    ratio(r.baseline_s, r.candidate_s),
                                    Optional(r.baseline_cpu_s),
                                    Optional(r.candidate_cpu_s),
                                    ratio(r.baseline_cpu_s, r.candidate_cpu_s),
                                    Winner(result, r)};
    if (with_logic) row.insert(row.end() - 1, LogicRatio(r.baseline_logic_s, r.candidate_logic_s));
    if (with_load) {
      const RoundLoad* load = LoadOf(result, r.round);
      auto cell = [&](const std::optional<double>& value, int decimals) {
        return load != nullptr && value ? units::FormatFixed(*value, decimals) : std::string("-");
      };
      row.push_back(load ? cell(load->load_1m, 2) : "-");
      row.push_back(load && load->others_share ? FormatPercent(*load->others_share) : "-");
      row.push_back(load && load->steal_share ? FormatPercent(*load->steal_share) : "-");
      row.push_back(load ? cell(load->cpu_mhz, 0) : "-");
    }
    row.push_back(r.warmup ? "warm-up (not analysed)" : "");
    rows.push_back(std::move(row));
  }
  for (auto& row : rows) {
    for (auto& cell : row) cell = report::OneLine(cell);
  }
  std::string title =
      "Rounds (ratio = candidate / baseline, wall time then CPU time (user + system); below 1.00x the candidate was "
      "faster";
  if (with_logic) {
    title +=
        "; after start-up = the same ratio of each wall time less that contender's start-up in the round, "
        "what min_logic_speedup reads as baseline / candidate";
  }
  if (with_load) {
    title +=
        "; load = 1-minute load average at the round's end, others' CPU = CPU time used by other processes, "
        "steal = CPU time the hypervisor gave away";
  }
  std::string align = with_logic ? "rlrrrrrrrl" : "rlrrrrrrl";
  if (with_load) align += "rrrr";
  return title + ")\n" + report::FormatTable(rows, align + "l", "  ");
}

std::string Summary(const WorkloadDetail& d) {
  std::vector<std::vector<std::string>> rows = {
      {"contender", "runs", "median", "mean", "sd", "MAD", "IQR", "min", "max", "user", "sys", "peak RSS"}};
  for (const ContenderStats& s : d.contenders) {
    rows.push_back({report::OneLine(s.contender), std::to_string(s.n), FormatSeconds(s.median_s),
                    FormatSeconds(s.mean_s), s.sd_s ? FormatSeconds(*s.sd_s) : "n/a", FormatSeconds(s.mad_s),
                    FormatSeconds(s.iqr_s), FormatSeconds(s.min_s), FormatSeconds(s.max_s),
                    FormatSeconds(s.median_user_s), FormatSeconds(s.median_sys_s), FormatKiB(s.median_rss_kib)});
  }
  return "Summary statistics (wall time of the measured runs; user, sys and peak RSS are medians)\n" +
         report::FormatTable(rows, "l", "  ");
}

// "round 7 (150 ms)" for each index of a paired series.
std::string AtRounds(const std::vector<std::size_t>& indices, const std::vector<int>& rounds,
                     const std::vector<double>& values, bool seconds) {
  std::vector<std::string> parts;
  for (std::size_t i : indices) {
    const std::string value = seconds ? FormatSeconds(values[i]) : FormatRatio(std::exp(values[i]));
    parts.push_back(fmt::format("round {} ({})", rounds[i], value));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string OutlierLine(const std::string& name, const stats::OutlierReport& o, const std::vector<int>& rounds,
                        const std::vector<double>& values, bool seconds) {
  const auto show = [&](double x) { return seconds ? FormatSeconds(x) : FormatRatio(std::exp(x)); };
  std::string line = fmt::format("  {}: ", name);
  if (o.tukey.mild.empty() && o.modified_z.outliers.empty()) {
    return line + fmt::format("none (fences {} to {})\n", show(o.tukey.low_inner), show(o.tukey.high_inner));
  }
  std::vector<std::size_t> mild_only;
  for (std::size_t i : o.tukey.mild) {
    if (std::find(o.tukey.severe.begin(), o.tukey.severe.end(), i) == o.tukey.severe.end()) mild_only.push_back(i);
  }
  std::vector<std::string> parts;
  if (!mild_only.empty()) {
    parts.push_back(fmt::format("mild {} (outside {} to {})", AtRounds(mild_only, rounds, values, seconds),
                                show(o.tukey.low_inner), show(o.tukey.high_inner)));
  }
  if (!o.tukey.severe.empty()) {
    parts.push_back(fmt::format("severe {} (outside {} to {})", AtRounds(o.tukey.severe, rounds, values, seconds),
                                show(o.tukey.low_outer), show(o.tukey.high_outer)));
  }
  if (!o.modified_z.outliers.empty()) {
    std::vector<std::string> z;
    for (std::size_t i : o.modified_z.outliers) {
      z.push_back(fmt::format("round {} (z = {})", rounds[i], units::FormatFixed(o.modified_z.scores[i], 1)));
    }
    parts.push_back(
        fmt::format("modified z beyond 3.5: {}{}", fmt::join(z, ", "),
                    o.modified_z.mad_was_zero ? " (MAD was 0: scaled by the mean absolute deviation)" : ""));
  }
  return line + fmt::format("{}\n", fmt::join(parts, "; "));
}

std::string Outliers(const RunResult& result, const WorkloadDetail& d) {
  const stats::PairedAnalysis& a = *d.analysis;
  std::vector<double> log_ratios;
  for (std::size_t i = 0; i < d.paired.baseline.size(); ++i) {
    log_ratios.push_back(std::log(d.paired.candidate[i] / d.paired.baseline[i]));
  }
  return "Outliers (Tukey fences at 1.5 and 3 IQR, modified z-score; reported, never dropped)\n" +
         OutlierLine(report::OneLine(result.baseline), a.baseline_outliers, d.paired.rounds, d.paired.baseline, true) +
         OutlierLine(report::OneLine(result.candidate), a.candidate_outliers, d.paired.rounds, d.paired.candidate,
                     true) +
         OutlierLine("ratio", a.log_ratio_outliers, d.paired.rounds, log_ratios, false);
}

std::string IntervalText(const stats::BootstrapResult& b) {
  std::string out;
  if (b.bca) {
    out += fmt::format("    BCa {} to {} (bias correction z0 = {}, acceleration a = {})\n", FormatRatio(b.bca->low),
                       FormatRatio(b.bca->high), Fixed(b.bias_correction, 3), Fixed(b.acceleration, 4));
  }
  if (b.percentile) {
    out += fmt::format("    percentile {} to {}\n", FormatRatio(b.percentile->low), FormatRatio(b.percentile->high));
  }
  if (!b.note.empty()) out += fmt::format("    note: {}\n", b.note);
  return out;
}

// Descriptive: no check reads a bootstrap interval (each reads its confidence sequence, below).
std::string BootstrapHeader(const stats::BootstrapResult& b) {
  return fmt::format(
      "  {} bootstrap interval, {} resamples, seed {}, {} shown (descriptive: no check reads it; the checks read the "
      "confidence sequences below):\n",
      units::FormatConfidence(b.level), b.resamples, b.seed, b.bca ? "BCa" : (b.percentile ? "percentile" : "none"));
}

std::string Startup(const WorkloadDetail& d) {
  std::string out = "Startup subtraction (median minus the startup workload's median)\n";
  const StartupSubtraction& s = d.startup;
  for (const StartupSide& side : s.sides) {
    out +=
        fmt::format("  {}: {} - {} startup = {}; floor {} = max(3 x noise {}, 5% of {}): {}\n",
                    report::OneLine(side.contender), FormatSeconds(side.median_s), FormatSeconds(side.startup_median_s),
                    FormatSeconds(side.logic_s), FormatSeconds(side.floor_s), FormatSeconds(side.startup_noise_s),
                    FormatSeconds(side.median_s), side.above_floor() ? "above it" : "not above it");
  }
  if (s.logic_speedup) {
    out += fmt::format("  startup-adjusted speedup: {} / {} = {}\n", FormatSeconds(s.sides[0].logic_s),
                       FormatSeconds(s.sides[1].logic_s), FormatRatio(*s.logic_speedup));
    if (d.analysis && d.analysis->logic_speedup_ci) {
      const stats::BootstrapResult& b = *d.analysis->logic_speedup_ci;
      out += BootstrapHeader(b) + IntervalText(b);
    }
  } else {
    out += fmt::format("  no startup-adjusted speedup: {}\n", s.note.empty() ? "not computed" : s.note);
  }
  if (!s.sides.empty()) {
    out += "  (noise = 1.4826 x MAD of the startup runs; below the floor the difference is mostly noise)\n";
  }
  return out;
}

std::string Speedup(const RunResult& result, const WorkloadDetail& d) {
  const stats::PairedAnalysis& a = *d.analysis;
  std::string out =
      "Ratio of medians, baseline / candidate (descriptive: min_speedup reads the median per-round speedup, under "
      "confidence sequences)\n";
  out += fmt::format("  {} / {} = {} over the {} paired rounds\n", FormatSeconds(a.baseline_median),
                     FormatSeconds(a.candidate_median), FormatRatio(a.speedup), a.rounds);
  if (d.speedup && *d.speedup != a.speedup) {
    out += fmt::format("  over all measured runs (unpaired ones included): {}\n", FormatRatio(*d.speedup));
  }
  out += BootstrapHeader(a.speedup_ci) + IntervalText(a.speedup_ci);
  out += fmt::format(
      "    (rounds resampled in pairs, so drift both contenders saw cancels; {} is the seed the file records)\n",
      result.settings.seed);
  return out;
}

std::string Sign(const stats::PairedAnalysis& a) {
  return fmt::format(
      "Win rate and sign test\n"
      "  the candidate won {} of {} rounds ({}), lost {}, tied {}\n"
      "  exact two-sided sign test of the win count: {}\n",
      a.wins, a.rounds, FormatPercent(a.win_rate), a.losses, a.ties, FormatPValue(a.sign_test_p));
}

std::string Wilcoxon(const stats::PairedAnalysis& a) {
  const stats::WilcoxonResult& w = a.wilcoxon;
  const stats::HodgesLehmannResult& hl = a.log_ratio_hl;
  std::string out = "Paired time ratios: Wilcoxon signed-rank and Hodges-Lehmann\n";
  out += fmt::format("  Wilcoxon signed-rank on log(candidate / baseline): {} nonzero, statistic {}, {}, {}\n", w.n,
                     w.statistic, w.exact ? "exact" : "normal approximation", FormatPValue(w.p_value));
  out += fmt::format("  Hodges-Lehmann paired ratio {}, {} interval {} to {} (distribution-free)\n",
                     FormatRatio(a.paired_ratio), units::FormatConfidence(hl.level), FormatRatio(a.paired_ratio_low),
                     FormatRatio(a.paired_ratio_high));
  if (!hl.level_reached) {
    out += fmt::format("    too few rounds for {}: the range of all Walsh averages covers {}\n",
                       units::FormatConfidence(hl.level), units::FormatPercentFixed(hl.achieved_level, 1));
  }
  return out;
}

std::string Power(const stats::PairedAnalysis& a) {
  std::string out =
      "Rounds to resolve the observed difference (descriptive, a fixed-n normal estimate; what each open check would "
      "need is under Thresholds)\n";
  if (!a.power) return out + "  needs at least 2 rounds to measure the spread\n";
  const stats::PowerEstimate& p = *a.power;
  out += fmt::format(
      "  spread of the paired log-ratios: sd {}; resolving a {} difference at {} confidence with {} "
      "power takes about {}{} rounds ({} run)\n",
      units::FormatFixed(p.sigma, 4), units::FormatPercentFixed(p.effect, 1), units::FormatConfidence(p.confidence),
      FormatPercent(p.power), p.rounds, p.capped ? " or more" : "", a.rounds);
  return out;
}

// The confidence sequences the checks read (docs/statistics.md), as the file stores them.
std::string Sequences(const WorkloadResult& w) {
  if (!w.comparison) return "";
  const Comparison& c = *w.comparison;
  std::string out = "Confidence sequences (valid at every round at once; what the checks read)\n";
  const auto line = [&](const char* what, const std::optional<Interval>& cs, bool rate) {
    if (!cs) return;
    const auto f = [&](double x) { return rate ? FormatPercent(x) : FormatRatio(x); };
    out += fmt::format("  {}: {}, {} {} {} to {}\n", what, f(cs->estimate), units::FormatConfidence(cs->level),
                       model::FromFinalLook(*cs) ? "interval" : "sequence",
                       std::isfinite(cs->low) && cs->low > 0 ? f(cs->low) : "unbounded",
                       std::isfinite(cs->high) ? f(cs->high) : "unbounded");
  };
  line("median per-round speedup (baseline / candidate wall)", c.speedup_cs, false);
  line("median per-round CPU-time ratio (candidate / baseline)", c.cpu_ratio_cs, false);
  // [run] final_look: the interval max_slowdown read is not the sequence alone; say what it is.
  if (c.cpu_ratio_cs && c.cpu_ratio_cs->method.find("final look") != std::string::npos) {  // before it too
    out += fmt::format("    ({})\n", c.cpu_ratio_cs->method);
  }
  line("win probability", c.win_rate_cs, true);
  line("startup-adjusted speedup", c.logic_speedup_cs, false);
  if (c.cpu_ratio)
    out += fmt::format("  ratio of median CPU times (candidate / baseline): {}\n", FormatRatio(*c.cpu_ratio));
  if (c.cpu_ratio_ci) {
    out += fmt::format("  Hodges-Lehmann CPU-time ratio: {}, {} interval {} to {} (fixed-n, descriptive)\n",
                       FormatRatio(c.cpu_ratio_ci->estimate), units::FormatConfidence(c.cpu_ratio_ci->level),
                       FormatRatio(c.cpu_ratio_ci->low), FormatRatio(c.cpu_ratio_ci->high));
  }
  return out;
}

std::string Thresholds(const RunResult& result, const WorkloadResult& w) {
  std::string out = "Thresholds\n";
  if (!w.gate) return out + "  not gated: measured and reported, never judged\n";
  std::vector<const Check*> checks;
  for (const Check& c : result.verdict.checks) {
    if (c.workload == w.name) checks.push_back(&c);
  }
  if (checks.empty()) {
    return out + (w.failures.empty() ? "  none checked\n" : "  none checked: the workload failed\n");
  }
  const Check* closest = nullptr;
  double closest_margin = 0;
  std::vector<const Check*> missed, open;
  for (const Check* c : checks) {
    const std::string margin = Margin(*c);
    out += fmt::format("  {}: {}{}\n", c->threshold, report::OneLine(gate::CheckLine(*c)),
                       margin.empty() ? "" : fmt::format(" [margin {}]", margin));
    // Unresolved: what it would need (rounds against max_rounds, the load the run saw).
    if (!c->skipped && c->state == Check::State::kUnresolved) {
      out += fmt::format("    needs: {}\n", report::OneLine(gate::UnresolvedAdvice(result, *c)));
    }
    if (const std::string power = report::PowerLine(*c); !power.empty()) {
      out += fmt::format("    could see: {}\n", report::OneLine(power));
    }
    if (c->skipped) continue;
    if (!c->passed) (c->state == Check::State::kUnresolved ? open : missed).push_back(c);
    const double relative = IsRateRow(*c)         ? c->measured - c->bar
                            : c->higher_is_better ? (c->measured - c->bar) / c->bar
                                                  : (c->bar - c->measured) / c->bar;
    if (closest == nullptr || relative < closest_margin) {
      closest = c;
      closest_margin = relative;
    }
  }
  if (!missed.empty()) {
    std::vector<std::string> names;
    for (const Check* c : missed) names.push_back(fmt::format("{} (margin {})", c->threshold, Margin(*c)));
    out += fmt::format("  decided by: {} missed{}\n", fmt::join(names, ", "),
                       result.verdict.accepted
                           ? fmt::format("; accepted by {}{}", report::OneLine(result.verdict.accepted_by),
                                         result.verdict.exit == model::ExitCode::kPass ? ", so the run passed" : "")
                           : "");
  }
  if (!open.empty()) {
    std::vector<std::string> names;
    for (const Check* c : open) names.push_back(fmt::format("{} (margin {})", c->threshold, Margin(*c)));
    out += fmt::format("  {}: {} unresolved (not shown either way)\n", missed.empty() ? "decided by" : "also",
                       fmt::join(names, ", "));
  }
  if (missed.empty() && open.empty()) {
    out += closest != nullptr ? fmt::format("  decided: every threshold met; the closest is {} (margin {})\n",
                                            closest->threshold, Margin(*closest))
                              : std::string("  decided: nothing could be checked\n");
  }
  return out;
}

std::string Notes(const WorkloadResult& w) {
  if (!w.comparison || w.comparison->notes.empty()) return "";
  std::string out = "Notes (warnings, never failures)\n";
  for (const auto& note : w.comparison->notes) out += fmt::format("  - {}\n", report::OneLine(note));
  return out;
}

std::string Agreement(const WorkloadDetail& d) {
  std::string out = "Against the file\n";
  if (d.disagreements.empty()) {
    return out + fmt::format("  the {} figures recomputed from the samples match the ones stored in the file\n",
                             d.compared.size());
  }
  for (const auto& line : d.disagreements) out += fmt::format("  differs: {}\n", line);
  return out + "  (the file was edited, or written by a perfengine whose analysis differs from this one)\n";
}

std::string Failures(const WorkloadResult& w) {
  if (w.failures.empty()) return "";
  std::string out = "Failures\n";
  for (const Failure& f : w.failures) {
    out += fmt::format("  {}: {}\n", FailureKindName(f.kind), report::OneLine(gate::FailureLine(f)));
    if (f.detail.empty()) continue;
    out += report::Indented(report::Printable(f.detail), "      ");
    if (out.back() != '\n') out += "\n";
  }
  return out;
}

// `again` is `result` judged again from its samples (Rejudged): the sections that show what the
// gate read (sequences, thresholds, notes) show its figures, never the file's.
std::string Workload(const RunResult& result, const RunResult& again, const WorkloadResult& w) {
  const WorkloadDetail d = ComputeDetail(result, w);
  const auto same = std::find_if(again.workloads.begin(), again.workloads.end(),
                                 [&](const WorkloadResult& x) { return x.name == w.name; });
  const WorkloadResult& now = same != again.workloads.end() ? *same : w;
  std::string out = fmt::format("\n== {}{} ==\n", report::OneLine(w.name), w.startup ? " (startup)" : "");
  if (!w.description.empty()) out += report::OneLine(w.description) + "\n";
  out +=
      fmt::format("{}; thresholds: {}\n", w.gate ? "gated" : "not gated", ThresholdList(w.thresholds, result.settings));
  if (w.parity == "none") out += "parity: none: outputs were not compared; the figures compare time only\n";
  if (!w.normalise.empty()) {
    out += fmt::format("parity: {} after the normalise command {}\n", w.parity,
                       report::OneLine(fmt::format("{}", fmt::join(w.normalise, " "))));
  }
  out += Heading(Rounds(result, d));
  if (!d.contenders.empty()) out += Heading(Summary(d));
  out += Failures(w).empty() ? "" : Heading(Failures(w));
  if (d.analysis) {
    out += Heading(Outliers(result, d));
    out += Heading(Startup(d));
    out += Heading(Speedup(result, d));
    out += Heading(Sign(*d.analysis));
    out += Heading(Wilcoxon(*d.analysis));
    out += Heading(Power(*d.analysis));
  } else {
    out += Heading(fmt::format("Analysis\n  none: {}\n", d.no_analysis));
  }
  if (!Sequences(now).empty()) out += Heading(Sequences(now));
  out += Heading(Thresholds(again, w));
  if (!Notes(now).empty()) out += Heading(Notes(now));
  out += Heading(Agreement(d));
  return out;
}

}  // namespace

std::string Margin(const Check& c) {
  if (c.skipped) return "";
  if (IsRateRow(c)) return units::FormatSignedPoints(c.measured - c.bar);
  // A count that grew from 0 (model::CountRatio) is beyond its bar by no percentage.
  if (std::isinf(c.measured)) return (c.measured > 0) == c.higher_is_better ? "+unbounded" : "-unbounded";
  const double relative = c.higher_is_better ? (c.measured - c.bar) / c.bar : (c.bar - c.measured) / c.bar;
  return (relative < 0 ? "-" : "+") + FormatPercent(std::fabs(relative));
}

namespace {

// An accepted regression exits 0 but is not a pass: say what was accepted, and by what.
std::string VerdictText(const Verdict& v) {
  const std::string name = v.accepted
                               ? fmt::format("accepted regression, accepted by {}", report::OneLine(v.accepted_by))
                               : std::string(ExitCodeName(v.exit));
  const std::string none = report::NothingGated(v);
  return fmt::format("{} (exit {}){}", name, static_cast<int>(v.exit), none.empty() ? "" : ": " + none);
}

}  // namespace

std::string ExplainText(const RunResult& result, const std::string& file,
                        const std::vector<const WorkloadResult*>& workloads) {
  const RunResult again = Rejudged(result);
  std::string out = fmt::format("perfengine explain {}\n", report::OneLine(file));
  out += fmt::format("spec {} (sha256 {}), perfengine {}, started {}\n", report::OneLine(result.spec_path),
                     report::OneLine(result.spec_digest.substr(0, 12)), report::OneLine(result.engine_version),
                     report::OneLine(result.started_at));
  out += fmt::format("machine {}: {}, {}, {} cores, {}\n", report::OneLine(result.machine.hostname),
                     report::OneLine(result.machine.os), report::OneLine(result.machine.cpu), result.machine.cores,
                     FormatKiB(result.machine.memory_kib));
  out +=
      fmt::format("baseline {}, candidate {}: {}; bootstrap {} resamples\n", report::OneLine(result.baseline),
                  report::OneLine(result.candidate), report::RoundsLine(result), result.settings.bootstrap_resamples);
  if (const std::string family = report::FamilyLine(result); !family.empty()) {
    out += report::OneLine(family) + "\n";
  }
  out += fmt::format("recorded verdict: {}{}\n", VerdictText(result.verdict),
                     result.complete ? "" : "; the run is incomplete");
  const bool same =
      VerdictText(again.verdict) == VerdictText(result.verdict) && again.verdict.lines == result.verdict.lines;
  out += fmt::format("verdict from the samples: {}{}\n", VerdictText(again.verdict),
                     same ? ", as recorded"
                          : "; NOT the recorded one: the file was edited, or written by a perfengine whose "
                            "analysis differs from this one");
  // More than two contenders: the further candidates and the summary every report prints; the
  // sections below work through the run's candidate, the verdict lines through every check.
  if (const auto summary = report::SpeedupSummary(again); !summary.empty()) {
    out += fmt::format("\n== every contender against the baseline ([run] compare = {}) ==\n",
                       report::OneLine(result.settings.compare));
    out += fmt::format("summary ({}):\n", report::OneLine(summary.front()));
    for (std::size_t i = 1; i < summary.size(); ++i) out += fmt::format("  {}\n", report::OneLine(summary[i]));
  }
  for (const WorkloadResult* w : workloads) out += Workload(result, again, *w);
  // A sweep's checks read across its points, not one workload: what each could have seen.
  std::string sweep_power;
  for (const model::SweepResult& sweep : again.sweeps) {
    for (const Check& c : again.verdict.checks) {
      if (c.workload != sweep.name) continue;
      if (const std::string power = report::PowerLine(c); !power.empty()) {
        sweep_power += fmt::format("  could see: {}\n", report::OneLine(power));
      }
    }
  }
  if (!sweep_power.empty()) out += "\n== sweep checks ==\n" + sweep_power;
  if (!again.verdict.lines.empty()) {
    out += "\n== verdict lines (from the samples) ==\n";
    for (const auto& line : again.verdict.lines) out += fmt::format("  {}\n", report::OneLine(line));
  }
  return out;
}

}  // namespace pe::explain

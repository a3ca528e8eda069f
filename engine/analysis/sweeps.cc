#include "engine/analysis/sweeps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "engine/model/samples.h"
#include "stats/descriptive.h"
#include "stats/error.h"
#include "stats/scaling_fit.h"
#include "stats/sequential.h"

namespace pe::analysis {

using model::AxisValue;
using model::ContenderInfo;
using model::ContenderSummary;
using model::Measured;
using model::RunResult;
using model::Sample;
using model::ScalingFit;
using model::SummaryOf;
using model::SweepResult;
using model::WorkloadResult;

namespace {

std::string ValueOf(const WorkloadResult& w, const std::string& axis) {
  for (const AxisValue& v : w.point) {
    if (v.axis == axis) return v.value;
  }
  return "";
}

// The point's values on every axis but the ones named, in axis order.
std::vector<AxisValue> Without(const WorkloadResult& w, std::initializer_list<const char*> axes) {
  std::vector<AxisValue> out;
  for (const AxisValue& v : w.point) {
    bool dropped = false;
    for (const char* a : axes) dropped |= v.axis == a;
    if (!dropped) out.push_back(v);
  }
  return out;
}

std::string Key(const std::vector<AxisValue>& fixed) {
  std::string key;
  for (const AxisValue& v : fixed) key += v.axis + "=" + v.value + ";";
  return key;
}

// Elements per second; a workload without declared elements counts one element per run,
// which leaves efficiency (a ratio of throughputs) unchanged.
double Throughput(const WorkloadResult& w, const ContenderSummary& s) {
  return (w.elements > 0 ? w.elements : 1.0) / s.median_wall_s;
}

// Each measured round's throughput of one contender at one point, by round.
std::map<int, double> RoundThroughputs(const WorkloadResult& w, const std::string& contender) {
  std::map<int, double> out;
  for (const Sample& s : w.samples) {
    if (s.contender == contender && Measured(s) && s.wall_s > 0) {
      out[s.round] = (w.elements > 0 ? w.elements : 1.0) / s.wall_s;
    }
  }
  return out;
}

// The median sequence (stats/sequential.h) of the per-round efficiencies at n threads, each
// round's n-thread throughput over n x the same round's 1-thread throughput (the points of a
// round run side by side, so what the round shared cancels); nullopt with no round in common.
std::optional<model::Interval> EfficiencySequence(const std::map<int, double>& one, const std::map<int, double>& at_n,
                                                  int threads, double confidence) {
  std::vector<double> logs;
  for (const auto& [round, throughput] : at_n) {
    auto base = one.find(round);
    if (base != one.end()) logs.push_back(std::log(throughput / (threads * base->second)));
  }
  if (logs.empty()) return std::nullopt;
  const stats::MedianBounds b = stats::MedianSequence(logs, confidence);
  return model::Interval{std::exp(stats::Median(logs)), std::exp(b.low), std::exp(b.high), confidence,
                         "median confidence sequence of per-round efficiency"};
}

void Efficiencies(const RunResult& run, const std::vector<const WorkloadResult*>& points, SweepResult& sweep,
                  double confidence) {
  for (const ContenderInfo& c : run.contenders) {
    // configuration -> threads -> (throughput, throughput per round)
    std::map<std::string, std::pair<std::vector<AxisValue>, std::map<int, std::pair<double, std::map<int, double>>>>>
        by_config;
    for (const WorkloadResult* w : points) {
      const ContenderSummary* s = SummaryOf(*w, c.name);
      if (s == nullptr) continue;
      auto fixed = Without(*w, {"threads"});
      auto& entry = by_config[Key(fixed)];
      entry.first = fixed;
      entry.second[std::atoi(ValueOf(*w, "threads").c_str())] = {Throughput(*w, *s), RoundThroughputs(*w, c.name)};
    }
    for (const auto& [key, entry] : by_config) {
      auto one = entry.second.find(1);
      if (one == entry.second.end()) continue;  // efficiency is relative to one thread
      for (const auto& [threads, figures] : entry.second) {
        sweep.efficiencies.push_back({c.name, entry.first, threads, figures.first / (threads * one->second.first),
                                      EfficiencySequence(one->second.second, figures.second, threads, confidence)});
      }
    }
  }
}

void Fits(const RunResult& run, const std::vector<const WorkloadResult*>& points, SweepResult& sweep,
          double confidence) {
  for (const ContenderInfo& c : run.contenders) {
    std::map<std::string, std::pair<std::vector<AxisValue>, std::pair<std::vector<double>, std::vector<double>>>>
        groups;
    for (const WorkloadResult* w : points) {
      auto fixed = Without(*w, {"scale"});
      auto& group = groups[Key(fixed)];
      group.first = fixed;
      const double n = std::strtod(ValueOf(*w, "scale").c_str(), nullptr) * run.settings.scale;
      for (const Sample& s : w->samples) {
        if (s.contender != c.name || !Measured(s)) continue;
        group.second.first.push_back(n);
        group.second.second.push_back(s.wall_s);
      }
    }
    for (const auto& [key, group] : groups) {
      ScalingFit fit;
      fit.contender = c.name;
      fit.axis = "scale";
      fit.fixed = group.first;
      fit.level = confidence;
      try {
        const stats::ScalingFit f = stats::FitScaling(group.second.first, group.second.second, confidence);
        // NaN marks what could not be estimated, so no report shows an invented bound.
        fit.exponent = f.k;
        fit.low = f.has_interval ? f.k_low : std::numeric_limits<double>::quiet_NaN();
        fit.high = f.has_interval ? f.k_high : std::numeric_limits<double>::quiet_NaN();
        fit.note = f.note;
        if (!f.has_interval && fit.note.empty()) fit.note = "no interval: too few points";
      } catch (const stats::StatsError& e) {
        fit.exponent = fit.low = fit.high = std::numeric_limits<double>::quiet_NaN();
        fit.note = fmt::format("no fit: {}", e.what());
      }
      sweep.fits.push_back(std::move(fit));
    }
  }
}

}  // namespace

void AnalyzeSweeps(RunResult& result) {
  for (SweepResult& sweep : result.sweeps) {
    sweep.fits.clear();
    sweep.efficiencies.clear();
    std::vector<const WorkloadResult*> points;
    double confidence = result.settings.confidence;
    for (const WorkloadResult& w : result.workloads) {
      if (w.sweep != sweep.name || !w.failures.empty()) continue;
      points.push_back(&w);
      confidence = w.thresholds.confidence;
    }
    const auto has = [&](const char* axis) {
      return std::find(sweep.axes.begin(), sweep.axes.end(), axis) != sweep.axes.end();
    };
    if (has("threads")) Efficiencies(result, points, sweep, confidence);
    if (has("scale")) Fits(result, points, sweep, confidence);
  }
}

}  // namespace pe::analysis

// Everything explain shows for one workload, recomputed from the raw samples of a results
// file with stats/ and the settings the file records (seed, resamples, confidence), and
// checked against the comparison stored in the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/explain/rounds.h"
#include "engine/model/result.h"
#include "stats/analysis.h"

namespace pe::explain {

// Descriptive statistics of one contender's measured wall times.
struct ContenderStats {
  std::string contender;
  int n = 0;
  double median_s = 0;
  double mean_s = 0;
  std::optional<double> sd_s;  // needs two runs
  double mad_s = 0;            // unscaled median absolute deviation
  double iqr_s = 0;
  double min_s = 0;
  double max_s = 0;
  double median_user_s = 0;
  double median_sys_s = 0;
  std::int64_t median_rss_kib = 0;
};

// One side of the startup subtraction, as engine/analysis does it.
struct StartupSide {
  std::string contender;
  double median_s = 0;          // this workload's median
  double startup_median_s = 0;  // the startup workload's median
  double startup_noise_s = 0;   // 1.4826 x MAD of the startup runs
  double floor_s = 0;           // analysis::LogicFloor(median_s, startup_noise_s)
  double logic_s = 0;           // median_s - startup_median_s
  bool above_floor() const { return logic_s > floor_s; }
};

struct StartupSubtraction {
  std::vector<StartupSide> sides;       // baseline then candidate; empty without a startup workload
  std::optional<double> logic_speedup;  // baseline logic / candidate logic
  std::string note;                     // why there is no logic speedup; "" when there is one
};

struct WorkloadDetail {
  const model::WorkloadResult* workload = nullptr;
  std::vector<RoundRow> rows;
  std::vector<ContenderStats> contenders;  // spec order, those with measured runs
  std::optional<double> speedup;           // baseline median / candidate median
  std::optional<double> rss_ratio;         // candidate / baseline median peak RSS
  model::PairedRounds paired;
  std::optional<stats::PairedAnalysis> analysis;
  std::string no_analysis;  // why `analysis` is empty
  StartupSubtraction startup;
  // "speedup: the file says 2.5, recomputed 2.51", one per figure that differs.
  std::vector<std::string> disagreements;
  std::vector<std::string> compared;  // the figures that were checked
};

WorkloadDetail ComputeDetail(const model::RunResult& result, const model::WorkloadResult& workload);

}  // namespace pe::explain

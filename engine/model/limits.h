// Ceilings of a run's settings, declared once for the spec parser (spec::limits, which docs/spec.md
// lists) and for the results reader (engine/model/json.cc), so that a results file cannot claim
// settings no spec could ask for: a count of -5 rounds, or of two billion resamples to redo.
#pragma once

namespace pe::model::limits {

inline constexpr int kMaxRounds = 100000;
inline constexpr int kMaxWarmupRounds = 10000;
inline constexpr int kMinBootstrapResamples = 100;
inline constexpr int kMaxBootstrapResamples = 1000000;  // 8 MB of replicates per interval
inline constexpr double kMaxTimeoutS = 604800;          // a week
inline constexpr double kMaxScale = 1000;

}  // namespace pe::model::limits

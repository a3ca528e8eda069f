// When a sweep's figures mean something (docs/sweeps.md, "When no scaling law fits"): the
// bounds past which a fitted cost exponent or a scaling efficiency is too uncertain to print or
// to judge, declared once for the reporters (engine/report/sweep_report.cc, html_reporter.cc)
// and the gate (engine/gate/gate.cc), which all read them through the functions below.
#pragma once

#include <cmath>

#include "engine/model/result.h"

namespace pe::model {

// A cost exponent answers "which order of growth": constant (0), linear (1), quadratic (2).
// Neighbouring orders are 1 apart, so an interval of k wider than 1 cannot tell two of them
// apart (-0.2 to 1.1 holds both constant and linear; 0.9 to 2.1 linear and quadratic), and its
// point estimate is no law at all: `n^4.08 (95% interval -16.69 to 24.86)`.
inline constexpr double kMaxExponentIntervalWidth = 1.0;

// A scaling efficiency answers "do n threads do n times the work (100%) or half of it (50%)":
// an interval wider than those 50 points cannot tell the two apart.
inline constexpr double kMaxEfficiencyIntervalWidth = 0.5;

// True when [low, high] is no interval (NaN or infinite ends: three points fit exactly, or no
// round measured both points) or is wider than `bound`.
inline bool TooWideToMeanAnything(double low, double high, double bound) {
  return !(std::isfinite(low) && std::isfinite(high)) || high - low > bound;
}

// A fit that was made (a finite exponent) but whose interval says no scaling law fits the
// points: the reports print "no scaling law fits these points" and why, not the exponent, and
// max_cost_exponent is unresolved. A fit that failed outright (a NaN exponent) is not this: it
// has its own note ("no fit over scale: ...").
inline bool NoScalingLaw(const ScalingFit& fit) {
  return std::isfinite(fit.exponent) && TooWideToMeanAnything(fit.low, fit.high, kMaxExponentIntervalWidth);
}

}  // namespace pe::model

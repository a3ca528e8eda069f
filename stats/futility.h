// Stopping a no-regression check for futility (docs/statistics.md, "Stopping for futility"):
// the chance that the check's final look, at round `final_round`, would still show its per-round
// log-ratios' centre above log(bar), were that centre as high as its optimistic reading now.
//
// Method (stochastic curtailment, Lan, Simon & Wittes 1982; Jennison & Turnbull 2000,
// "Group Sequential Methods", ch. 10). After n of N rounds, with the Hodges-Lehmann estimate
// theta_n of the n log-ratios and sigma their robust scale (1.4826 x MAD, stats/detectable.h):
//   - the optimistic centre: theta_up = theta_n + z(0.95) * sigma * sqrt(pi / 2) / sqrt(n), the
//     upper end of a one-sided 95% normal interval with the median's standard error, wider
//     than the Hodges-Lehmann estimate's sigma * sqrt(pi / 3) / sqrt(n);
//   - the final look's estimate, were the N - n rounds to come centred on theta_up, is normal
//     with mean (n theta_n + (N - n) theta_up) / N and standard deviation
//     sigma * sqrt(pi / 3) * sqrt(N - n) / N (the Hodges-Lehmann estimate's asymptotic standard
//     error under normal noise, Lehmann 1975 sec. 4.2);
//   - the final look shows the centre above log(bar) when its low end, estimate less
//     z(final) * sigma * sqrt(pi / 3) / sqrt(N), clears log(bar), z(final) the normal quantile of
//     the final look's two-sided level;
// the chance is that probability. A check the engine stops when the chance is small passes
// unresolved, so the rule can only turn a fail the run might have shown into a pass: it never
// adds a false alarm, and it costs power only where the data so far lie well below the bar
// (tests/unit/stats/futility_test.cc simulates both).
#pragma once

#include <optional>
#include <span>

namespace pe::stats {

// The rule the engine applies ([run] futility, docs/statistics.md): from this round on, a check
// whose chance is below kFutilityChance stops measuring.
inline constexpr int kFutilityFirstRound = 8;
inline constexpr double kFutilityChance = 0.05;

struct FutilityReading {
  double optimistic_log = 0;  // theta_up, the log-ratio the chance assumes
  double chance = 0;          // the final look's chance to show the centre above log(bar)
  bool Futile() const { return chance < kFutilityChance; }
};

// nullopt where no reading is made: fewer than 2 rounds, no round left (n >= final_round), a
// zero scale, or a final level outside (0, 1).
std::optional<FutilityReading> FinalLookFutility(std::span<const double> log_ratios, double log_bar, int final_round,
                                                 double final_level);

// The same reading for rounds whose Hodges-Lehmann estimate is `theta` and robust scale `sigma`
// after `rounds` of `final_round`; nullopt as above.
std::optional<FutilityReading> FinalLookFutilityAt(double theta, double sigma, int rounds, double log_bar,
                                                   int final_round, double final_level);

// The first round from kFutilityFirstRound at which rounds centred on `theta` with scale `sigma`
// stop for futility, the estimate and scale taken as they are: what `perfengine calibrate`
// predicts for a check of an unchanged candidate (theta 0). nullopt when none before final_round.
std::optional<int> FutilityStopRound(double theta, double sigma, double log_bar, int final_round, double final_level);

}  // namespace pe::stats

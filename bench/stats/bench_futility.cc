// bench_futility: what [run] futility costs and saves (docs/statistics.md, "Stopping for
// futility"), by simulation of the whole design: normal per-round log-ratios, the final look's
// Hodges-Lehmann interval at round N, and the engine's futility rule from round 8. Prints, at the
// shift the final look shows with 80% power, how many runs showed it without and with stops, and
// for an A/A pair how many stopped by round 12, their median stopping round and how many were
// shown slower.
//
//   build/bin/bench_futility [sigma=0.018] [rounds=32] [bar=1.01] [checks=36] [runs=1500] [seed=20261206]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <vector>

#include "stats/detectable.h"
#include "stats/futility.h"
#include "stats/paired.h"

int main(int argc, char** argv) {
  auto arg = [&](int i, double fallback) { return argc > i ? std::atof(argv[i]) : fallback; };
  const double sigma = arg(1, 0.018), bar = arg(3, 1.01);
  const int rounds = static_cast<int>(arg(2, 32)), checks = static_cast<int>(arg(4, 36));
  const int runs = static_cast<int>(arg(5, 1500));
  std::mt19937_64 rng(static_cast<std::uint64_t>(arg(6, 20261206)));
  const double level = 1 - 0.05 / checks, half = 1 - (1 - level) / 2, log_bar = std::log(bar);
  const double shown = pe::stats::SignedRankDetectableRatioAbove(sigma, rounds, bar, half).value_or(NAN);
  // One run: whether the final look shows the ratio above the bar, and the round the rule stopped at (0: none).
  auto run = [&](double mu, int* stopped) {
    std::normal_distribution<double> normal(mu, sigma);
    std::vector<double> x(rounds);
    for (double& v : x) v = normal(rng);
    *stopped = 0;
    for (int n = pe::stats::kFutilityFirstRound; n < rounds && *stopped == 0; ++n) {
      const auto reading = pe::stats::FinalLookFutility(std::span(x).first(n), log_bar, rounds, half);
      if (reading && reading->Futile()) *stopped = n;
    }
    return pe::stats::HodgesLehmann(x, half).low > log_bar;
  };
  int without = 0, with = 0, aa_by_12 = 0, aa_shown = 0;
  std::vector<int> aa_stops;
  for (int r = 0; r < runs; ++r) {
    int stopped = 0;
    const bool fails = run(std::log(shown), &stopped);
    without += fails;
    with += fails && stopped == 0;
    aa_shown += run(0, &stopped) && stopped == 0;
    aa_stops.push_back(stopped == 0 ? rounds : stopped);
    aa_by_12 += stopped > 0 && stopped <= 12;
  }
  std::nth_element(aa_stops.begin(), aa_stops.begin() + runs / 2, aa_stops.end());
  std::printf("noise %.2f%%, %d rounds, bar %.3gx, %d checks at %.4g%% each (final look at %.4g%%)\n", 100 * sigma,
              rounds, bar, checks, 100 * level, 100 * half);
  std::printf("a regression of %.4gx (the final look's 80%% power): shown in %d of %d runs without stops, %d with\n",
              shown, without, runs, with);
  std::printf("A/A: %d of %d stopped by round 12, median stop round %d, %d shown slower\n", aa_by_12, runs,
              aa_stops[runs / 2], aa_shown);
  return 0;
}

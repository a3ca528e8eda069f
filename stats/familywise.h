// Family-wise confidence across the checks of one run, kept valid at every round.
//
// Each check reads its own confidence sequence (stats/sequential.h): at level 1 - a_i it
// wrongly excludes the truth at ANY round with probability at most a_i (Ville's inequality).
// The union bound (Bonferroni) then gives, for K checks each at 1 - alpha / K,
//   P(some check of the run is wrong at some round) <= sum_i alpha / K = alpha,
// whatever the dependence between the checks and whenever the run stops, because each term
// is already a bound over all rounds at once (Howard, Ramdas, McAuliffe & Sekhon 2021,
// "Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2),
// sec. 1 on running several sequences at once; Bonferroni 1936).
//
// Tiny families: checks <= 1 returns the family level itself.
#pragma once

namespace pe::stats {

// The per-check confidence that keeps the whole family of `checks` at `family_confidence`:
// 1 - (1 - family_confidence) / checks. Throws StatsError for family_confidence outside
// (0, 1) or checks < 0.
double PerCheckConfidence(double family_confidence, int checks);

}  // namespace pe::stats

#include "stats/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "stats/distributions.h"
#include "stats/error.h"
#include "stats/paired.h"

namespace pe::stats {

MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y, MannWhitneyMethod method) {
  RequireFinite("MannWhitneyU", x);
  RequireFinite("MannWhitneyU", y);
  RequireAtLeast("MannWhitneyU", x, 1);
  RequireAtLeast("MannWhitneyU", y, 1);
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  std::vector<double> pooled(x.begin(), x.end());
  pooled.insert(pooled.end(), y.begin(), y.end());
  double tie_term = 0.0;
  const std::vector<double> ranks = AverageRanks(pooled, &tie_term);
  double r1 = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) r1 += ranks[i];

  MannWhitneyResult result;
  result.u1 = r1 - n1 * (n1 + 1.0) / 2.0;
  result.u2 = n1 * n2 - result.u1;
  result.ties = tie_term > 0.0;
  result.probability_x_greater = result.u1 / (n1 * n2);
  const double u = std::max(result.u1, result.u2);

  const int size1 = static_cast<int>(x.size());
  const int size2 = static_cast<int>(y.size());
  result.exact = method != MannWhitneyMethod::kNormal && !result.ties && MannWhitneyExactFits(size1, size2);
  if (result.exact) {
    const std::vector<double> pmf = MannWhitneyUPmf(size1, size2);
    double above = 0.0;  // P(U' >= u); u is an integer without ties
    for (auto k = static_cast<std::size_t>(u); k < pmf.size(); ++k) above += pmf[k];
    result.p_value = std::min(1.0, 2.0 * above);
    return result;
  }
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
  if (!(variance > 0.0)) {
    result.p_value = 1.0;  // all values tied: no evidence either way
    return result;
  }
  result.z = (u - n1 * n2 / 2.0 - 0.5) / std::sqrt(variance);
  result.p_value = std::clamp(2.0 * NormalSf(result.z), 0.0, 1.0);
  return result;
}

}  // namespace pe::stats

#include "engine/base/suggest.h"

#include <algorithm>

namespace pe::base {

int EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment: a swap of two neighbours ("wrok") is one typo, not two.
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string NearestName(std::string_view name, const std::vector<std::string>& candidates) {
  // Allow about one typo per three characters, so short names do not match everything.
  const int limit = std::max(1, static_cast<int>(name.size()) / 3);
  std::string best;
  int best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const int d = EditDistance(name, candidate);
    // Replacing every character of a short name is not a typo ('3' is not near '1').
    if (d >= static_cast<int>(name.size())) continue;
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string nearest = NearestName(name, candidates);
  return nearest.empty() ? "" : " (did you mean '" + nearest + "'?)";
}

}  // namespace pe::base

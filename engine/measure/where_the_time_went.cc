#include "engine/measure/where_the_time_went.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "engine/units/units.h"

namespace pe::measure {

std::vector<FunctionDelta> WhereTheTimeWent(const std::vector<FunctionCost>& base,
                                            const std::vector<FunctionCost>& cand, int top) {
  std::map<std::string, FunctionDelta> by_name;
  for (const FunctionCost& f : base) {
    FunctionDelta& d = by_name[f.function];
    d.function = f.function;
    d.base_cost += f.cost;
    d.base_share += f.share;
  }
  for (const FunctionCost& f : cand) {
    FunctionDelta& d = by_name[f.function];
    d.function = f.function;
    d.cand_cost += f.cost;
    d.cand_share += f.share;
  }
  std::vector<FunctionDelta> grown;
  for (auto& [name, d] : by_name) {
    d.cost_delta = static_cast<std::int64_t>(d.cand_cost) - static_cast<std::int64_t>(d.base_cost);
    d.share_delta = d.cand_share - d.base_share;
    if (d.cost_delta > 0) grown.push_back(d);
  }
  std::sort(grown.begin(), grown.end(), [](const FunctionDelta& a, const FunctionDelta& b) {
    if (a.cost_delta != b.cost_delta) return a.cost_delta > b.cost_delta;
    if (a.share_delta != b.share_delta) return a.share_delta > b.share_delta;
    return a.function < b.function;
  });
  if (top >= 0 && grown.size() > static_cast<std::size_t>(top)) grown.resize(top);
  return grown;
}

std::string FormatWhereTheTimeWent(const std::vector<FunctionDelta>& deltas) {
  if (deltas.empty()) return "No function's self cost grew.\n";
  struct Row {
    std::string function, base, cand, change, share;
  };
  std::vector<Row> rows = {{"function", "baseline", "candidate", "change", "share"}};
  for (const FunctionDelta& d : deltas) {
    rows.push_back({d.function, units::Grouped(d.base_cost), units::Grouped(d.cand_cost),
                    units::SignedGrouped(d.cost_delta),
                    units::FormatPercentFixed(d.base_share, 1) + " -> " + units::FormatPercentFixed(d.cand_share, 1)});
  }
  std::size_t w[4] = {};
  for (const Row& r : rows) {
    w[0] = std::max(w[0], r.function.size());
    w[1] = std::max(w[1], r.base.size());
    w[2] = std::max(w[2], r.cand.size());
    w[3] = std::max(w[3], r.change.size());
  }
  std::string out;
  for (const Row& r : rows) {
    out += fmt::format("  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", r.function, w[0], r.base, w[1], r.cand, w[2], r.change,
                       w[3], r.share);
  }
  return out;
}

}  // namespace pe::measure

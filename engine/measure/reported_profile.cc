#include "engine/measure/reported_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "engine/measure/contender_lines.h"

namespace pe::measure {

std::optional<std::string> ParseReportedProfile(std::string_view text, std::vector<ReportedFunction>& out) {
  std::vector<ReportedFunction> functions;
  std::map<std::string, int, std::less<>> seen;  // function -> its line
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    const std::vector<std::string_view> fields = LineFields(line);
    if (fields.empty()) continue;
    auto bad = [&](const std::string& why) { return fmt::format("line {} {}: {}", number, QuoteLine(line), why); };
    if (fields.size() != 2 && fields.size() != 3) return bad("expected 'function calls' or 'function calls cost'");
    ReportedFunction f;
    f.function = std::string(fields[0]);
    const std::string_view calls = fields[1];
    const auto [end_calls, error] = std::from_chars(calls.data(), calls.data() + calls.size(), f.calls);
    if (error != std::errc() || end_calls != calls.data() + calls.size()) {
      return bad(fmt::format("'{}' is not a whole number of calls", calls));
    }
    if (fields.size() == 3) {
      double cost = 0;
      const std::string_view text_cost = fields[2];
      const auto [end_cost, cost_error] = std::from_chars(text_cost.data(), text_cost.data() + text_cost.size(), cost);
      if (cost_error != std::errc() || end_cost != text_cost.data() + text_cost.size()) {
        return bad(fmt::format("'{}' is not a number", text_cost));
      }
      if (!std::isfinite(cost) || cost < 0)
        return bad(fmt::format("'{}' must be a finite number at least 0", text_cost));
      f.cost = cost;
    }
    if (const auto earlier = seen.find(f.function); earlier != seen.end()) {
      return bad(fmt::format("function '{}' is reported twice (first on line {})", f.function, earlier->second));
    }
    seen.emplace(f.function, number);
    functions.push_back(std::move(f));
  }
  out = std::move(functions);
  return std::nullopt;
}

std::vector<ReportedShift> ReportedGrowth(const std::vector<ReportedFunction>& base,
                                          const std::vector<ReportedFunction>& cand, int top) {
  std::map<std::string, ReportedShift> by_name;
  for (const ReportedFunction& f : base) {
    ReportedShift& s = by_name[f.function];
    s.function = f.function;
    s.base_calls = f.calls;
    s.base_cost = f.cost.value_or(0);
  }
  for (const ReportedFunction& f : cand) {
    ReportedShift& s = by_name[f.function];
    s.function = f.function;
    s.cand_calls = f.calls;
    s.cand_cost = f.cost.value_or(0);
  }
  std::vector<ReportedShift> grown;
  for (const auto& [name, s] : by_name) {
    if (s.cand_calls > s.base_calls || (s.cand_calls == s.base_calls && s.cand_cost > s.base_cost)) {
      grown.push_back(s);
    }
  }
  auto added = [](const ReportedShift& s) {
    return static_cast<double>(s.cand_calls) - static_cast<double>(s.base_calls);
  };
  std::sort(grown.begin(), grown.end(), [&](const ReportedShift& a, const ReportedShift& b) {
    if (added(a) != added(b)) return added(a) > added(b);
    if (a.cand_cost - a.base_cost != b.cand_cost - b.base_cost)
      return a.cand_cost - a.base_cost > b.cand_cost - b.base_cost;
    return a.function < b.function;
  });
  if (top >= 0 && grown.size() > static_cast<std::size_t>(top)) grown.resize(top);
  return grown;
}

}  // namespace pe::measure

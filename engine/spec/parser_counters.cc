// Counters a contender reports itself (docs/counters.md): [counters.NAME] declares one, and
// [thresholds.counters] NAME = ratio (in [thresholds] or a workload's own) sets its bar.
#include <algorithm>

#include "engine/spec/parser.h"

namespace pe::spec::internal {

namespace {

// What a counters-file line may hold: the name and unit are single words.
bool ValidUnit(std::string_view unit) {
  return !unit.empty() && std::none_of(unit.begin(), unit.end(), [](unsigned char c) { return c <= ' ' || c == 127; });
}

}  // namespace

void Parser::ParseCounters(const toml::table& counters, Spec& spec) const {
  for (auto&& [key_, node_] : counters) {
    Recover([&, &key = key_, &node = node_] {
      const std::string name(key.str());
      if (!ValidName(name)) {
        Fail(Pos(key.source()), fmt::format("counter name '{}' may hold only letters, digits, '-', '_' and '.'", name));
      }
      if (!node.is_table()) Fail(Pos(node), fmt::format("counter '{}' must be a table, not {}", name, TypeName(node)));
      const toml::table& t = *node.as_table();
      CheckKeys(t, {"unit", "exact"}, fmt::format("[counters.{}]", name));
      CounterDecl d;
      d.name = name;
      d.pos = Pos(key.source());
      const std::optional<std::string> unit = String(t, "unit");
      if (!unit)
        Fail(d.pos, fmt::format("counter '{}' needs 'unit', the word its lines end with (e.g. \"objects\")", name));
      if (!ValidUnit(*unit)) {
        Fail(Pos(*t.get("unit")), fmt::format("counter '{}' unit '{}' must be one word without spaces", name, *unit));
      }
      d.unit = *unit;
      const std::optional<bool> exact = Bool(t, "exact");
      if (!exact) {
        Fail(d.pos, fmt::format("counter '{}' needs 'exact': true for a count that is the same every run (gated as a "
                                "ratio of medians), false for a noisy one (gated on paired rounds)",
                                name));
      }
      d.exact = *exact;
      spec.counters.push_back(std::move(d));
    });
  }
}

void Parser::ParseCounterBars(const toml::table& t, ThresholdOverrides& o) const {
  for (auto&& [key, node] : t) {
    const std::string name(key.str());
    Recover([&] {
      if (auto bar = Number(t, name, 0, true)) {
        o.counter_bars[name] = *bar;
        o.counter_bar_pos[name] = Pos(key.source());
      }
    });
  }
}

void Parser::CheckCounterBars(const Spec& spec) const {
  std::vector<std::string> declared;
  for (const CounterDecl& d : spec.counters) declared.push_back(d.name);
  auto check = [&](const ThresholdOverrides& o) {
    for (const auto& [name, pos] : o.counter_bar_pos) {
      if (std::find(declared.begin(), declared.end(), name) != declared.end()) continue;
      Recover([&, &name = name, &pos = pos] {
        Fail(pos, declared.empty()
                      ? fmt::format("counter '{}' has a bar but is not declared: add a [counters.{}] table", name, name)
                      : fmt::format("counter '{}' is not declared{}", name, DidYouMean(name, declared)));
      });
    }
  };
  check(spec.thresholds);
  for (const Workload& w : spec.workloads) check(w.thresholds);
}

}  // namespace pe::spec::internal

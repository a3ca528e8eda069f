// `prepare` and `cleanup` of a contender or a workload (spec.h's Hooks), and `parameters`: a
// workload's lists of values (hyperfine's -L), the short form of a sweep of plain variables.
#include <fmt/ranges.h>

#include <algorithm>

#include "engine/spec/parser.h"
#include "engine/spec/placeholders.h"

namespace pe::spec::internal {

Hooks Parser::ParseHooks(const toml::table& t, const Workload* workload, const std::vector<std::string>& axes) const {
  Hooks hooks;
  for (const char* key : {"prepare", "cleanup"}) {
    Recover([&] {
      std::optional<std::vector<Located>> argv = StringArray(t, key, true);
      if (!argv) return;
      CheckPlaceholders(*argv, workload, axes);
      (std::string_view(key) == "prepare" ? hooks.prepare : hooks.cleanup) = std::move(*argv);
    });
  }
  return hooks;
}

std::vector<Parser::Axis> Parser::ParseParameters(const toml::node& node, const Workload& w, Sweep& sweep,
                                                  bool has_sweep) const {
  const std::string example = "e.g. parameters = { level = [\"1\", \"3\", \"9\"] }";
  if (!node.is_table()) {
    Fail(Pos(node),
         fmt::format("'parameters' must be a table of lists of values, not {}; {}", TypeName(node), example));
  }
  const toml::table& table = *node.as_table();
  if (has_sweep) {
    Fail(Pos(node), fmt::format("workload '{}' has both 'parameters' and a sweep; list the parameters as axes of "
                                "[workloads.{}.sweep]",
                                w.name, w.name));
  }
  if (table.empty()) Fail(Pos(node), fmt::format("'parameters' declares no parameter; {}", example));
  for (auto&& [key, value] : table) {
    // A sweep's own keys: parameters are plain variables, without environments or gates.
    if (key.str() == "env" || key.str() == "thresholds") {
      Fail(Pos(key.source()), fmt::format("a parameter may not be named '{}' (a key of [workloads.{}.sweep], where "
                                          "environments and gates per value are declared)",
                                          key.str(), w.name));
    }
  }
  return ParseSweep(table, w, sweep);
}

std::vector<std::string> Parser::CommonAxisNames() const {
  // Axes of every workload other than the built-in startup one: a contender's argv may use them.
  std::vector<std::string> common;
  bool first = true;
  const toml::table* workloads = root_.get_as<toml::table>("workloads");
  if (workloads == nullptr) return common;
  for (auto&& [name, node] : *workloads) {
    if (name.str() == "startup") continue;
    std::vector<std::string> own;
    const toml::table* workload = node.as_table();
    for (const char* key : {"sweep", "parameters"}) {
      const toml::table* axes = workload ? workload->get_as<toml::table>(key) : nullptr;
      if (axes == nullptr) continue;
      for (auto&& [axis, values] : *axes) {
        if (axis.str() != "env" && axis.str() != "thresholds") own.emplace_back(axis.str());
      }
    }
    if (first) {
      common = own;
      first = false;
    } else {
      std::erase_if(common, [&](const std::string& a) { return std::find(own.begin(), own.end(), a) == own.end(); });
    }
  }
  return common;
}

}  // namespace pe::spec::internal

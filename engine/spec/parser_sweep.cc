// Sweeps: axes, their environments and gates, expanded to one workload per point.
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>

#include "engine/spec/parser.h"
#include "engine/spec/placeholders.h"

namespace pe::spec::internal {

std::vector<Parser::Axis> Parser::ParseSweep(const toml::table& table, const Workload& w, Sweep& sweep) const {
  const std::string where = fmt::format("[workloads.{}.sweep]", w.name);
  sweep.name = w.name;
  sweep.pos = w.pos;
  std::vector<Axis> axes;
  for (auto&& [key, node] : table) {
    const std::string name(key.str());
    if (name == "env" || name == "thresholds") continue;
    if (!node.is_array()) {
      Fail(Pos(node), fmt::format("sweep axis '{}' must be an array of values, not {}{}", name, TypeName(node),
                                  DidYouMean(name, {"env", "thresholds"})));
    }
    const std::vector<std::string>& builtin = PlaceholderNames();
    if (name != "scale" && std::find(builtin.begin(), builtin.end(), name) != builtin.end()) {
      Fail(Pos(key.source()),
           fmt::format("sweep axis '{}' would hide the {{{}}} placeholder; choose another name", name, name));
    }
    Axis axis{name, Pos(key.source()), {}, {}};
    const toml::array& values = *node.as_array();
    // Checked before any value is read: a million-value axis once took minutes and gigabytes.
    if (values.size() > limits::kMaxSweepPoints) {
      Fail(Pos(node), fmt::format("sweep axis '{}' has {} values; a sweep may have at most {} points", name,
                                  values.size(), limits::kMaxSweepPoints));
    }
    for (const toml::node& v : values) {
      Located value{AxisValueText(v, name), Pos(v)};
      // Two equal values would make two workloads of one name whose samples merge.
      for (const Located& earlier : axis.values) {
        if (earlier.value == value.value) {
          Fail(value.pos, fmt::format("sweep axis '{}' lists {} twice (first at line {}, column {})", name, value.value,
                                      earlier.pos.line, earlier.pos.column));
        }
      }
      axis.values.push_back(std::move(value));
    }
    if (axis.values.empty()) Fail(Pos(node), fmt::format("sweep axis '{}' has no values", name));
    for (const Located& v : axis.values) CheckAxisValue(axis.name, v);
    axes.push_back(std::move(axis));
  }
  std::sort(axes.begin(), axes.end(), [](const Axis& a, const Axis& b) { return Before(a.pos, b.pos); });
  if (axes.empty()) Fail(Pos(table), fmt::format("{} declares no axis: add e.g. threads = [1, 2, 4]", where));
  std::size_t points = 1;
  std::vector<std::string> sizes;
  for (const Axis& a : axes) {
    points = std::min(points * a.values.size(), limits::kMaxSweepPoints + 1);  // each factor is capped: no overflow
    sizes.push_back(std::to_string(a.values.size()));
  }
  if (points > limits::kMaxSweepPoints) {
    Fail(w.pos, fmt::format("{} has more than {} points ({} values); use fewer values or split it into several sweeps",
                            where, limits::kMaxSweepPoints, fmt::join(sizes, " x ")));
  }
  for (const Axis& a : axes) sweep.axes.push_back(a.name);
  if (const toml::table* env = TableAt(table, "env")) ParseSweepEnv(*env, axes, where, w.name);
  for (Axis& a : axes) {
    if (a.name != "allocator") continue;
    for (const Located& v : a.values) {
      if (a.env.count(v.value) || v.value == "system") continue;
      if (v.value == "mimalloc") {
        a.env[v.value] = {{"LD_PRELOAD", "libmimalloc.so.2"}};  // Debian's libmimalloc2.0
        continue;
      }
      Fail(v.pos, fmt::format("allocator '{}' has no environment: add {} to [workloads.{}.sweep.env.allocator], "
                              "e.g. {{ LD_PRELOAD = \"libjemalloc.so.2\" }}",
                              v.value, v.value, w.name));
    }
  }
  if (const toml::table* th = TableAt(table, "thresholds")) {
    CheckKeys(*th, {"max_cost_exponent", "min_scaling_efficiency", "efficiency_threads"}, where + ".thresholds");
    sweep.max_cost_exponent = Number(*th, "max_cost_exponent", 0, true);
    sweep.min_scaling_efficiency = Number(*th, "min_scaling_efficiency", 0, true, 1.0);
    if (auto n = Integer(*th, "efficiency_threads", 2, limits::kMaxThreads))
      sweep.efficiency_threads = static_cast<int>(*n);
    const Axis* threads = nullptr;
    for (const Axis& a : axes) {
      if (a.name == "threads") threads = &a;
    }
    if (sweep.min_scaling_efficiency && threads == nullptr) {
      Fail(Pos(*th->get("min_scaling_efficiency")), "min_scaling_efficiency needs a 'threads' axis in the sweep");
    }
    if (sweep.min_scaling_efficiency && sweep.efficiency_threads == 0) {
      Fail(Pos(*th->get("min_scaling_efficiency")),
           "min_scaling_efficiency needs efficiency_threads, the thread count it is read at");
    }
    if (sweep.efficiency_threads != 0 && threads != nullptr &&
        std::none_of(threads->values.begin(), threads->values.end(),
                     [&](const Located& v) { return v.value == std::to_string(sweep.efficiency_threads); })) {
      Fail(Pos(*th->get("efficiency_threads")),
           fmt::format("efficiency_threads = {} is not a value of the threads axis", sweep.efficiency_threads));
    }
    if (sweep.max_cost_exponent &&
        std::none_of(axes.begin(), axes.end(), [](const Axis& a) { return a.name == "scale"; })) {
      Fail(Pos(*th->get("max_cost_exponent")), "max_cost_exponent needs a 'scale' axis in the sweep");
    }
    // Too few points for a check is an error here, never a check skipped at run time.
    for (const Axis& a : axes) {
      if (sweep.max_cost_exponent && a.name == "scale" && a.values.size() < 3) {
        Fail(Pos(*th->get("max_cost_exponent")),
             fmt::format("max_cost_exponent needs at least 3 values on the 'scale' axis to fit an exponent with an "
                         "interval; this sweep has {}",
                         a.values.size()));
      }
    }
    if (sweep.min_scaling_efficiency && threads != nullptr &&
        std::none_of(threads->values.begin(), threads->values.end(), [](const Located& v) { return v.value == "1"; })) {
      Fail(Pos(*th->get("min_scaling_efficiency")),
           "min_scaling_efficiency needs 1 among the threads axis' values: efficiency is relative to one thread");
    }
  }
  return axes;
}

std::string Parser::AxisValueText(const toml::node& v, const std::string& axis) const {
  if (auto* i = v.as_integer()) return std::to_string(i->get());
  if (auto* f = v.as_floating_point()) return fmt::format("{}", f->get());
  if (auto* s = v.as_string()) return std::string(s->get());
  Fail(Pos(v), fmt::format("sweep axis '{}' values must be numbers or strings, not {}", axis, TypeName(v)));
}

void Parser::CheckAxisValue(const std::string& axis, const Located& v) const {
  if (axis == "threads") {
    char* end = nullptr;
    const long n = std::strtol(v.value.c_str(), &end, 10);
    if (v.value.empty() || *end != '\0' || n < 1 || n > limits::kMaxThreads) {
      Fail(v.pos,
           fmt::format("threads values must be whole numbers from 1 to {}, not '{}'", limits::kMaxThreads, v.value));
    }
  }
  if (axis == "scale") {
    char* end = nullptr;
    const double x = std::strtod(v.value.c_str(), &end);
    if (v.value.empty() || *end != '\0' || !(x > 0) || !(x <= limits::kMaxScale)) {
      Fail(v.pos, fmt::format("scale values must be numbers greater than 0 and at most {}, not '{}'", limits::kMaxScale,
                              v.value));
    }
  }
}

void Parser::ParseSweepEnv(const toml::table& env, std::vector<Axis>& axes, const std::string& where,
                           const std::string& sweep_name) const {
  std::vector<std::string> names;
  for (const Axis& a : axes) names.push_back(a.name);
  for (auto&& [axis_key, per_value] : env) {
    const std::string axis_name(axis_key.str());
    auto axis = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == axis_name; });
    if (axis == axes.end()) {
      Fail(Pos(axis_key.source()), fmt::format("[workloads.{}.sweep.env] names '{}', which is not an axis{}",
                                               sweep_name, axis_name, DidYouMean(axis_name, names)));
    }
    if (!per_value.is_table())
      Fail(Pos(per_value), fmt::format("{}.env.{} must be a table of values", where, axis_name));
    std::vector<std::string> values;
    for (const Located& v : axis->values) values.push_back(v.value);
    for (auto&& [value_key, vars] : *per_value.as_table()) {
      const std::string value(value_key.str());
      if (std::find(values.begin(), values.end(), value) == values.end()) {
        Fail(Pos(value_key.source()),
             fmt::format("'{}' is not a value of the {} axis{}", value, axis_name, DidYouMean(value, values)));
      }
      if (!vars.is_table())
        Fail(Pos(vars), fmt::format("the environment for {} = {} must be a table", axis_name, value));
      for (auto&& [var, text] : *vars.as_table()) {
        axis->env[value][std::string(var.str())] = EnvValue(var, text);
        CheckPlaceholders({{std::string(text.as_string()->get()), Pos(text)}}, nullptr, names);
      }
    }
  }
}

std::vector<Workload> Parser::ExpandSweep(const Workload& base, const std::vector<Axis>& axes) const {
  std::vector<Workload> points;
  std::vector<size_t> index(axes.size(), 0);
  while (true) {
    Workload p = base;
    p.sweep = base.name;
    std::vector<std::string> parts;
    for (size_t i = 0; i < axes.size(); ++i) {
      const Axis& a = axes[i];
      const std::string& value = a.values[index[i]].value;
      p.point.emplace_back(a.name, value);
      parts.push_back(a.name + "=" + value);
      if (auto it = a.env.find(value); it != a.env.end()) {
        for (const auto& [k, v] : it->second) p.env[k] = v;
      }
      if (a.name == "scale") p.scale_factor = std::strtod(value.c_str(), nullptr);
    }
    p.name = fmt::format("{}[{}]", base.name, fmt::join(parts, ","));
    if (base.worker) {  // its benchmark names the point: "eval/threads={threads}"
      std::map<std::string, std::string> values(p.point.begin(), p.point.end());
      p.benchmark = Expand(base.benchmark == base.name ? p.name : base.benchmark, values);
    }
    p.elements = base.elements * p.scale_factor;
    points.push_back(std::move(p));
    size_t i = axes.size();
    while (i > 0 && ++index[i - 1] == axes[i - 1].values.size()) index[--i] = 0;
    if (i == 0) break;
  }
  return points;
}

}  // namespace pe::spec::internal

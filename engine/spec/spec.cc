#include "engine/spec/spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "engine/spec/placeholders.h"
#include "engine/spec/suggest.h"
#include "generators/generator.h"
#include "generators/sha256.h"

namespace pe::spec {

SpecError::SpecError(const SourcePos& pos, const std::string& message)
    : std::runtime_error(fmt::format("{}:{}:{}: {}", pos.file, pos.line, pos.column, message)),
      pos_(pos),
      message_(message) {}

namespace {


bool ValidName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

bool Before(const SourcePos& a, const SourcePos& b) {
  return a.line != b.line ? a.line < b.line : a.column < b.column;
}

const char* TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date or time";
  }
}

// Walks the TOML tree; every error it raises points at the node or key at fault.
class Parser {
 public:
  Parser(std::filesystem::path path, const toml::table& root) : path_(std::move(path)), root_(root) {}

  Spec Parse() {
    Spec spec;
    spec.path = path_;
    CheckKeys(root_, {"description", "run", "contenders", "workloads", "thresholds"}, "the spec");
    if (auto* run = TableAt(root_, "run")) ParseRun(*run, spec);
    ParseContenders(spec);
    ParseRoles(spec);
    if (auto* t = TableAt(root_, "thresholds")) spec.thresholds = ParseThresholds(*t, "[thresholds]");
    ParseWorkloads(spec);
    return spec;
  }

 private:
  SourcePos Pos(const toml::source_region& region) const {
    return {path_.string(), static_cast<int>(region.begin.line),
            static_cast<int>(region.begin.column)};
  }
  SourcePos Pos(const toml::node& node) const { return Pos(node.source()); }

  [[noreturn]] void Fail(const SourcePos& pos, const std::string& message) const {
    throw SpecError(pos, message);
  }

  void CheckKeys(const toml::table& table, const std::vector<std::string>& allowed,
                 const std::string& where) const {
    for (auto&& [key, value] : table) {
      const std::string name(key.str());
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        Fail(Pos(key.source()),
             fmt::format("unknown key '{}' in {}{}", name, where, DidYouMean(name, allowed)));
      }
    }
  }

  const toml::table* TableAt(const toml::table& parent, std::string_view key) const {
    const toml::node* node = parent.get(key);
    if (node == nullptr) return nullptr;
    if (!node->is_table()) Fail(Pos(*node), fmt::format("'{}' must be a table, not {}", key, TypeName(*node)));
    return node->as_table();
  }

  std::optional<std::string> String(const toml::table& t, std::string_view key) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_string()) Fail(Pos(*node), fmt::format("'{}' must be a string, not {}", key, TypeName(*node)));
    return std::string(node->as_string()->get());
  }

  std::optional<bool> Bool(const toml::table& t, std::string_view key) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_boolean()) Fail(Pos(*node), fmt::format("'{}' must be true or false, not {}", key, TypeName(*node)));
    return node->as_boolean()->get();
  }

  std::optional<std::int64_t> Integer(const toml::table& t, std::string_view key, std::int64_t min) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_integer()) Fail(Pos(*node), fmt::format("'{}' must be an integer, not {}", key, TypeName(*node)));
    const std::int64_t value = node->as_integer()->get();
    if (value < min) Fail(Pos(*node), fmt::format("'{}' must be at least {}, not {}", key, min, value));
    return value;
  }

  // A number; `exclusive_min` says whether `min` itself is allowed.
  std::optional<double> Number(const toml::table& t, std::string_view key, double min,
                               bool exclusive_min, std::optional<double> max = std::nullopt) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    double value = 0;
    if (node->is_integer()) value = static_cast<double>(node->as_integer()->get());
    else if (node->is_floating_point()) value = node->as_floating_point()->get();
    else Fail(Pos(*node), fmt::format("'{}' must be a number, not {}", key, TypeName(*node)));
    if (!std::isfinite(value)) Fail(Pos(*node), fmt::format("'{}' must be a finite number", key));
    if (exclusive_min ? value <= min : value < min) {
      Fail(Pos(*node), fmt::format("'{}' must be {} {}, not {}", key,
                                   exclusive_min ? "greater than" : "at least", min, value));
    }
    if (max && value > *max) Fail(Pos(*node), fmt::format("'{}' must be at most {}, not {}", key, *max, value));
    return value;
  }

  std::optional<std::vector<Located>> StringArray(const toml::table& t, std::string_view key,
                                                  bool non_empty) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    if (!node->is_array()) {
      Fail(Pos(*node), fmt::format("'{}' must be an array of strings, not {}", key, TypeName(*node)));
    }
    std::vector<Located> out;
    for (const toml::node& element : *node->as_array()) {
      if (!element.is_string()) {
        Fail(Pos(element), fmt::format("'{}' must hold only strings, not {}", key, TypeName(element)));
      }
      out.push_back({std::string(element.as_string()->get()), Pos(element)});
    }
    if (non_empty && out.empty()) Fail(Pos(*node), fmt::format("'{}' must not be empty", key));
    return out;
  }

  void ParseRun(const toml::table& run, Spec& spec) const {
    CheckKeys(run, {"rounds", "warmup_rounds", "scale", "seed", "timeout", "order", "baseline",
                    "candidate", "bootstrap_resamples", "confidence", "measure"}, "[run]");
    if (auto measure = StringArray(run, "measure", false)) {
      const std::vector<std::string> kinds = {"instructions", "allocations"};
      for (const Located& m : *measure) {
        if (m.value == "instructions") spec.measure_instructions = true;
        else if (m.value == "allocations") spec.measure_allocations = true;
        else Fail(m.pos, fmt::format("unknown measure '{}'{}; expected instructions or allocations", m.value, DidYouMean(m.value, kinds)));
      }
    }
    Settings& s = spec.settings;
    if (auto v = Integer(run, "rounds", 1)) s.rounds = static_cast<int>(*v);
    if (auto v = Integer(run, "warmup_rounds", 0)) s.warmup_rounds = static_cast<int>(*v);
    if (auto v = Number(run, "scale", 0, true)) s.scale = *v;
    if (auto v = Integer(run, "seed", 0)) s.seed = static_cast<std::uint64_t>(*v);
    if (auto v = Number(run, "timeout", 0, true)) s.timeout_s = *v;
    if (auto v = Integer(run, "bootstrap_resamples", 100)) s.bootstrap_resamples = static_cast<int>(*v);
    if (auto v = Number(run, "confidence", 0, true, 0.9999)) s.confidence = *v;
    if (auto v = String(run, "order")) {
      const std::vector<std::string> orders = {"alternate", "random"};
      if (std::find(orders.begin(), orders.end(), *v) == orders.end()) {
        Fail(Pos(*run.get("order")), fmt::format("unknown order '{}'{}; expected 'alternate' or 'random'",
                                                 *v, DidYouMean(*v, orders)));
      }
      s.order = *v;
    }
  }

  void ParseContenders(Spec& spec) const {
    const toml::table* contenders = TableAt(root_, "contenders");
    if (contenders == nullptr || contenders->empty()) {
      Fail({path_.string(), 1, 1}, "the spec declares no contenders: add [contenders.NAME] tables");
    }
    for (auto&& [key, node] : *contenders) {
      const std::string name(key.str());
      if (!ValidName(name)) {
        Fail(Pos(key.source()), fmt::format("contender name '{}' may hold only letters, digits, '-', '_' and '.'", name));
      }
      if (!node.is_table()) Fail(Pos(node), fmt::format("contender '{}' must be a table, not {}", name, TypeName(node)));
      const toml::table& t = *node.as_table();
      const std::string where = fmt::format("[contenders.{}]", name);
      CheckKeys(t, {"argv", "env", "workdir", "description", "startup", "git", "repo", "build"}, where);
      Contender c;
      c.name = name;
      c.pos = Pos(key.source());
      auto argv = StringArray(t, "argv", true);
      if (!argv) Fail(Pos(key.source()), fmt::format("{} needs 'argv', the program and its leading arguments", where));
      c.argv = *argv;
      c.description = String(t, "description").value_or("");
      if (auto workdir = String(t, "workdir")) c.workdir = ResolveAgainstSpec(*workdir);
      if (auto git = String(t, "git")) {
        if (git->empty()) Fail(Pos(*t.get("git")), "'git' must name a revision, e.g. \"main\" or \"HEAD\"");
        c.git = *git;
        c.repo = ResolveAgainstSpec(String(t, "repo").value_or("."));
        if (auto build = StringArray(t, "build", true)) {
          for (const Located& b : *build) c.build.push_back(b.value);
        }
      } else {
        for (const char* key : {"repo", "build"}) {
          if (t.get(key)) Fail(Pos(*t.get(key)), fmt::format("'{}' only applies to a contender built from git: add git = \"REVISION\"", key));
        }
      }
      if (auto startup = StringArray(t, "startup", true)) {
        c.startup_argv = *startup;
      } else {
        c.startup_argv = {c.argv.front(), {"--version", c.argv.front().pos}};
      }
      if (const toml::table* env = TableAt(t, "env")) {
        for (auto&& [env_key, env_value] : *env) {
          if (!env_value.is_string()) {
            Fail(Pos(env_value), fmt::format("environment variable '{}' must be a string, not {}",
                                             env_key.str(), TypeName(env_value)));
          }
          c.env[std::string(env_key.str())] = std::string(env_value.as_string()->get());
        }
      }
      CheckPlaceholders(c.argv, nullptr);
      CheckPlaceholders(c.startup_argv, nullptr);
      spec.contenders.push_back(std::move(c));
    }
    // toml++ tables iterate by key; the spec's order is the order in the file.
    std::sort(spec.contenders.begin(), spec.contenders.end(),
              [](const Contender& a, const Contender& b) { return Before(a.pos, b.pos); });
    if (spec.contenders.size() < 2) {
      Fail(spec.contenders.front().pos, "the spec declares one contender; a comparison needs at least two");
    }
  }

  void ParseRoles(Spec& spec) const {
    const toml::table* run = root_["run"].as_table();
    const std::vector<std::string> names = spec.ContenderNames();
    auto role = [&](std::string_view key, std::string fallback) {
      if (run == nullptr || run->get(key) == nullptr) return fallback;
      std::string value = *String(*run, key);
      if (spec.FindContender(value) == nullptr) {
        Fail(Pos(*run->get(key)), fmt::format("{} '{}' is not a contender{}", key, value, DidYouMean(value, names)));
      }
      return value;
    };
    // Without explicit roles, contenders named like their role take it, else spec order decides.
    auto named = [&](const std::string& n, size_t index) {
      return spec.FindContender(n) ? n : spec.contenders[index].name;
    };
    spec.baseline = role("baseline", named("baseline", 0));
    spec.candidate = role("candidate", named("candidate", 1));
    if (spec.baseline == spec.candidate) {
      const toml::node* where = run ? run->get("candidate") : nullptr;
      Fail(where ? Pos(*where) : spec.contenders.front().pos,
           fmt::format("baseline and candidate are both '{}'; they must differ", spec.baseline));
    }
  }

  ThresholdOverrides ParseThresholds(const toml::table& t, const std::string& where) const {
    CheckKeys(t, {"min_speedup", "min_win_rate", "min_logic_speedup", "max_rss_ratio", "rss_runs",
                  "min_speedup_ci", "max_slowdown", "confidence", "max_instructions_ratio",
                  "max_allocations_ratio", "max_p99_ratio"}, where);
    ThresholdOverrides o;
    o.min_speedup = Number(t, "min_speedup", 0, true);
    o.min_win_rate = Number(t, "min_win_rate", 0, false, 1.0);
    o.min_logic_speedup = Number(t, "min_logic_speedup", 0, true);
    o.max_rss_ratio = Number(t, "max_rss_ratio", 0, true);
    if (auto v = Integer(t, "rss_runs", 0)) o.rss_runs = static_cast<int>(*v);
    o.min_speedup_ci = Number(t, "min_speedup_ci", 0, true);
    o.max_slowdown = Number(t, "max_slowdown", 0, true);
    o.confidence = Number(t, "confidence", 0, true, 0.9999);
    o.max_instructions_ratio = Number(t, "max_instructions_ratio", 0, true);
    o.max_allocations_ratio = Number(t, "max_allocations_ratio", 0, true);
    o.max_p99_ratio = Number(t, "max_p99_ratio", 0, true);
    return o;
  }

  void ParseWorkloads(Spec& spec) const {
    Workload startup;
    startup.name = "startup";
    startup.description = "each contender's startup command: the fixed cost of launching it";
    startup.startup = true;
    startup.gate = false;
    const toml::table* workloads = TableAt(root_, "workloads");
    if (workloads == nullptr || workloads->empty()) {
      Fail({path_.string(), 1, 1}, "the spec declares no workloads: add [workloads.NAME] tables");
    }
    std::vector<Workload> declared;
    for (auto&& [key, node] : *workloads) {
      const std::string name(key.str());
      if (!ValidName(name)) {
        Fail(Pos(key.source()), fmt::format("workload name '{}' may hold only letters, digits, '-', '_' and '.'", name));
      }
      if (!node.is_table()) Fail(Pos(node), fmt::format("workload '{}' must be a table, not {}", name, TypeName(node)));
      const toml::table& t = *node.as_table();
      const std::string where = fmt::format("[workloads.{}]", name);
      if (name == "startup") {
        // The startup workload runs each contender's own `startup` argv; only its gating is set here.
        CheckKeys(t, {"description", "gate", "timeout", "thresholds"}, where + " (the built-in startup workload)");
        startup.pos = Pos(key.source());
        if (auto d = String(t, "description")) startup.description = *d;
        startup.gate = Bool(t, "gate").value_or(false);
        startup.timeout_s = Number(t, "timeout", 0, true);
        if (auto* th = TableAt(t, "thresholds")) startup.thresholds = ParseThresholds(*th, where + ".thresholds");
        continue;
      }
      CheckKeys(t, {"description", "args", "output", "parity", "gate", "timeout", "fixture", "thresholds", "elements",
                    "sweep", "sort_lists", "kind", "health", "ready_timeout", "requests", "method", "body",
                    "request_count", "concurrency", "request_timeout"}, where);
      Workload w;
      w.name = name;
      w.pos = Pos(key.source());
      w.description = String(t, "description").value_or("");
      w.args = StringArray(t, "args", false).value_or(std::vector<Located>{});
      w.gate = Bool(t, "gate").value_or(true);
      w.timeout_s = Number(t, "timeout", 0, true);
      if (auto output = String(t, "output")) {
        w.output = *output;
        w.output_pos = Pos(*t.get("output"));
      }
      if (auto parity = String(t, "parity")) w.normaliser = ParseNormaliser(*parity, *t.get("parity"));
      ParseFixture(t, w);
      if (auto* th = TableAt(t, "thresholds")) w.thresholds = ParseThresholds(*th, where + ".thresholds");
      if (auto e = Number(t, "elements", 0, false)) w.elements = *e;
      w.sort_lists = Bool(t, "sort_lists").value_or(false);
      ParseServe(t, w);
      std::vector<Axis> axes;
      Sweep sweep;
      if (auto* sw = TableAt(t, "sweep")) axes = ParseSweep(*sw, w, sweep);
      std::vector<std::string> axis_names;
      for (const Axis& a : axes) axis_names.push_back(a.name);
      if (w.serve) axis_names.push_back("port");
      CheckPlaceholders(w.args, &w, axis_names);
      if (w.serve && std::none_of(w.args.begin(), w.args.end(),
                                  [](const Located& a) { return a.value.find("{port}") != std::string::npos; })) {
        Fail(w.pos, fmt::format("serve workload '{}' never passes {{port}} to the server: add it to args, e.g. "
                                "[\"serve\", \"--port\", \"{{port}}\"]", w.name));
      }
      if (w.output != "stdout") CheckPlaceholders({{w.output, w.output_pos}}, &w, axis_names);
      if (axes.empty()) {
        declared.push_back(std::move(w));
        continue;
      }
      spec.sweeps.push_back(sweep);
      for (Workload& point : ExpandSweep(w, axes)) declared.push_back(std::move(point));
    }
    std::sort(spec.sweeps.begin(), spec.sweeps.end(), [](const Sweep& a, const Sweep& b) { return Before(a.pos, b.pos); });
    // Stable: the points of one sweep share its position and keep their expansion order.
    std::stable_sort(declared.begin(), declared.end(),
                     [](const Workload& a, const Workload& b) { return Before(a.pos, b.pos); });
    if (declared.empty()) Fail(startup.pos, "the spec declares only the startup workload; add one that does work");
    spec.workloads.push_back(std::move(startup));
    for (auto& w : declared) spec.workloads.push_back(std::move(w));
  }

  Normaliser ParseNormaliser(const std::string& value, const toml::node& node) const {
    static const std::vector<std::pair<std::string, Normaliser>> kinds = {
        {"exact", Normaliser::kExact}, {"sorted-lines", Normaliser::kSortedLines},
        {"json", Normaliser::kJson}, {"json-map", Normaliser::kJsonMap}};
    std::vector<std::string> names;
    for (const auto& [n, k] : kinds) {
      if (n == value) return k;
      names.push_back(n);
    }
    Fail(Pos(node), fmt::format("unknown parity normaliser '{}'{}; expected one of exact, sorted-lines, json, json-map",
                                value, DidYouMean(value, names)));
  }

  void ParseFixture(const toml::table& t, Workload& w) const {
    const toml::node* node = t.get("fixture");
    if (node == nullptr) return;
    Fixture& f = w.fixture;
    f.pos = Pos(*node);
    if (node->is_string()) {
      f.kind = Fixture::Kind::kDirectory;
      f.directory = ResolveAgainstSpec(std::string(node->as_string()->get()));
      if (!std::filesystem::is_directory(f.directory)) {
        Fail(f.pos, fmt::format("fixture directory '{}' does not exist", f.directory.string()));
      }
      return;
    }
    if (!node->is_table()) {
      Fail(f.pos, fmt::format("'fixture' must be a directory path or a table with a generator, not {}", TypeName(*node)));
    }
    const toml::table& table = *node->as_table();
    auto name = String(table, "generator");
    if (!name) Fail(f.pos, fmt::format("[workloads.{}.fixture] needs 'generator', the name of a fixture generator", w.name));
    const gen::Registry& registry = gen::BuiltinRegistry();
    std::unique_ptr<gen::Generator> generator = registry.Create(*name);
    if (!generator) {
      Fail(Pos(*table.get("generator")), fmt::format("unknown generator '{}'{}", *name, DidYouMean(*name, registry.Names())));
    }
    f.kind = Fixture::Kind::kGenerator;
    f.generator = *name;
    for (auto&& [key, value] : table) {
      const std::string k(key.str());
      if (k == "generator") continue;
      f.param_pos[k] = Pos(key.source());
      f.params[k] = ParamValue(value, k);
    }
    try {
      generator->Check(f.params);
    } catch (const gen::ParamError& e) {
      auto it = f.param_pos.find(e.key);
      const std::string message = e.what();
      // Name the generator once, whether or not its own message already does.
      const bool named = message.find("'" + *name + "'") != std::string::npos;
      Fail(it != f.param_pos.end() ? it->second : f.pos,
           named ? message : fmt::format("generator '{}': {}", *name, message));
    }
  }

  gen::ParamValue ParamValue(const toml::node& node, const std::string& key) const {
    if (auto* v = node.as_integer()) return v->get();
    if (auto* v = node.as_floating_point()) return v->get();
    if (auto* v = node.as_boolean()) return v->get();
    if (auto* v = node.as_string()) return v->get();
    if (auto* array = node.as_array()) {
      std::vector<std::string> values;
      for (const toml::node& element : *array) {
        if (!element.is_string()) Fail(Pos(element), fmt::format("generator parameter '{}' must hold only strings", key));
        values.emplace_back(element.as_string()->get());
      }
      return values;
    }
    Fail(Pos(node), fmt::format("generator parameter '{}' cannot be {}", key, TypeName(node)));
  }

  // Rejects unknown placeholders, and {fixture} in a workload that has none.
  void CheckPlaceholders(const std::vector<Located>& strings, const Workload* workload,
                         const std::vector<std::string>& axes = {}) const {
    std::vector<std::string> known = PlaceholderNames();
    known.insert(known.end(), axes.begin(), axes.end());
    for (const Located& s : strings) {
      std::string error;
      for (const std::string& name : PlaceholdersIn(s.value, &error)) {
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          std::vector<std::string> braced;
          for (const auto& p : known) braced.push_back("{" + p + "}");
          Fail(s.pos, fmt::format("unknown placeholder '{{{}}}'{}", name, DidYouMean("{" + name + "}", braced)));
        }
        if (name == "fixture" && workload != nullptr && workload->fixture.kind == Fixture::Kind::kNone) {
          Fail(s.pos, fmt::format("workload '{}' uses {{fixture}} but declares no fixture", workload->name));
        }
      }
      if (!error.empty()) Fail(s.pos, error);
    }
  }

  // Keys of a serve workload; they are errors on a process workload, and `output` is one on
  // a serve workload (its answers are the response bodies).
  void ParseServe(const toml::table& t, Workload& w) const {
    static const std::vector<std::string> kServeKeys = {"health", "ready_timeout", "requests", "method", "body",
                                                        "request_count", "concurrency", "request_timeout"};
    if (auto kind = String(t, "kind")) {
      const std::vector<std::string> kinds = {"process", "serve"};
      if (std::find(kinds.begin(), kinds.end(), *kind) == kinds.end()) {
        Fail(Pos(*t.get("kind")), fmt::format("unknown kind '{}'{}; expected process or serve", *kind, DidYouMean(*kind, kinds)));
      }
      w.serve = *kind == "serve";
    }
    if (!w.serve) {
      for (const std::string& key : kServeKeys) {
        if (t.get(key)) Fail(Pos(*t.get(key)), fmt::format("'{}' applies to a serve workload: add kind = \"serve\"", key));
      }
      return;
    }
    if (t.get("output")) Fail(Pos(*t.get("output")), "a serve workload's output is its response bodies; remove 'output'");
    Workload::Serve& s = w.serve_options;
    if (auto v = String(t, "health")) s.health = *v;
    if (auto v = Number(t, "ready_timeout", 0, true)) s.ready_timeout_s = *v;
    if (auto v = String(t, "method")) s.method = *v;
    if (auto v = String(t, "body")) s.body = *v;
    if (auto v = Integer(t, "request_count", 1)) s.request_count = static_cast<int>(*v);
    if (auto v = Integer(t, "concurrency", 1)) s.concurrency = static_cast<int>(*v);
    if (auto v = Number(t, "request_timeout", 0, true)) s.request_timeout_s = *v;
    auto requests = StringArray(t, "requests", true);
    if (!requests) Fail(w.pos, fmt::format("serve workload '{}' needs 'requests', the request targets to send", w.name));
    for (const Located& r : *requests) {
      if (r.value.empty() || r.value[0] != '/') Fail(r.pos, fmt::format("request target '{}' must start with '/'", r.value));
      s.requests.push_back(r.value);
    }
    if (s.request_count == 0) s.request_count = 10 * static_cast<int>(s.requests.size());
  }

  struct Axis {
    std::string name;
    SourcePos pos;
    std::vector<Located> values;
    std::map<std::string, std::map<std::string, std::string>> env;  // value -> variables
  };

  std::vector<Axis> ParseSweep(const toml::table& table, const Workload& w, Sweep& sweep) const {
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
        Fail(Pos(key.source()), fmt::format("sweep axis '{}' would hide the {{{}}} placeholder; choose another name", name, name));
      }
      Axis axis{name, Pos(key.source()), {}, {}};
      for (const toml::node& v : *node.as_array()) axis.values.push_back({AxisValueText(v, name), Pos(v)});
      if (axis.values.empty()) Fail(Pos(node), fmt::format("sweep axis '{}' has no values", name));
      for (const Located& v : axis.values) CheckAxisValue(axis.name, v);
      axes.push_back(std::move(axis));
    }
    std::sort(axes.begin(), axes.end(), [](const Axis& a, const Axis& b) { return Before(a.pos, b.pos); });
    if (axes.empty()) Fail(Pos(table), fmt::format("{} declares no axis: add e.g. threads = [1, 2, 4]", where));
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
      if (auto n = Integer(*th, "efficiency_threads", 2)) sweep.efficiency_threads = static_cast<int>(*n);
      const Axis* threads = nullptr;
      for (const Axis& a : axes) {
        if (a.name == "threads") threads = &a;
      }
      if (sweep.min_scaling_efficiency && threads == nullptr) {
        Fail(Pos(*th->get("min_scaling_efficiency")), "min_scaling_efficiency needs a 'threads' axis in the sweep");
      }
      if (sweep.min_scaling_efficiency && sweep.efficiency_threads == 0) {
        Fail(Pos(*th->get("min_scaling_efficiency")), "min_scaling_efficiency needs efficiency_threads, the thread count it is read at");
      }
      if (sweep.efficiency_threads != 0 && threads != nullptr &&
          std::none_of(threads->values.begin(), threads->values.end(),
                       [&](const Located& v) { return v.value == std::to_string(sweep.efficiency_threads); })) {
        Fail(Pos(*th->get("efficiency_threads")),
             fmt::format("efficiency_threads = {} is not a value of the threads axis", sweep.efficiency_threads));
      }
      if (sweep.max_cost_exponent && std::none_of(axes.begin(), axes.end(), [](const Axis& a) { return a.name == "scale"; })) {
        Fail(Pos(*th->get("max_cost_exponent")), "max_cost_exponent needs a 'scale' axis in the sweep");
      }
    }
    return axes;
  }

  std::string AxisValueText(const toml::node& v, const std::string& axis) const {
    if (auto* i = v.as_integer()) return std::to_string(i->get());
    if (auto* f = v.as_floating_point()) return fmt::format("{}", f->get());
    if (auto* s = v.as_string()) return std::string(s->get());
    Fail(Pos(v), fmt::format("sweep axis '{}' values must be numbers or strings, not {}", axis, TypeName(v)));
  }

  void CheckAxisValue(const std::string& axis, const Located& v) const {
    if (axis == "threads") {
      char* end = nullptr;
      const long n = std::strtol(v.value.c_str(), &end, 10);
      if (*end != '\0' || n < 1) Fail(v.pos, fmt::format("threads values must be whole numbers of at least 1, not '{}'", v.value));
    }
    if (axis == "scale") {
      char* end = nullptr;
      const double x = std::strtod(v.value.c_str(), &end);
      if (*end != '\0' || !(x > 0)) Fail(v.pos, fmt::format("scale values must be numbers greater than 0, not '{}'", v.value));
    }
  }

  void ParseSweepEnv(const toml::table& env, std::vector<Axis>& axes, const std::string& where,
                     const std::string& sweep_name) const {
    std::vector<std::string> names;
    for (const Axis& a : axes) names.push_back(a.name);
    for (auto&& [axis_key, per_value] : env) {
      const std::string axis_name(axis_key.str());
      auto axis = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == axis_name; });
      if (axis == axes.end()) {
        Fail(Pos(axis_key.source()), fmt::format("[workloads.{}.sweep.env] names '{}', which is not an axis{}", sweep_name, axis_name,
                                                  DidYouMean(axis_name, names)));
      }
      if (!per_value.is_table()) Fail(Pos(per_value), fmt::format("{}.env.{} must be a table of values", where, axis_name));
      std::vector<std::string> values;
      for (const Located& v : axis->values) values.push_back(v.value);
      for (auto&& [value_key, vars] : *per_value.as_table()) {
        const std::string value(value_key.str());
        if (std::find(values.begin(), values.end(), value) == values.end()) {
          Fail(Pos(value_key.source()), fmt::format("'{}' is not a value of the {} axis{}", value, axis_name,
                                                    DidYouMean(value, values)));
        }
        if (!vars.is_table()) Fail(Pos(vars), fmt::format("the environment for {} = {} must be a table", axis_name, value));
        for (auto&& [var, text] : *vars.as_table()) {
          if (!text.is_string()) {
            Fail(Pos(text), fmt::format("environment variable '{}' must be a string, not {}", var.str(), TypeName(text)));
          }
          axis->env[value][std::string(var.str())] = std::string(text.as_string()->get());
        }
      }
    }
  }

  // The cartesian product of the axes, first axis slowest, as one workload per point.
  std::vector<Workload> ExpandSweep(const Workload& base, const std::vector<Axis>& axes) const {
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
      p.elements = base.elements * p.scale_factor;
      points.push_back(std::move(p));
      size_t i = axes.size();
      while (i > 0 && ++index[i - 1] == axes[i - 1].values.size()) index[--i] = 0;
      if (i == 0) break;
    }
    return points;
  }

  std::filesystem::path ResolveAgainstSpec(const std::string& p) const {
    std::filesystem::path path(p);
    if (path.is_absolute()) return path;
    return (path_.parent_path().empty() ? std::filesystem::path(".") : path_.parent_path()) / path;
  }

  std::filesystem::path path_;
  const toml::table& root_;
};

}  // namespace

const Contender* Spec::FindContender(std::string_view name) const {
  for (const auto& c : contenders) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const Workload* Spec::FindWorkload(std::string_view name) const {
  for (const auto& w : workloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::vector<std::string> Spec::ContenderNames() const {
  std::vector<std::string> names;
  for (const auto& c : contenders) names.push_back(c.name);
  return names;
}

std::vector<std::string> Spec::WorkloadNames() const {
  std::vector<std::string> names;
  for (const auto& w : workloads) names.push_back(w.name);
  return names;
}

Spec ParseSpecText(std::string_view text, const std::filesystem::path& path) {
  toml::table root;
  try {
    root = toml::parse(text, path.string());
  } catch (const toml::parse_error& e) {
    throw SpecError({path.string(), static_cast<int>(e.source().begin.line),
                     static_cast<int>(e.source().begin.column)},
                    std::string(e.description()));
  }
  Spec spec = Parser(path, root).Parse();
  spec.digest = gen::Sha256Hex(text);
  return spec;
}

Spec ParseSpecFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read spec file '{}': {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseSpecText(text.str(), path);
}

Thresholds EffectiveThresholds(const Spec& spec, const Workload& workload) {
  const ThresholdOverrides& g = spec.thresholds;
  const ThresholdOverrides& w = workload.thresholds;
  Thresholds t;
  t.min_speedup = w.min_speedup ? w.min_speedup : g.min_speedup;
  t.min_win_rate = w.min_win_rate ? w.min_win_rate : g.min_win_rate;
  t.min_logic_speedup = w.min_logic_speedup ? w.min_logic_speedup : g.min_logic_speedup;
  t.max_rss_ratio = w.max_rss_ratio ? w.max_rss_ratio : g.max_rss_ratio;
  t.rss_runs = w.rss_runs.value_or(g.rss_runs.value_or(0));
  t.min_speedup_ci = w.min_speedup_ci ? w.min_speedup_ci : g.min_speedup_ci;
  t.max_slowdown = w.max_slowdown ? w.max_slowdown : g.max_slowdown;
  t.confidence = w.confidence.value_or(g.confidence.value_or(spec.settings.confidence));
  t.max_instructions_ratio = w.max_instructions_ratio ? w.max_instructions_ratio : g.max_instructions_ratio;
  t.max_allocations_ratio = w.max_allocations_ratio ? w.max_allocations_ratio : g.max_allocations_ratio;
  t.max_p99_ratio = w.max_p99_ratio ? w.max_p99_ratio : g.max_p99_ratio;
  return t;
}

std::string_view NormaliserName(Normaliser n) {
  switch (n) {
    case Normaliser::kExact: return "exact";
    case Normaliser::kSortedLines: return "sorted-lines";
    case Normaliser::kJson: return "json";
    case Normaliser::kJsonMap: return "json-map";
  }
  return "exact";
}

}  // namespace pe::spec

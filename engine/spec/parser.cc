#include "engine/spec/parser.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "engine/model/threshold_table.h"
#include "engine/spec/env_expand.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/rounds_reach.h"
#include "generators/generator.h"

namespace pe::spec::internal {

using model::Settings;

bool ValidName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

bool Before(const SourcePos& a, const SourcePos& b) { return a.line != b.line ? a.line < b.line : a.column < b.column; }

const char* TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

std::string Parser::EnvValue(const toml::key& name, const toml::node& value) const {
  const std::string_view key = name.str();
  if (key.empty()) Fail(Pos(name.source()), "an environment variable needs a name, not an empty one");
  if (key.find('\0') != std::string_view::npos) {
    Fail(Pos(name.source()), "an environment variable's name may not hold a NUL byte");
  }
  if (key.find('=') != std::string_view::npos) {
    Fail(Pos(name.source()),
         fmt::format("environment variable name '{}' may not hold '=' (the environment would read it as '{}')", key,
                     key.substr(0, key.find('='))));
  }
  if (!value.is_string()) {
    Fail(Pos(value), fmt::format("environment variable '{}' must be a string, not {}", key, TypeName(value)));
  }
  const std::string& text = value.as_string()->get();
  if (text.find('\0') != std::string::npos) {
    Fail(Pos(value), fmt::format("environment variable '{}' may not hold a NUL byte (the value would end there)", key));
  }
  return text;
}

Spec Parser::Parse() {
  Spec spec;
  spec.path = path_;
  Recover([&] {
    CheckKeys(root_, {"description", "run", "contenders", "workloads", "thresholds", "counters"}, "the spec");
  });
  Recover([&] {
    if (auto* counters = TableAt(root_, "counters")) ParseCounters(*counters, spec);
  });
  Recover([&] {
    if (auto* run = TableAt(root_, "run")) ParseRun(*run, spec);
  });
  // Roles name contenders: judged only when every contender parsed.
  bool contenders_clean = false;
  Recover([&] { contenders_clean = ParseContenders(spec); });
  if (contenders_clean) Recover([&] { ParseRoles(spec); });
  Recover([&] {
    if (auto* t = TableAt(root_, "thresholds")) spec.thresholds = ParseThresholds(*t, "[thresholds]");
  });
  Recover([&] { ParseWorkloads(spec); });
  Recover([&] { CheckCounterBars(spec); });
  Recover([&] { CheckWorkers(spec); });
  if (!errors_.empty()) throw SpecError::Several(errors_);
  CheckRoundsReach(spec);
  return spec;
}

void Parser::CheckRoundsReach(const Spec& spec) const {
  const int reach = std::max(spec.settings.rounds, spec.settings.max_rounds);
  for (const Workload& w : spec.workloads) {
    if (w.startup || !w.gate) continue;
    const auto shortfall = FindRoundsShortfall(EffectiveThresholds(spec, w), reach);
    if (!shortfall) continue;
    // Point at the threshold where it was set: the workload's own table, else [thresholds].
    const toml::node* where = nullptr;
    if (const toml::table* own = TableAt(root_, "workloads")) {
      if (const toml::table* wt = own->get_as<toml::table>(w.sweep.empty() ? w.name : w.sweep)) {
        if (const toml::table* tt = wt->get_as<toml::table>("thresholds")) where = tt->get(shortfall->threshold);
      }
    }
    if (where == nullptr) {
      if (const toml::table* global = TableAt(root_, "thresholds")) where = global->get(shortfall->threshold);
    }
    Fail(where ? Pos(*where) : w.pos, shortfall->message);
  }
}

void Parser::ParseRun(const toml::table& run, Spec& spec) const {
  CheckKeys(run,
            {"rounds", "warmup_rounds", "scale", "seed", "timeout", "order", "baseline", "candidate",
             "bootstrap_resamples", "confidence", "measure", "max_rounds", "compare", "batch_time", "batches",
             "final_look", "futility", "randomize_addresses", "pin_workers"},
            "[run]");
  Recover([&] {
    if (auto measure = StringArray(run, "measure", false)) {
      const std::vector<std::string> kinds = {"instructions", "allocations"};
      for (const Located& m : *measure) {
        if (m.value == "instructions")
          spec.measure_instructions = true;
        else if (m.value == "allocations")
          spec.measure_allocations = true;
        else
          Fail(m.pos, fmt::format("unknown measure '{}'{}; expected instructions or allocations", m.value,
                                  DidYouMean(m.value, kinds)));
      }
    }
  });
  Settings& s = spec.settings;
  Recover([&] {
    if (auto v = Integer(run, "rounds", 1, limits::kMaxRounds)) s.rounds = static_cast<int>(*v);
  });
  Recover([&] {
    if (auto v = Integer(run, "warmup_rounds", 0, limits::kMaxWarmupRounds)) s.warmup_rounds = static_cast<int>(*v);
  });
  Recover([&] {
    if (auto v = Integer(run, "max_rounds", 1, limits::kMaxRounds)) {
      if (*v < s.rounds) {
        Fail(Pos(*run.get("max_rounds")),
             fmt::format("'max_rounds' must be at least 'rounds' ({}), not {}", s.rounds, *v));
      }
      s.max_rounds = static_cast<int>(*v);
    }
  });
  Recover([&] {
    if (auto v = Number(run, "scale", 0, true, limits::kMaxScale)) s.scale = *v;
  });
  Recover([&] {
    if (auto v = Integer(run, "seed", 0, INT64_MAX)) s.seed = static_cast<std::uint64_t>(*v);
  });
  Recover([&] {
    if (auto v = Number(run, "timeout", 0, true, limits::kMaxTimeoutS)) s.timeout_s = *v;
  });
  Recover([&] {
    if (auto v = Integer(run, "bootstrap_resamples", limits::kMinBootstrapResamples, limits::kMaxBootstrapResamples))
      s.bootstrap_resamples = static_cast<int>(*v);
  });
  Recover([&] {
    if (auto v = Confidence(run, model::kConfidenceKey)) s.confidence = *v;
  });
  Recover([&] {
    if (auto v = Number(run, "batch_time", 0, true, limits::kMaxBatchTimeS)) s.batch_time_s = *v;
  });
  Recover([&] {
    if (auto v = Integer(run, "batches", 1, limits::kMaxBatches)) s.batches = static_cast<int>(*v);
  });
  if (auto v = Bool(run, "randomize_addresses")) s.randomize_addresses = *v;
  if (auto v = Bool(run, "pin_workers")) s.pin_workers = *v;
  if (auto v = String(run, "order")) {
    const std::vector<std::string> orders = {"alternate", "random", "duet"};
    if (std::find(orders.begin(), orders.end(), *v) == orders.end()) {
      Fail(Pos(*run.get("order")),
           fmt::format("unknown order '{}'{}; expected 'alternate', 'random' or 'duet'", *v, DidYouMean(*v, orders)));
    }
    s.order = *v;
    spec.order_pos = Pos(*run.get("order"));
  }
  if (auto v = String(run, "final_look")) {
    // The one test a final look may add (docs/statistics.md, "A final look"); "none" is the default.
    const std::vector<std::string> looks = {"none", model::kSignedRankLook};
    if (std::find(looks.begin(), looks.end(), *v) == looks.end()) {
      Fail(Pos(*run.get("final_look")), fmt::format("unknown final_look '{}'{}; expected '{}' or 'none'", *v,
                                                    DidYouMean(*v, looks), model::kSignedRankLook));
    }
    if (*v != "none") s.final_look = *v;
  }
  if (auto v = String(run, "futility")) {
    // The one stopping rule (docs/statistics.md, "Stopping for futility"): it reads the final look.
    const std::vector<std::string> rules = {"none", model::kConditionalPowerFutility};
    if (std::find(rules.begin(), rules.end(), *v) == rules.end()) {
      Fail(Pos(*run.get("futility")), fmt::format("unknown futility '{}'{}; expected '{}' or 'none'", *v,
                                                  DidYouMean(*v, rules), model::kConditionalPowerFutility));
    }
    if (*v != "none") {
      if (!s.final_look) {
        Fail(Pos(*run.get("futility")),
             fmt::format("futility = \"{}\" needs final_look = \"{}\": it stops a check whose final look could not "
                         "show a regression",
                         *v, model::kSignedRankLook));
      }
      s.futility = *v;
    }
  }
  if (auto v = String(run, "compare")) {
    // More than two contenders: each against the baseline, or every pair (docs/spec.md).
    const std::vector<std::string> kinds = {"baseline", "all-pairs"};
    if (std::find(kinds.begin(), kinds.end(), *v) == kinds.end()) {
      Fail(Pos(*run.get("compare")),
           fmt::format("unknown compare '{}'{}; expected 'baseline' or 'all-pairs'", *v, DidYouMean(*v, kinds)));
    }
    s.compare = *v;
  }
}

bool Parser::ParseContenders(Spec& spec) const {
  const toml::table* contenders = TableAt(root_, "contenders");
  if (contenders == nullptr || contenders->empty()) {
    if (use_ == SpecUse::kFixtures) return false;  // generate: fixtures need no contenders, and no roles
    Fail({path_.string(), 1, 1},
         "the spec declares no contenders: add [contenders.NAME] tables (only perfengine generate reads a spec "
         "without them)");
  }
  bool clean = true;
  for (auto&& [key, node] : *contenders) {
    clean &= Recover([&, &key = key, &node = node] { ParseContender(key, node, spec); });
  }
  if (!clean) return false;  // the mistakes are recorded; counting and roles would only echo them
  // toml++ tables iterate by key; the spec's order is the order in the file.
  std::sort(spec.contenders.begin(), spec.contenders.end(),
            [](const Contender& a, const Contender& b) { return Before(a.pos, b.pos); });
  if (spec.contenders.size() < 2) {
    Fail(spec.contenders.front().pos, "the spec declares one contender; a comparison needs at least two");
  }
  return true;
}

void Parser::ParseContender(const toml::key& key, const toml::node& node, Spec& spec) const {
  {
    const std::string name(key.str());
    if (!ValidName(name)) {
      Fail(Pos(key.source()), fmt::format("contender name '{}' may hold only letters, digits, '-', '_' and '.'", name));
    }
    if (!node.is_table()) Fail(Pos(node), fmt::format("contender '{}' must be a table, not {}", name, TypeName(node)));
    const toml::table& t = *node.as_table();
    const std::string where = fmt::format("[contenders.{}]", name);
    CheckKeys(t,
              {"argv", "env", "workdir", "description", "startup", "git", "repo", "build", "threads", "prepare",
               "cleanup", "isolated", "own_objects", "writable", "worker"},
              where);
    Contender c;
    c.name = name;
    c.pos = Pos(key.source());
    if (auto worker = StringArray(t, "worker", true)) c.worker = *worker;
    auto argv = StringArray(t, "argv", true);
    if (!argv && c.worker.empty()) {
      Fail(Pos(key.source()),
           fmt::format("{} needs 'argv', the program and its leading arguments (or 'worker', the command that starts "
                       "it as a worker: docs/workers.md)",
                       where));
    }
    c.argv_declared = argv.has_value();
    c.argv = argv ? *argv : c.worker;
    c.description = String(t, "description").value_or("");
    if (auto threads = Integer(t, "threads", 1, limits::kMaxThreads)) c.threads = static_cast<int>(*threads);
    if (auto workdir = String(t, "workdir")) c.workdir = ResolveAgainstSpec(*workdir);
    if (auto git = String(t, "git")) {
      if (git->empty()) Fail(Pos(*t.get("git")), "'git' must name a revision, e.g. \"main\" or \"HEAD\"");
      c.git = *git;
      c.git_pos = Pos(*t.get("git"));
      std::string repo = String(t, "repo").value_or(".");
      try {
        repo = ExpandEnvironment(repo, ProcessEnv);
      } catch (const std::invalid_argument& e) {
        Fail(Pos(*t.get("repo")), fmt::format("'repo': {}", e.what()));
      }
      c.repo = ResolveAgainstSpec(repo);
      if (auto build = StringArray(t, "build", true)) {
        for (const Located& b : *build) c.build.push_back(b.value);
      }
    } else {
      for (const char* key : {"repo", "build"}) {
        if (t.get(key))
          Fail(Pos(*t.get(key)),
               fmt::format("'{}' only applies to a contender built from git: add git = \"REVISION\"", key));
      }
    }
    if (auto writable = StringArray(t, "writable", true)) {
      for (const Located& w : *writable) c.writable.push_back(ResolveAgainstSpec(w.value));
    }
    c.isolated = Bool(t, "isolated").value_or(false);
    if (auto own = StringArray(t, "own_objects", true)) c.own_objects = *own;
    if (c.isolated && c.git.empty() && c.own_objects.empty()) {
      Fail(Pos(*t.get("isolated")),
           fmt::format("{} isolated = true needs own_objects = [\"DIR\", ...], the folders its own build's shared "
                       "objects are in (a contender built from git defaults to its worktree)",
                       where));
    }
    if (auto startup = StringArray(t, "startup", true)) {
      c.startup_argv = *startup;
    } else {
      c.startup_argv = {c.argv.front(), {"--version", c.argv.front().pos}};
    }
    if (const toml::table* env = TableAt(t, "env")) {
      for (auto&& [env_key, env_value] : *env) {
        c.env[std::string(env_key.str())] = EnvValue(env_key, env_value);
      }
    }
    // After its program, argv may use a parameter every workload declares (as hyperfine's -L).
    if (c.argv_declared) {  // else argv is the worker's, checked below
      CheckPlaceholders({c.argv.front()}, nullptr);
      CheckPlaceholders(std::vector<Located>(c.argv.begin() + 1, c.argv.end()), nullptr, CommonAxisNames());
    }
    CheckPlaceholders(c.startup_argv, nullptr);
    // A worker serves every worker workload: {fixture:NAME} is the fixture of worker workload NAME.
    if (!c.worker.empty()) CheckPlaceholders(c.worker, nullptr, WorkerFixturePlaceholders());
    c.hooks = ParseHooks(t, nullptr, {});
    std::vector<Located> env_values;
    if (const toml::table* env = t.get_as<toml::table>("env")) {
      for (auto&& [env_key, env_value] : *env)
        env_values.push_back({c.env[std::string(env_key.str())], Pos(env_value)});
    }
    CheckPlaceholders(env_values, nullptr);
    spec.contenders.push_back(std::move(c));
  }
}

void Parser::ParseRoles(Spec& spec) const {
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

ThresholdOverrides Parser::ParseThresholds(const toml::table& t, const std::string& where) const {
  std::vector<std::string> keys;
  for (const model::ThresholdRow& row : model::kThresholdRows) keys.emplace_back(row.key);
  keys.emplace_back(model::kRssRunsKey);
  keys.emplace_back(model::kCheckConfidenceKey);
  keys.emplace_back(model::kCountersKey);
  if (const toml::node* old = t.get(model::kConfidenceKey)) {
    // The key this table once took: the level is now the whole verdict's, in [run].
    Fail(Pos(*old), fmt::format("'confidence' is the whole verdict's and belongs in [run]; each check's level is "
                                "split from it (docs/statistics.md). To set this table's checks' level by hand, "
                                "use '{}'",
                                model::kCheckConfidenceKey));
  }
  CheckKeys(t, keys, where);
  // Each key is checked on its own, so one bad value never hides the next.
  ThresholdOverrides o;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    const std::optional<double> max = std::isinf(row.max) ? std::nullopt : std::optional<double>(row.max);
    Recover([&] { o.bars.*row.bar = Number(t, row.key, row.min, row.exclusive_min, max); });
  }
  Recover([&] {
    if (auto v = Integer(t, model::kRssRunsKey, 0, limits::kMaxRssRuns)) o.rss_runs = static_cast<int>(*v);
  });
  Recover([&] { o.confidence = Confidence(t, model::kCheckConfidenceKey); });
  Recover([&] {
    if (auto* counters = TableAt(t, model::kCountersKey)) ParseCounterBars(*counters, o);
  });
  return o;
}

std::optional<double> Parser::Confidence(const toml::table& t, std::string_view key) const {
  // No lower bound here: the one below says why, for 0 and negatives too.
  const std::optional<double> level =
      Number(t, key, -std::numeric_limits<double>::infinity(), false, model::kMaxConfidence);
  if (level && *level < model::kMinConfidence) {
    Fail(Pos(*t.get(key)),
         fmt::format("'{}' must be at least {}, not {:g}: below that a check's interval misses the true "
                     "figure more often than it holds it",
                     key, model::kMinConfidence, *level));
  }
  return level;
}

void Parser::ParseWorkloads(Spec& spec) const {
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
  bool clean = true;
  for (auto&& [key_, node_] : *workloads) {
    // One workload's mistakes never hide another's.
    clean &= Recover([&, &key = key_, &node = node_] {
      const std::string name(key.str());
      if (!ValidName(name)) {
        Fail(Pos(key.source()),
             fmt::format("workload name '{}' may hold only letters, digits, '-', '_' and '.'", name));
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
        startup.timeout_s = Number(t, "timeout", 0, true, limits::kMaxTimeoutS);
        if (auto* th = TableAt(t, "thresholds")) startup.thresholds = ParseThresholds(*th, where + ".thresholds");
        return;
      }
      CheckKeys(
          t, {"description",     "args",          "output",   "parity",     "gate",      "timeout",       "fixture",
              "thresholds",      "elements",      "sweep",    "sort_lists", "normalise", "unit",          "kind",
              "health",          "ready_timeout", "requests", "method",     "body",      "request_count", "concurrency",
              "request_timeout", "parameters",    "prepare",  "cleanup",    "benchmark", "worker_group"},
          where);
      Workload w;
      w.name = name;
      w.pos = Pos(key.source());
      w.description = String(t, "description").value_or("");
      w.args = StringArray(t, "args", false).value_or(std::vector<Located>{});
      w.gate = Bool(t, "gate").value_or(true);
      w.timeout_s = Number(t, "timeout", 0, true, limits::kMaxTimeoutS);
      if (auto output = String(t, "output")) {
        w.output = *output;
        w.output_pos = Pos(*t.get("output"));
      }
      if (auto parity = String(t, "parity")) w.normaliser = ParseNormaliser(*parity, *t.get("parity"));
      w.normalise = StringArray(t, "normalise", true).value_or(std::vector<Located>{});
      ParseFixture(t, w);
      if (auto* th = TableAt(t, "thresholds")) w.thresholds = ParseThresholds(*th, where + ".thresholds");
      if (auto e = Number(t, "elements", 0, false)) w.elements = *e;
      if (auto unit = String(t, "unit")) {
        const SourcePos pos = Pos(*t.get("unit"));
        if (unit->empty() || unit->size() > 12 || !std::all_of(unit->begin(), unit->end(), [](char c) {
              return std::isalpha(static_cast<unsigned char>(c));
            })) {
          Fail(pos,
               fmt::format("unit '{}' must be a short name of letters, e.g. \"B\" (bytes: MB/s) or \"lines\"", *unit));
        }
        if (w.elements <= 0)
          Fail(pos, fmt::format("workload '{}' has a unit but no elements: say how many one run processes", name));
        w.unit = *unit;
      }
      w.sort_lists = Bool(t, "sort_lists").value_or(false);
      ParseServe(t, w);
      ParseWorker(t, w);
      std::vector<Axis> axes;
      Sweep sweep;
      if (auto* sw = TableAt(t, "sweep")) axes = ParseSweep(*sw, w, sweep);
      if (const toml::node* params = t.get("parameters")) axes = ParseParameters(*params, w, sweep, !axes.empty());
      std::vector<std::string> axis_names;
      for (const Axis& a : axes) axis_names.push_back(a.name);
      if (w.serve) axis_names.push_back("port");
      // {checkout}: a clone of the fixture's repository per server start (engine/run/serve_checkout.h).
      if (w.serve) axis_names.push_back("checkout");
      CheckPlaceholders(w.args, &w, axis_names);
      CheckWorkerSweep(w, axes, axis_names);
      if (w.serve && std::none_of(w.args.begin(), w.args.end(),
                                  [](const Located& a) { return a.value.find("{port}") != std::string::npos; })) {
        Fail(w.pos, fmt::format("serve workload '{}' never passes {{port}} to the server: add it to args, e.g. "
                                "[\"serve\", \"--port\", \"{{port}}\"]",
                                w.name));
      }
      if (w.output != "stdout") CheckPlaceholders({{w.output, w.output_pos}}, &w, axis_names);
      if (!w.normalise.empty()) CheckNormaliseCommand(w, axis_names);
      w.hooks = ParseHooks(t, &w, axis_names);
      if (axes.empty()) {
        declared.push_back(std::move(w));
        return;
      }
      spec.sweeps.push_back(sweep);
      for (Workload& point : ExpandSweep(w, axes)) {
        CheckWorkerBenchmark(point);
        declared.push_back(std::move(point));
      }
    });
  }
  std::sort(spec.sweeps.begin(), spec.sweeps.end(),
            [](const Sweep& a, const Sweep& b) { return Before(a.pos, b.pos); });
  // Stable: the points of one sweep share its position and keep their expansion order.
  std::stable_sort(declared.begin(), declared.end(),
                   [](const Workload& a, const Workload& b) { return Before(a.pos, b.pos); });
  if (declared.empty() && clean)
    Fail(startup.pos, "the spec declares only the startup workload; add one that does work");
  spec.workloads.push_back(std::move(startup));
  for (auto& w : declared) spec.workloads.push_back(std::move(w));
}

Normaliser Parser::ParseNormaliser(const std::string& value, const toml::node& node) const {
  static const std::vector<std::pair<std::string, Normaliser>> kinds = {{"exact", Normaliser::kExact},
                                                                        {"sorted-lines", Normaliser::kSortedLines},
                                                                        {"json", Normaliser::kJson},
                                                                        {"json-map", Normaliser::kJsonMap},
                                                                        {"none", Normaliser::kNone}};
  std::vector<std::string> names;
  for (const auto& [n, k] : kinds) {
    if (n == value) return k;
    names.push_back(n);
  }
  Fail(Pos(node),
       fmt::format("unknown parity normaliser '{}'{}; expected one of exact, sorted-lines, json, json-map, none", value,
                   DidYouMean(value, names)));
}

void Parser::CheckNormaliseCommand(const Workload& w, std::vector<std::string> axis_names) const {
  const SourcePos& pos = w.normalise.front().pos;
  if (w.normaliser == Normaliser::kNone) {
    Fail(pos, fmt::format("workload '{}' has parity = \"none\", so its outputs are never compared; drop normalise "
                          "or choose a parity",
                          w.name));
  }
  if (w.serve)
    Fail(pos, fmt::format("serve workload '{}': normalise applies to output files, not to responses", w.name));
  if (std::none_of(w.normalise.begin(), w.normalise.end(),
                   [](const Located& a) { return a.value.find("{output}") != std::string::npos; })) {
    Fail(pos, fmt::format("workload '{}': the normalise command never reads {{output}} (the output file); add it, "
                          "e.g. [\"zstd\", \"-dc\", \"{{output}}\"]",
                          w.name));
  }
  axis_names.push_back("output");
  CheckPlaceholders(w.normalise, &w, axis_names);
}

void Parser::ParseFixture(const toml::table& t, Workload& w) const {
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
  if (!name)
    Fail(f.pos, fmt::format("[workloads.{}.fixture] needs 'generator', the name of a fixture generator", w.name));
  const gen::Registry& registry = gen::BuiltinRegistry();
  std::unique_ptr<gen::Generator> generator = registry.Create(*name);
  if (!generator) {
    Fail(Pos(*table.get("generator")),
         fmt::format("unknown generator '{}'{}", *name, DidYouMean(*name, registry.Names())));
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

gen::ParamValue Parser::ParamValue(const toml::node& node, const std::string& key) const {
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

void Parser::CheckPlaceholders(const std::vector<Located>& strings, const Workload* workload,
                               const std::vector<std::string>& axes) const {
  std::vector<std::string> known = PlaceholderNames();
  known.insert(known.end(), axes.begin(), axes.end());
  for (const Located& s : strings) {
    std::string error;
    for (const std::string& name : PlaceholdersIn(s.value, &error)) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        const std::vector<std::string> all_axes = AllAxisNames();
        if (std::find(all_axes.begin(), all_axes.end(), name) != all_axes.end()) {
          Fail(s.pos, fmt::format("'{{{}}}' is a sweep axis; an axis placeholder may be used only in the args, output, "
                                  "sweep env and hooks of the workload that sweeps it, or after the program in a "
                                  "contender's argv when every workload declares it",
                                  name));
        }
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

std::vector<std::string> Parser::WorkerFixturePlaceholders() const {
  std::vector<std::string> names;
  const toml::table* workloads = root_.get_as<toml::table>("workloads");
  if (workloads == nullptr) return names;
  for (auto&& [name, node] : *workloads) {
    const toml::table* workload = node.as_table();
    if (workload == nullptr || workload->get("fixture") == nullptr) continue;
    const toml::node* kind = workload->get("kind");
    if (kind && kind->value<std::string>() == "worker") names.push_back(fmt::format("fixture:{}", name.str()));
  }
  return names;
}

std::vector<std::string> Parser::AllAxisNames() const {
  std::vector<std::string> names;
  const toml::table* workloads = root_.get_as<toml::table>("workloads");
  if (workloads == nullptr) return names;
  for (auto&& [name, node] : *workloads) {
    const toml::table* workload = node.as_table();
    for (const char* key : {"sweep", "parameters"}) {
      const toml::table* sweep = workload ? workload->get_as<toml::table>(key) : nullptr;
      if (sweep == nullptr) continue;
      for (auto&& [axis, values] : *sweep) {
        if (axis.str() != "env" && axis.str() != "thresholds") names.emplace_back(axis.str());
      }
    }
  }
  return names;
}

std::filesystem::path Parser::ResolveAgainstSpec(const std::string& p) const {
  std::filesystem::path path(p);
  if (path.is_absolute()) return path;
  return (path_.parent_path().empty() ? std::filesystem::path(".") : path_.parent_path()) / path;
}

}  // namespace pe::spec::internal

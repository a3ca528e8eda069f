// The spec parser's internals, shared by the files that implement it (parser.cc: the spec's
// tables; parser_sweep.cc: sweeps; parser_serve.cc: serve workloads). Not a public interface:
// everything outside engine/spec/ uses spec.h.
#pragma once

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/spec.h"
#include "engine/spec/suggest.h"

namespace pe::spec::internal {

bool ValidName(std::string_view name);
bool Before(const SourcePos& a, const SourcePos& b);
const char* TypeName(const toml::node& node);

// Walks the TOML tree; every error it raises points at the node or key at fault.
class Parser {
 public:
  Parser(std::filesystem::path path, const toml::table& root, SpecUse use = SpecUse::kRun)
      : path_(std::move(path)), root_(root), use_(use) {}

  Spec Parse();

 private:
  SourcePos Pos(const toml::source_region& region) const {
    return {path_.string(), static_cast<int>(region.begin.line), static_cast<int>(region.begin.column)};
  }
  SourcePos Pos(const toml::node& node) const { return Pos(node.source()); }

  [[noreturn]] void Fail(const SourcePos& pos, const std::string& message) const { throw SpecError(pos, message); }

  // Runs one independent part of the parse; a mistake in it is recorded and the parse goes on,
  // so `validate` reports every mistake, not only the first. Returns whether the part was clean.
  template <typename F>
  bool Recover(F&& part) const {
    try {
      part();
      return true;
    } catch (const SpecError& e) {
      errors_.push_back(e);
      return false;
    }
  }

  // Every unknown key of the table is reported. The table's parse then stops: with a key
  // misspelt, its other checks ("needs 'argv'") would only echo the typo.
  void CheckKeys(const toml::table& table, const std::vector<std::string>& allowed, const std::string& where) const {
    std::vector<SpecError> unknown;
    for (auto&& [key, value] : table) {
      const std::string name(key.str());
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        unknown.emplace_back(Pos(key.source()),
                             fmt::format("unknown key '{}' in {}{}", name, where, DidYouMean(name, allowed)));
      }
    }
    if (unknown.empty()) return;
    errors_.insert(errors_.end(), unknown.begin(), unknown.end() - 1);
    throw unknown.back();
  }

  // One entry of an env table, checked: a name that execve can pass on (not empty, no '=' or
  // NUL) and a string value without NUL (it would end the value there). Returns the value.
  std::string EnvValue(const toml::key& name, const toml::node& value) const;

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

  // toml++ gives int64; every key has a ceiling so nothing wraps when it narrows to int and
  // nothing asks for more rounds, resamples or requests than a machine can hold.
  std::optional<std::int64_t> Integer(const toml::table& t, std::string_view key, std::int64_t min,
                                      std::int64_t max) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    if (node->is_floating_point()) {
      // TypeName says "a number", which an integer is too: name the value that is not whole.
      Fail(Pos(*node), fmt::format("'{}' must be an integer, not {:g}", key, node->as_floating_point()->get()));
    }
    if (!node->is_integer()) Fail(Pos(*node), fmt::format("'{}' must be an integer, not {}", key, TypeName(*node)));
    const std::int64_t value = node->as_integer()->get();
    if (value < min) Fail(Pos(*node), fmt::format("'{}' must be at least {}, not {}", key, min, value));
    if (value > max) Fail(Pos(*node), fmt::format("'{}' must be at most {}, not {}", key, max, value));
    return value;
  }

  // A number; `exclusive_min` says whether `min` itself is allowed.
  std::optional<double> Number(const toml::table& t, std::string_view key, double min, bool exclusive_min,
                               std::optional<double> max = std::nullopt) const {
    const toml::node* node = t.get(key);
    if (node == nullptr) return std::nullopt;
    double value = 0;
    if (node->is_integer())
      value = static_cast<double>(node->as_integer()->get());
    else if (node->is_floating_point())
      value = node->as_floating_point()->get();
    else
      Fail(Pos(*node), fmt::format("'{}' must be a number, not {}", key, TypeName(*node)));
    if (!std::isfinite(value)) Fail(Pos(*node), fmt::format("'{}' must be a finite number", key));
    if (exclusive_min ? value <= min : value < min) {
      Fail(Pos(*node),
           fmt::format("'{}' must be {} {}, not {}", key, exclusive_min ? "greater than" : "at least", min, value));
    }
    if (max && value > *max) Fail(Pos(*node), fmt::format("'{}' must be at most {}, not {}", key, *max, value));
    return value;
  }

  std::optional<std::vector<Located>> StringArray(const toml::table& t, std::string_view key, bool non_empty) const {
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

  void ParseRun(const toml::table& run, Spec& spec) const;

  // False when a contender had a mistake (recorded in errors_).
  bool ParseContenders(Spec& spec) const;
  void ParseContender(const toml::key& key, const toml::node& node, Spec& spec) const;

  void ParseRoles(Spec& spec) const;

  ThresholdOverrides ParseThresholds(const toml::table& t, const std::string& where) const;
  // [counters.NAME] (parser_counters.cc), and [thresholds.counters] NAME = ratio of a thresholds table.
  void ParseCounters(const toml::table& counters, Spec& spec) const;
  void ParseCounterBars(const toml::table& t, ThresholdOverrides& o) const;
  // Each [thresholds.counters] name is a declared counter.
  void CheckCounterBars(const Spec& spec) const;
  // `confidence` of [run] or `per_check_confidence` of a thresholds table, within
  // model::kMinConfidence..kMaxConfidence.
  std::optional<double> Confidence(const toml::table& t, std::string_view key) const;
  void CheckRoundsReach(const Spec& spec) const;

  void ParseWorkloads(Spec& spec) const;

  Normaliser ParseNormaliser(const std::string& value, const toml::node& node) const;
  // normalise = [...]: reads {output}, not with parity = "none", not for serve workloads.
  void CheckNormaliseCommand(const Workload& w, std::vector<std::string> axis_names) const;

  void ParseFixture(const toml::table& t, Workload& w) const;

  gen::ParamValue ParamValue(const toml::node& node, const std::string& key) const;

  // Rejects unknown placeholders, and {fixture} in a workload that has none.
  void CheckPlaceholders(const std::vector<Located>& strings, const Workload* workload,
                         const std::vector<std::string>& axes = {}) const;

  // Keys of a serve workload; they are errors on a process workload, and `output` is one on
  // a serve workload (its answers are the response bodies).
  void ParseServe(const toml::table& t, Workload& w) const;
  // kind = "worker" (parser_worker.cc): its benchmark; the keys of a process workload are errors.
  void ParseWorker(const toml::table& t, Workload& w) const;
  // A spec with worker workloads: every contender declares `worker`, one without `argv` runs no
  // process workload, no duet order; batch_time defaults.
  void CheckWorkers(Spec& spec) const;
  // A worker workload's sweep: its benchmark's placeholders are axes, and no axis sets an
  // environment (one worker serves every point); each point's expanded benchmark is a name.
  struct Axis;
  void CheckWorkerSweep(const Workload& w, const std::vector<Axis>& axes,
                        const std::vector<std::string>& axis_names) const;
  void CheckWorkerBenchmark(const Workload& point) const;
  // "fixture:NAME" for each worker workload NAME that declares a fixture: what a contender's
  // `worker` argv may name, as the worker serves them all (docs/workers.md, "Fixtures").
  std::vector<std::string> WorkerFixturePlaceholders() const;

  struct Axis {
    std::string name;
    SourcePos pos;
    std::vector<Located> values;
    std::map<std::string, std::map<std::string, std::string>> env;  // value -> variables
  };

  std::vector<Axis> ParseSweep(const toml::table& table, const Workload& w, Sweep& sweep) const;

  std::string AxisValueText(const toml::node& v, const std::string& axis) const;

  void CheckAxisValue(const std::string& axis, const Located& v) const;

  void ParseSweepEnv(const toml::table& env, std::vector<Axis>& axes, const std::string& where,
                     const std::string& sweep_name) const;

  // The cartesian product of the axes, first axis slowest, as one workload per point.
  std::vector<Workload> ExpandSweep(const Workload& base, const std::vector<Axis>& axes) const;

  std::filesystem::path ResolveAgainstSpec(const std::string& p) const;

  // `prepare` and `cleanup` of a contender (workload == nullptr) or a workload (parser_hooks.cc).
  Hooks ParseHooks(const toml::table& t, const Workload* workload, const std::vector<std::string>& axes) const;

  // `parameters = { NAME = [values] }`: a sweep of plain variables, one workload per point.
  std::vector<Axis> ParseParameters(const toml::node& node, const Workload& w, Sweep& sweep, bool has_sweep) const;

  // The axes (sweep or parameters) every workload declares: a contender's argv may use them,
  // after its program, as hyperfine's commands use their -L parameters.
  std::vector<std::string> CommonAxisNames() const;

  // Names of every sweep axis in the spec, so a placeholder naming one outside its workload's
  // args and output gets a message that says where axes may be used.
  std::vector<std::string> AllAxisNames() const;

  std::filesystem::path path_;
  const toml::table& root_;
  SpecUse use_;
  mutable std::vector<SpecError> errors_;
};

}  // namespace pe::spec::internal

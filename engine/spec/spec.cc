#include "engine/spec/spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/model/threshold_table.h"
#include "engine/spec/family.h"
#include "engine/spec/parser.h"
#include "generators/sha256.h"

namespace pe::spec {

using model::Thresholds;

SpecError::SpecError(const SourcePos& pos, const std::string& message)
    // Line 0: not a place in a file but a command-line value ("--contender NAME=git:REV").
    : std::runtime_error(pos.line == 0 ? fmt::format("{}: {}", pos.file, message)
                                       : fmt::format("{}:{}:{}: {}", pos.file, pos.line, pos.column, message)),
      pos_(pos),
      message_(message) {}

SpecError::SpecError(const SourcePos& pos, const std::string& message, const std::string& text, std::size_t count)
    : std::runtime_error(text), pos_(pos), message_(message), count_(count) {}

SpecError SpecError::Several(std::vector<SpecError> errors) {
  if (errors.empty()) throw std::logic_error("SpecError::Several needs at least one error");
  std::stable_sort(errors.begin(), errors.end(), [](const SpecError& a, const SpecError& b) {
    return a.pos().line != b.pos().line ? a.pos().line < b.pos().line : a.pos().column < b.pos().column;
  });
  std::vector<std::string> lines;
  for (const SpecError& e : errors) {
    if (std::find(lines.begin(), lines.end(), e.what()) == lines.end()) lines.push_back(e.what());
  }
  if (lines.size() == 1) return errors.front();
  return SpecError(errors.front().pos(), errors.front().message(), fmt::format("{}", fmt::join(lines, "\n")),
                   lines.size());
}

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

Spec ParseSpecText(std::string_view text, const std::filesystem::path& path, SpecUse use) {
  toml::table root;
  try {
    root = toml::parse(text, path.string());
  } catch (const toml::parse_error& e) {
    throw SpecError({path.string(), static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column)},
                    std::string(e.description()));
  }
  Spec spec = internal::Parser(path, root, use).Parse();
  spec.digest = gen::Sha256Hex(text);
  return spec;
}

Spec ParseSpecFile(const std::filesystem::path& path, SpecUse use) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read spec file '{}': {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseSpecText(text.str(), path, use);
}

Thresholds EffectiveBars(const Spec& spec, const Workload& workload) {
  const ThresholdOverrides& g = spec.thresholds;
  const ThresholdOverrides& w = workload.thresholds;
  Thresholds t;
  for (const model::ThresholdRow& row : model::kThresholdRows) {
    t.*row.bar = w.bars.*row.bar ? w.bars.*row.bar : g.bars.*row.bar;
  }
  t.rss_runs = w.rss_runs.value_or(g.rss_runs.value_or(0));
  return t;
}

Thresholds EffectiveThresholds(const Spec& spec, const Workload& workload) {
  Thresholds t = EffectiveBars(spec, workload);
  t.confidence = CheckConfidenceOverride(spec, workload).value_or(FamilyOf(spec).check_confidence);
  return t;
}

std::vector<model::Counter> EffectiveCounters(const Spec& spec, const Workload& workload) {
  std::vector<model::Counter> counters;
  if (workload.startup || workload.serve) return counters;
  for (const CounterDecl& d : spec.counters) {
    model::Counter c{d.name, d.unit, d.exact, std::nullopt};
    for (const ThresholdOverrides* o : {&workload.thresholds, &spec.thresholds}) {
      const auto bar = o->counter_bars.find(d.name);
      if (bar != o->counter_bars.end() && !c.max_ratio) c.max_ratio = bar->second;
    }
    counters.push_back(std::move(c));
  }
  return counters;
}

std::string_view NormaliserName(Normaliser n) {
  switch (n) {
    case Normaliser::kExact:
      return "exact";
    case Normaliser::kSortedLines:
      return "sorted-lines";
    case Normaliser::kJson:
      return "json";
    case Normaliser::kJsonMap:
      return "json-map";
    case Normaliser::kNone:
      return "none";
  }
  return "exact";
}

}  // namespace pe::spec

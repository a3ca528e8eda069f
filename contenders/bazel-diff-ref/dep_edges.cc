#include "dep_edges.h"

#include <nlohmann/json.hpp>

#include "error.h"
#include "hash_json.h"

namespace pe::refdiff {

namespace {

// The rules both forms share: which targets have an entry, and which of their inputs count.
bool HasEntry(const Target& target, const HashJsonOptions& options) {
  return target.kind != TargetKind::kSourceFile && IncludedInHashes(target, options);
}

template <typename Visit>
void ForEachDependency(const TargetGraph& graph, std::size_t i, Visit visit) {
  for (const auto& input : graph.inputs(i)) {
    if (input.target < 0 || graph.targets()[input.target].kind == TargetKind::kSourceFile) continue;
    visit(input.label);
  }
}

}  // namespace

std::string FormatDepEdgesJson(const TargetGraph& graph, const HashJsonOptions& options) {
  std::string out = "{";
  bool first = true;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Target& target = graph.targets()[i];
    if (!HasEntry(target, options)) continue;
    out += first ? "\n  " : ",\n  ";
    first = false;
    AppendJsonString(out, target.label);
    out += ": [";
    bool first_dep = true;
    ForEachDependency(graph, i, [&](std::string_view label) {
      if (!first_dep) out += ", ";
      first_dep = false;
      AppendJsonString(out, label);
    });
    out += ']';
  }
  out += first ? "}\n" : "\n}\n";
  return out;
}

DepEdgeMap DepEdgesOf(const TargetGraph& graph, const HashJsonOptions& options) {
  DepEdgeMap edges;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Target& target = graph.targets()[i];
    if (!HasEntry(target, options)) continue;
    std::vector<std::string>& deps = edges[target.label];
    ForEachDependency(graph, i, [&](std::string_view label) { deps.emplace_back(label); });
  }
  return edges;
}

DepEdgeMap ParseDepEdgesJson(std::string_view text, const std::string& source) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw RefDiffError(source + ": not valid JSON (byte " + std::to_string(error.byte) + ")");
  }
  if (!document.is_object()) {
    throw RefDiffError(source + ": expected a JSON object of label -> array of dependency labels");
  }
  DepEdgeMap edges;
  for (auto& [key, value] : document.items()) {
    if (!value.is_array()) throw RefDiffError(source + ": the dependencies of " + key + " are not an array");
    std::vector<std::string>& deps = edges[key];
    for (const auto& dep : value) {
      if (!dep.is_string()) throw RefDiffError(source + ": a dependency of " + key + " is not a string");
      deps.push_back(dep.get<std::string>());
    }
  }
  return edges;
}

}  // namespace pe::refdiff

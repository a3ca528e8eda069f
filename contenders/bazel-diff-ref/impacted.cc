#include "impacted.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "error.h"

namespace pe::refdiff {
namespace {

// Everything below takes either kind of entries: HashEntries (the baseline's reader) or
// HashEntryViews (the candidate's, flat_hashes.h); the steps are the same for both.
template <typename Entries>
const auto* FindHash(const Entries& entries, std::string_view label) {
  auto it = std::lower_bound(entries.begin(), entries.end(), label,
                             [](const auto& entry, std::string_view k) { return entry.first < k; });
  return it != entries.end() && it->first == label ? &it->second : nullptr;
}

// Upstream's kindRank: the type as FINAL has it, else as START has it.
int TypeRank(std::string_view type) {
  if (type == "SourceFile") return 0;
  if (type == "GeneratedFile") return 1;
  if (type == "Rule") return 2;
  return type.empty() ? 4 : 3;
}

template <typename Entries>
std::string_view TypeOf(const Entries& start_hashes, const Entries& final_hashes, std::string_view label) {
  for (const Entries* entries : {&final_hashes, &start_hashes}) {
    const auto* hash = FindHash(*entries, label);
    if (hash != nullptr && !TypeOfHash(*hash).empty()) return TypeOfHash(*hash);
  }
  return {};
}

// Changed or new labels, unfiltered and unordered (label order).
template <typename Entries>
std::vector<std::string> ChangedLabels(const Entries& start_hashes, const Entries& final_hashes) {
  std::vector<std::string> labels;
  for (const auto& [label, hash] : final_hashes) {
    const auto* before = FindHash(start_hashes, label);
    if (before == nullptr || *before != hash) labels.emplace_back(label);
  }
  return labels;
}

template <typename Entries>
bool Accepted(const ImpactedOptions& options, const Entries& final_hashes, std::string_view label) {
  if (options.exclude_external_targets && label.starts_with("//external:")) return false;
  if (!options.target_types) return true;
  std::string_view type = TypeOfHash(*FindHash(final_hashes, label));
  if (type.empty()) {
    throw RefDiffError(
        "No target type info found, please re-generate the target hashes JSON with --includeTargetType!");
  }
  return options.target_types->contains(type);
}

// Filters `labels` by `options` and puts them in upstream's order.
template <typename Entries>
void FilterAndOrder(std::vector<std::string>& labels, const Entries& start_hashes, const Entries& final_hashes,
                    const ImpactedOptions& options) {
  std::erase_if(labels, [&](const std::string& label) { return !Accepted(options, final_hashes, label); });
  std::vector<std::pair<int, std::string>> ranked;
  ranked.reserve(labels.size());
  for (std::string& label : labels) {
    int rank = TypeRank(TypeOf(start_hashes, final_hashes, label));
    ranked.emplace_back(rank, std::move(label));
  }
  std::sort(ranked.begin(), ranked.end());
  labels.clear();
  for (auto& [rank, label] : ranked) labels.push_back(std::move(label));
}

template <typename Entries>
std::vector<std::string> Labels(const Entries& start_hashes, const Entries& final_hashes,
                                const ImpactedOptions& options) {
  std::vector<std::string> labels = ChangedLabels(start_hashes, final_hashes);
  FilterAndOrder(labels, start_hashes, final_hashes, options);
  return labels;
}

template <typename Entries>
std::vector<ImpactedTarget> WithDistances(const Entries& start_hashes, const Entries& final_hashes,
                                          const DepEdgeMap& edges, const ImpactedOptions& options,
                                          std::vector<std::string>* warnings) {
  std::vector<std::string> labels = ChangedLabels(start_hashes, final_hashes);
  const std::size_t n = labels.size();
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < n; ++i) index.emplace(labels[i], i);

  constexpr int kUnset = -1;
  std::vector<int> target_distance(n, kUnset), package_distance(n, kUnset);
  std::vector<std::vector<std::size_t>> dependents(n);  // impacted dependency -> impacted users
  std::deque<std::size_t> sources;
  auto warn = [&](std::string line) {
    if (warnings != nullptr) warnings->push_back(std::move(line));
  };
  for (std::size_t i = 0; i < n; ++i) {
    const auto* before = FindHash(start_hashes, labels[i]);
    const auto& after = *FindHash(final_hashes, labels[i]);
    if (before == nullptr || DirectOfHash(*before) != DirectOfHash(after)) {
      target_distance[i] = package_distance[i] = 0;
      sources.push_back(i);
      continue;
    }
    auto found = edges.find(labels[i]);
    std::size_t impacted_deps = 0;
    if (found != edges.end()) {
      for (const std::string& dep : found->second) {
        auto d = index.find(dep);
        if (d == index.end() || d->second == i) continue;
        dependents[d->second].push_back(i);
        ++impacted_deps;
      }
    }
    if (found == edges.end()) {
      warn(labels[i] + " was indirectly impacted, but has no dependencies in the dep-edges file; distance 0");
    } else if (impacted_deps == 0) {
      warn(labels[i] + " was indirectly impacted, but none of its " + std::to_string(found->second.size()) +
           " deps in the dep-edges file are impacted; distance 0");
    } else {
      continue;
    }
    target_distance[i] = package_distance[i] = 0;
    sources.push_back(i);
  }

  // targetDistance: hops to the nearest source (breadth-first, all sources at once).
  std::vector<std::size_t> frontier(sources.begin(), sources.end()), next;
  for (int distance = 1; !frontier.empty(); ++distance) {
    next.clear();
    for (std::size_t d : frontier) {
      for (std::size_t t : dependents[d]) {
        if (target_distance[t] == kUnset) {
          target_distance[t] = distance;
          next.push_back(t);
        }
      }
    }
    frontier.swap(next);
  }
  // packageDistance: least number of package crossings to any source (0-1 breadth-first).
  std::vector<char> settled(n, 0);
  while (!sources.empty()) {
    std::size_t d = sources.front();
    sources.pop_front();
    if (settled[d]) continue;
    settled[d] = 1;
    std::string_view package = PackageOf(labels[d]);
    for (std::size_t t : dependents[d]) {
      if (settled[t]) continue;
      int cost = package_distance[d] + (PackageOf(labels[t]) != package ? 1 : 0);
      if (package_distance[t] != kUnset && package_distance[t] <= cost) continue;
      package_distance[t] = cost;
      if (cost == package_distance[d])
        sources.push_front(t);
      else
        sources.push_back(t);
    }
  }

  for (std::size_t i = 0; i < n; ++i) {
    if (target_distance[i] == kUnset) {
      throw RefDiffError(labels[i] +
                         " is impacted only through a dependency cycle of impacted targets "
                         "that no changed target feeds");
    }
  }

  std::vector<std::string> ordered = labels;
  FilterAndOrder(ordered, start_hashes, final_hashes, options);
  std::vector<ImpactedTarget> out;
  out.reserve(ordered.size());
  for (std::string& label : ordered) {
    std::size_t i = index.at(label);
    out.push_back({std::move(label), target_distance[i], package_distance[i]});
  }
  return out;
}

}  // namespace

std::string_view PackageOf(std::string_view label) { return label.substr(0, label.find(':')); }

std::vector<std::string> ImpactedLabels(const HashEntries& start_hashes, const HashEntries& final_hashes,
                                        const ImpactedOptions& options) {
  return Labels(start_hashes, final_hashes, options);
}

std::vector<std::string> ImpactedLabels(const HashEntryViews& start_hashes, const HashEntryViews& final_hashes,
                                        const ImpactedOptions& options) {
  return Labels(start_hashes, final_hashes, options);
}

std::vector<ImpactedTarget> ImpactedWithDistances(const HashEntries& start_hashes, const HashEntries& final_hashes,
                                                  const DepEdgeMap& edges, const ImpactedOptions& options,
                                                  std::vector<std::string>* warnings) {
  return WithDistances(start_hashes, final_hashes, edges, options, warnings);
}

std::vector<ImpactedTarget> ImpactedWithDistances(const HashEntryViews& start_hashes,
                                                  const HashEntryViews& final_hashes, const DepEdgeMap& edges,
                                                  const ImpactedOptions& options, std::vector<std::string>* warnings) {
  return WithDistances(start_hashes, final_hashes, edges, options, warnings);
}

std::string FormatImpactedLines(const std::vector<std::string>& labels) {
  std::string out;
  for (const std::string& label : labels) {
    out += label;
    out += '\n';
  }
  return out;
}

std::string FormatImpactedJson(const std::vector<ImpactedTarget>& targets) {
  std::string out = "[";
  for (std::size_t i = 0; i < targets.size(); ++i) {
    out += i == 0 ? "\n  {\"label\": " : ",\n  {\"label\": ";
    AppendJsonString(out, targets[i].label);
    out += ", \"targetDistance\": " + std::to_string(targets[i].target_distance);
    out += ", \"packageDistance\": " + std::to_string(targets[i].package_distance) + "}";
  }
  out += targets.empty() ? "]\n" : "\n]\n";
  return out;
}

}  // namespace pe::refdiff

#include "impacted.h"

#include <algorithm>
#include <unordered_map>

#include "error.h"

namespace pe::refdiff {
namespace {

constexpr std::string_view kTypePrefixes[] = {"SourceFile#", "GeneratedFile#", "Rule#"};

// Position of the key's type in bazel-diff's order; keys without a prefix come after typed ones.
int TypeRank(std::string_view key) {
  for (int rank = 0; rank < 3; ++rank) {
    if (key.starts_with(kTypePrefixes[rank])) return rank;
  }
  return 3;
}

bool BazelDiffOrder(std::string_view a, std::string_view b) {
  int rank_a = TypeRank(a), rank_b = TypeRank(b);
  if (rank_a != rank_b) return rank_a < rank_b;
  return LabelOfKey(a) < LabelOfKey(b);
}

const std::string* FindHash(const HashEntries& entries, std::string_view key) {
  auto it = std::lower_bound(entries.begin(), entries.end(), key,
                             [](const auto& entry, std::string_view k) { return entry.first < k; });
  return it != entries.end() && it->first == key ? &it->second : nullptr;
}

std::string_view DirectPart(std::string_view key, const std::string& hash, std::string_view file) {
  std::size_t tilde = hash.find('~');
  if (tilde == std::string::npos) {
    throw RefDiffError(std::string(file) + ": the hash of " + std::string(key) +
                       " has no '~<direct hash>' part, so distances cannot be computed");
  }
  return std::string_view(hash).substr(tilde + 1);
}

}  // namespace

std::string_view LabelOfKey(std::string_view key) {
  int rank = TypeRank(key);
  return rank < 3 ? key.substr(kTypePrefixes[rank].size()) : key;
}

std::string_view PackageOf(std::string_view label) {
  std::size_t colon = label.rfind(':');
  std::size_t slashes = label.find("//");
  if (colon != std::string_view::npos && (slashes == std::string_view::npos || colon > slashes)) {
    return label.substr(0, colon);
  }
  return label;  // "//pkg" is short for "//pkg:pkg"
}

std::vector<std::string> ImpactedKeys(const HashEntries& start_hashes, const HashEntries& final_hashes) {
  std::vector<std::string> keys;
  for (const auto& [key, hash] : final_hashes) {
    const std::string* before = FindHash(start_hashes, key);
    if (before == nullptr || *before != hash) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end(), BazelDiffOrder);
  return keys;
}

std::vector<ImpactedTarget> ImpactedWithDistances(const HashEntries& start_hashes,
                                                  const HashEntries& final_hashes, const DepEdgeMap& edges) {
  std::vector<std::string> keys = ImpactedKeys(start_hashes, final_hashes);
  std::vector<ImpactedTarget> out(keys.size());
  std::unordered_map<std::string_view, std::size_t> index;  // impacted label -> position in keys
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i].key = keys[i];
    out[i].target_distance = -1;
    index.emplace(LabelOfKey(out[i].key), i);
  }

  // Impacted dependencies of each impacted target, and the reverse.
  std::vector<std::vector<std::size_t>> deps(keys.size()), dependents(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto found = edges.find(LabelOfKey(out[i].key));
    if (found == edges.end()) continue;
    for (const std::string& dep : found->second) {
      auto d = index.find(dep);
      if (d == index.end() || d->second == i) continue;
      deps[i].push_back(d->second);
      dependents[d->second].push_back(i);
    }
  }

  // Breadth-first from the targets whose own hash changed, one distance at a time.
  std::vector<std::size_t> frontier;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string& after = *FindHash(final_hashes, keys[i]);
    const std::string* before = FindHash(start_hashes, keys[i]);
    if (before == nullptr || DirectPart(keys[i], after, "FINAL") != DirectPart(keys[i], *before, "START")) {
      out[i].target_distance = 0;
      out[i].package_distance = 0;
      frontier.push_back(i);
    }
  }
  std::vector<std::size_t> next;
  for (int distance = 1; !frontier.empty(); ++distance) {
    next.clear();
    for (std::size_t d : frontier) {
      for (std::size_t t : dependents[d]) {
        if (out[t].target_distance == -1) {
          out[t].target_distance = distance;
          next.push_back(t);
        }
      }
    }
    // Every dependency one step closer is a shortest path; take the one with fewest package moves.
    for (std::size_t t : next) {
      int best = -1;
      std::string_view package = PackageOf(LabelOfKey(out[t].key));
      for (std::size_t d : deps[t]) {
        if (out[d].target_distance != distance - 1) continue;
        int moves = out[d].package_distance + (PackageOf(LabelOfKey(out[d].key)) != package ? 1 : 0);
        if (best == -1 || moves < best) best = moves;
      }
      out[t].package_distance = best;
    }
    frontier.swap(next);
  }

  for (const ImpactedTarget& target : out) {
    if (target.target_distance == -1) {
      throw RefDiffError(target.key + " is impacted, but neither its direct hash nor any of its " +
                         "dependencies in the dependency-edges file changed");
    }
  }
  return out;
}

std::string FormatImpactedLines(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& key : keys) {
    out += key;
    out += '\n';
  }
  return out;
}

std::string FormatImpactedJson(const std::vector<ImpactedTarget>& targets) {
  std::string out = "[";
  for (std::size_t i = 0; i < targets.size(); ++i) {
    out += i == 0 ? "\n  {\"label\": " : ",\n  {\"label\": ";
    AppendJsonString(out, targets[i].key);
    out += ", \"targetDistance\": " + std::to_string(targets[i].target_distance);
    out += ", \"packageDistance\": " + std::to_string(targets[i].package_distance) + "}";
  }
  out += targets.empty() ? "]\n" : "\n]\n";
  return out;
}

}  // namespace pe::refdiff

#include "hash_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "error.h"
#include "parallel.h"

namespace pe::refdiff {

void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += kDigits[(c >> 4) & 0xf];
          out += kDigits[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

bool IsExternalLabel(std::string_view label) {
  if (label.starts_with("//external:")) return true;
  return label.starts_with("@") && !label.starts_with("@//") && !label.starts_with("@@//");
}

std::string FormatHashesJson(const std::vector<HashedTarget>& targets, const HashJsonOptions& options,
                             int threads) {
  struct Entry {
    std::string key;
    const HashedTarget* target;
  };
  std::vector<Entry> entries;
  entries.reserve(targets.size());
  for (const HashedTarget& target : targets) {
    if (options.exclude_external_targets && IsExternalLabel(target.label)) continue;
    std::string key = options.include_target_type
                          ? std::string(KindName(target.kind)) + "#" + target.label
                          : target.label;
    entries.push_back({std::move(key), &target});
  }
  // Targets arrive sorted by label; the type prefix reorders them.
  if (options.include_target_type) {
    ParallelSort(entries.begin(), entries.end(), threads,
                 [](const Entry& a, const Entry& b) { return a.key < b.key; });
  }
  if (!options.perturb_label.empty() &&
      std::none_of(entries.begin(), entries.end(),
                   [&](const Entry& entry) { return entry.target->label == options.perturb_label; })) {
    throw RefDiffError("--perturb names " + options.perturb_label + ", which is not a target in the output");
  }

  // Each batch formats into its own string; joined in order, so the bytes are the same however
  // many threads ran.
  constexpr std::size_t kBatch = 4096;
  std::vector<std::string> pieces((entries.size() + kBatch - 1) / kBatch);
  ParallelFor(entries.size(), kBatch, threads, [&](std::size_t begin, std::size_t end) {
    std::string& out = pieces[begin / kBatch];
    out.reserve((end - begin) * (entries[begin].key.size() + 140));
    for (std::size_t i = begin; i < end; ++i) {
      const HashedTarget& target = *entries[i].target;
      Digest transitive = target.transitive;
      if (target.label == options.perturb_label) transitive[0] ^= 0x01;  // the planted bug
      out += i == 0 ? "\n  " : ",\n  ";
      AppendJsonString(out, entries[i].key);
      out += ": \"";
      out += ToHex(transitive);
      out += '~';
      out += ToHex(target.direct);
      out += '"';
    }
  });
  std::size_t size = 8;
  for (const std::string& piece : pieces) size += piece.size();
  std::string out;
  out.reserve(size);
  out += '{';
  for (const std::string& piece : pieces) out += piece;
  out += entries.empty() ? "}\n" : "\n}\n";
  return out;
}

HashEntries ParseHashesJson(std::string_view text, const std::string& source) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw RefDiffError(source + ": not valid JSON (byte " + std::to_string(error.byte) + ")");
  }
  if (!document.is_object()) throw RefDiffError(source + ": expected a JSON object of label -> hash");
  HashEntries entries;
  entries.reserve(document.size());
  for (auto& [key, value] : document.items()) {
    if (!value.is_string()) throw RefDiffError(source + ": the hash of " + key + " is not a string");
    entries.emplace_back(key, value.get<std::string>());
  }
  // nlohmann's object is a std::map, so items() are already in key order.
  return entries;
}

}  // namespace pe::refdiff

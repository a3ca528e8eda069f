#include "hash_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "error.h"

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

std::string FormatHashesJson(const std::vector<HashedTarget>& targets, const HashJsonOptions& options) {
  struct Entry {
    std::string key;
    const HashedTarget* target;
  };
  std::vector<Entry> entries;
  entries.reserve(targets.size());
  bool perturbed = options.perturb_label.empty();
  for (const HashedTarget& target : targets) {
    if (options.exclude_external_targets && IsExternalLabel(target.label)) continue;
    std::string key = options.include_target_type
                          ? std::string(KindName(target.kind)) + "#" + target.label
                          : target.label;
    entries.push_back({std::move(key), &target});
  }
  // Targets arrive sorted by label; the type prefix reorders them.
  if (options.include_target_type) {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  }

  std::string out;
  out.reserve(entries.size() * 200);
  out += '{';
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const HashedTarget& target = *entries[i].target;
    Digest transitive = target.transitive;
    if (!perturbed && target.label == options.perturb_label) {
      transitive[0] ^= 0x01;
      perturbed = true;
    }
    out += i == 0 ? "\n  " : ",\n  ";
    AppendJsonString(out, entries[i].key);
    out += ": \"";
    out += ToHex(transitive);
    out += '~';
    out += ToHex(target.direct);
    out += '"';
  }
  out += entries.empty() ? "}\n" : "\n}\n";
  if (!perturbed) throw RefDiffError("--perturb names " + options.perturb_label + ", which is not a target in the output");
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

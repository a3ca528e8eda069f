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
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
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

namespace {

bool Included(std::string_view label, TargetKind kind, const HashJsonOptions& options) {
  if (options.exclude_external_targets && IsExternalLabel(label)) return false;
  return !options.target_types || options.target_types->contains(KindName(kind));
}

}  // namespace

bool IncludedInHashes(const HashedTarget& target, const HashJsonOptions& options) {
  return Included(target.label, target.kind, options);
}

bool IncludedInHashes(const Target& target, const HashJsonOptions& options) {
  return Included(target.label, target.kind, options);
}

std::string FormatHashesJson(const std::vector<HashedTarget>& targets, const HashJsonOptions& options, int threads) {
  struct Entry {
    std::string key;
    const HashedTarget* target;
  };
  std::vector<Entry> entries;
  entries.reserve(targets.size());
  for (const HashedTarget& target : targets) {
    if (!IncludedInHashes(target, options)) continue;
    entries.push_back({target.label, &target});
  }
  if (!options.perturb_label.empty() && std::none_of(entries.begin(), entries.end(), [&](const Entry& entry) {
        return entry.target->label == options.perturb_label;
      })) {
    throw RefDiffError("--perturb names " + options.perturb_label + ", which is not a target in the output");
  }

  const bool bzlmod = options.module_graph_json.has_value();
  const char* indent_first = bzlmod ? "\n    " : "\n  ";
  const char* indent_next = bzlmod ? ",\n    " : ",\n  ";
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
      out += i == 0 ? indent_first : indent_next;
      AppendJsonString(out, entries[i].key);
      out += ": \"";
      if (options.include_target_type) {
        out += KindName(target.kind);
        out += '#';
      }
      out += ToHex(transitive);
      out += '~';
      out += ToHex(target.direct);
      out += '"';
    }
  });
  std::size_t size = 8;
  for (const std::string& piece : pieces) size += piece.size();
  std::string out;
  out.reserve(size + (bzlmod ? options.module_graph_json->size() + 64 : 0));
  out += bzlmod ? "{\n  \"hashes\": {" : "{";
  for (const std::string& piece : pieces) out += piece;
  if (!bzlmod) {
    out += entries.empty() ? "}\n" : "\n}\n";
    return out;
  }
  out += entries.empty() ? "},\n" : "\n  },\n";
  out += "  \"metadata\": {\"moduleGraphJson\": ";
  AppendJsonString(out, *options.module_graph_json);
  out += "}\n}\n";
  return out;
}

namespace {

HashEntries ReadHashes(const nlohmann::json& object, const std::string& source) {
  HashEntries entries;
  entries.reserve(object.size());
  for (auto& [key, value] : object.items()) {
    if (!value.is_string()) throw RefDiffError(source + ": the hash of " + key + " is not a string");
    std::string text = value.get<std::string>();
    CheckHashValue(key, text, source);
    entries.emplace_back(key, std::move(text));
  }
  // nlohmann's object is a std::map, so items() are already in key order.
  return entries;
}

// "[Type#]<hash>~<direct>" with exactly one '~' and at most one '#', as upstream's TargetHash.
bool WellFormedHash(std::string_view value) {
  std::size_t hash = value.find('#');
  if (hash != std::string_view::npos) {
    if (value.find('#', hash + 1) != std::string_view::npos) return false;
    value.remove_prefix(hash + 1);
  }
  std::size_t tilde = value.find('~');
  return tilde != std::string_view::npos && value.find('~', tilde + 1) == std::string_view::npos;
}

}  // namespace

void CheckHashValue(std::string_view label, std::string_view value, const std::string& source) {
  if (WellFormedHash(value)) return;
  throw RefDiffError(source + ": the hash of " + std::string(label) + " is '" + std::string(value) +
                     "', not '[Type#]<hash>~<direct hash>' as generate-hashes writes it");
}

std::string_view TypeOfHash(std::string_view value) {
  std::size_t hash = value.find('#');
  return hash == std::string_view::npos ? std::string_view() : value.substr(0, hash);
}

std::string_view DirectOfHash(std::string_view value) {
  std::size_t tilde = value.find('~');
  return tilde == std::string_view::npos ? std::string_view() : value.substr(tilde + 1);
}

HashesFile ParseHashFile(std::string_view text, const std::string& source) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw RefDiffError(source + ": not valid JSON (byte " + std::to_string(error.byte) + ")");
  }
  if (!document.is_object()) throw RefDiffError(source + ": expected a JSON object of label -> hash");
  HashesFile file;
  // Upstream tells the shapes apart the same way: both keys present means the bzlmod shape.
  if (document.contains("hashes") && document.contains("metadata")) {
    const nlohmann::json& hashes = document["hashes"];
    const nlohmann::json& metadata = document["metadata"];
    if (!hashes.is_object()) throw RefDiffError(source + ": \"hashes\" is not an object of label -> hash");
    if (!metadata.is_object() && !metadata.is_null()) throw RefDiffError(source + ": \"metadata\" is not an object");
    file.hashes = ReadHashes(hashes, source);
    if (metadata.is_object()) {
      auto graph = metadata.find("moduleGraphJson");
      if (graph != metadata.end() && !graph->is_null()) {
        if (!graph->is_string()) throw RefDiffError(source + ": metadata.moduleGraphJson is not a string");
        file.module_graph_json = graph->get<std::string>();
      }
    }
    return file;
  }
  file.hashes = ReadHashes(document, source);
  return file;
}

HashEntries ParseHashesJson(std::string_view text, const std::string& source) {
  return ParseHashFile(text, source).hashes;
}

}  // namespace pe::refdiff

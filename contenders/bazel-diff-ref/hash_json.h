// The hashes file generate-hashes writes and get-impacted-targets reads, in upstream bazel-diff's
// two shapes:
//   {"//a:b": "<transitive sha256 hex>~<direct sha256 hex>", ...}            (WORKSPACE)
//   {"hashes": {...as above...}, "metadata": {"moduleGraphJson": "..."}}    (bzlmod)
// keys sorted; with --includeTargetType the type goes on the value: "Rule#<transitive>~<direct>"
// (also SourceFile#, GeneratedFile#), keys stay plain labels.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "target.h"

namespace pe::refdiff {

struct HashJsonOptions {
  bool include_target_type = false;
  bool exclude_external_targets = false;  // drop //external:* and @repo labels
  std::string perturb_label;              // planted bug: this label's hash comes out wrong
  // `bazel mod graph --output=json` when the workspace is on bzlmod: selects the second shape.
  std::optional<std::string> module_graph_json;
  // -tt/--targetType: only targets of these types ("Rule", "SourceFile", "GeneratedFile").
  std::optional<std::set<std::string, std::less<>>> target_types;
};

// Whether the hashes file has an entry for `target` under `options`.
bool IncludedInHashes(const HashedTarget& target, const HashJsonOptions& options);
bool IncludedInHashes(const Target& target, const HashJsonOptions& options);

// Throws RefDiffError when perturb_label names no target. Entries are formatted on `threads`
// threads; the bytes do not depend on it.
std::string FormatHashesJson(const std::vector<HashedTarget>& targets, const HashJsonOptions& options, int threads = 1);

// True for //external:* and labels of other repositories (@repo//..., but not @// or @@//).
bool IsExternalLabel(std::string_view label);

// Label -> "[Type#]<transitive>~<direct>" as written, sorted by label. Two entries are the same
// target state exactly when these strings are equal (upstream compares type#hash~direct too).
using HashEntries = std::vector<std::pair<std::string, std::string>>;
// The same, as views into storage someone else holds (flat_hashes.h: the candidate's reader).
using HashEntryViews = std::vector<std::pair<std::string_view, std::string_view>>;

struct HashesFile {
  HashEntries hashes;
  std::optional<std::string> module_graph_json;  // the bzlmod shape's metadata
};

// Reads either shape. `source` names the input in error messages; throws RefDiffError for
// anything upstream would refuse (a value that is not "[Type#]<hash>~<direct>").
HashesFile ParseHashFile(std::string_view text, const std::string& source);
// ParseHashFile(...).hashes.
HashEntries ParseHashesJson(std::string_view text, const std::string& source);

// Throws the RefDiffError ParseHashFile throws for `label`'s value when it is not
// "[Type#]<hash>~<direct>" (upstream's TargetHash: one '~', at most one '#').
void CheckHashValue(std::string_view label, std::string_view value, const std::string& source);

// The parts of a hash value: "Rule#t~d" -> type "Rule", direct "d"; "t~d" -> type "".
std::string_view TypeOfHash(std::string_view value);
std::string_view DirectOfHash(std::string_view value);

// Appends `text` to `out` as a JSON string literal.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace pe::refdiff

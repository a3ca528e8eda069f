// The hashes file generate-hashes writes and get-impacted-targets reads:
//   {"//a:b": "<transitive sha256 hex>~<direct sha256 hex>", ...}
// keys sorted; with --includeTargetType the keys are "Rule#//a:b", "SourceFile#//a:b.cc",
// "GeneratedFile#//a:out".
#pragma once

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
};

// Throws RefDiffError when perturb_label names no target. Entries are formatted on `threads`
// threads; the bytes do not depend on it.
std::string FormatHashesJson(const std::vector<HashedTarget>& targets, const HashJsonOptions& options,
                             int threads = 1);

// True for //external:* and labels of other repositories (@repo//..., but not @// or @@//).
bool IsExternalLabel(std::string_view label);

// Key -> "<transitive>~<direct>", sorted by key. `source` names the input in error messages.
using HashEntries = std::vector<std::pair<std::string, std::string>>;
HashEntries ParseHashesJson(std::string_view text, const std::string& source);

// Appends `text` to `out` as a JSON string literal.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace pe::refdiff

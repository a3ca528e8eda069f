// Parity: outputs are normalised, then compared; the first difference is shown to the user.
#pragma once

#include <optional>
#include <string>

#include "engine/spec/spec.h"

namespace pe::run {

// Canonical form of `output` under the normaliser. Throws std::runtime_error when the
// output does not parse as the normaliser expects (e.g. not JSON for json/json-map).
// With sort_lists, JSON arrays are compared as sorted (their order carries no meaning).
std::string Normalise(const std::string& output, spec::Normaliser normaliser, bool sort_lists = false);

// Compares two normalised outputs; nullopt when equal, else a few lines showing the first
// differences (differing line numbers, or differing/missing keys for json-map).
std::optional<std::string> FirstDifference(const std::string& baseline, const std::string& other,
                                           spec::Normaliser normaliser, const std::string& baseline_name,
                                           const std::string& other_name);

// `s` cut to 160 bytes and "..." when longer: one side of a difference in a parity message.
std::string Shortened(const std::string& s);

}  // namespace pe::run

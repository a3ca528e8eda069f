// Placeholders in argv and output templates: {fixture}, {out}, ... ; `{{` and `}}` are literal braces.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pe::spec {

// The names a template may use, documented in docs/spec.md.
const std::vector<std::string>& PlaceholderNames();

// The placeholder names used in `text`, in order. An unbalanced brace sets *error.
std::vector<std::string> PlaceholdersIn(std::string_view text, std::string* error);

// Replaces each {name} with values.at(name). Names were checked when the spec was parsed.
std::string Expand(std::string_view text, const std::map<std::string, std::string>& values);

}  // namespace pe::spec

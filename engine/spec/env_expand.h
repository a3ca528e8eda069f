#pragma once
// `${NAME}` in a spec value that names a place outside the repository (a contender's `repo`):
// replaced by that environment variable, so a spec can gate a checkout whose path only the
// caller knows (`RUBY_JSON=/src/json perfengine run specs/ruby-json.toml`).
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace pe::spec {

// Reads one environment variable; std::nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment (getenv).
std::optional<std::string> ProcessEnv(const std::string& name);

// `value` with every `${NAME}` (NAME: a letter or `_`, then letters, digits, `_`) replaced by the
// variable's value; any other `$` (not followed by `{` or a name) is kept as it is. Throws
// std::invalid_argument with the message a spec error shows when a `${` is not closed, NAME is not
// a valid name, the variable is unset or empty (an empty path would quietly mean the spec's own
// folder), or a `$NAME` without braces appears: "$RUBY_JSON is not expanded (only ${NAME} is):
// write ${RUBY_JSON}", where it would otherwise be a folder literally named so.
std::string ExpandEnvironment(std::string_view value, const EnvLookup& lookup);

}  // namespace pe::spec

// The JSON results file: the result model written out, and read back exactly.
// Field names live in engine/model/fields.h; the format is described in docs/results-format.md.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/model/atomic_file.h"
#include "engine/model/result.h"

namespace pe::model {

// Every field of `result`, plus "format": "perfengine-results/1". Empty optionals are
// left out. Doubles are written so they read back bit-identical; non-finite ones are
// written as the strings "NaN", "Infinity" and "-Infinity", since JSON has no such numbers.
nlohmann::json ToJson(const RunResult& result);

// ToJson as the results file's text: 2-space indent, a trailing newline. Bytes that are not
// valid UTF-8 (a contender's stderr may hold any) become U+FFFD instead of failing the write.
std::string ToJsonText(const RunResult& result);

// The inverse of ToJson. Throws std::runtime_error naming the field path on any missing or
// mistyped field (e.g. `field "workloads[1].comparison.speedup" must be a number, not a
// string`), and on a missing or different "format". Unknown fields are ignored. An
// optional may be absent or null.
RunResult RunResultFromJson(const nlohmann::json& json);

// Reads and parses a results file. Errors are std::runtime_error prefixed with the path: a
// directory, device or socket is refused unread, more than 256 MiB is refused, and a timed
// sample whose wall time is not finite and > 0 (or CPU time not finite and >= 0) is named.
RunResult ReadResultsFile(const std::filesystem::path& path);

// ReadResultsFile's parsing and checks on text already read; errors are prefixed with `name`.
RunResult ParseResultsText(const std::string& text, const std::string& name);

}  // namespace pe::model

// The results file: the result model written out (engine/model/json.h), atomically.
#pragma once

#include <filesystem>

#include "engine/model/result.h"

namespace pe::report {

// Pretty-printed (2-space indent, trailing newline). Throws std::runtime_error naming the
// path when the file cannot be written; an existing file is then left as it was.
void WriteJsonReport(const model::RunResult& result, const std::filesystem::path& path);

}  // namespace pe::report

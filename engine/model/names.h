// The spellings of the model's enums in the results file and in reports.
// One table per enum (engine/model/fields.h); these functions are the only way in or out.
#pragma once

#include <optional>
#include <string_view>

#include "engine/model/result.h"

namespace pe::model {

// "spec", "fixture", "spawn", "exit", "signal", "timeout", "parity", "interrupted".
std::string_view FailureKindName(Failure::Kind kind);
std::optional<Failure::Kind> ParseFailureKind(std::string_view name);

// "pass", "threshold_missed", "run_failed", "unresolved", "interrupted".
std::string_view ExitCodeName(ExitCode code);
std::optional<ExitCode> ParseExitCode(std::string_view name);

}  // namespace pe::model

#include "engine/model/names.h"

#include "engine/model/fields.h"

namespace pe::model {

std::string_view FailureKindName(Failure::Kind kind) { return fields::NameOf(kind); }
std::optional<Failure::Kind> ParseFailureKind(std::string_view name) { return fields::ParseName<Failure::Kind>(name); }

std::string_view ExitCodeName(ExitCode code) { return fields::NameOf(code); }
std::optional<ExitCode> ParseExitCode(std::string_view name) { return fields::ParseName<ExitCode>(name); }

}  // namespace pe::model

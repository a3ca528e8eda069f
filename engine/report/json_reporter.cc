#include "engine/report/json_reporter.h"

#include "engine/model/atomic_file.h"
#include "engine/model/json.h"

namespace pe::report {

using model::RunResult;
using model::ToJsonText;
using model::WriteFileAtomically;

void WriteJsonReport(const RunResult& result, const std::filesystem::path& path) {
  WriteFileAtomically(path, ToJsonText(result));
}

}  // namespace pe::report

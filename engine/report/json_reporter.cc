#include "engine/report/json_reporter.h"

#include "engine/model/atomic_file.h"
#include "engine/model/json.h"

namespace pe::report {

void WriteJsonReport(const RunResult& result, const std::filesystem::path& path) {
  WriteFileAtomically(path, ToJsonText(result));
}

}  // namespace pe::report

#include "engine/report/json_reporter.h"

#include "engine/model/json.h"

namespace pe::report {

std::string JsonReporter::Render(const model::RunResult& result, const RenderOptions&) const {
  return model::ToJsonText(result);
}

}  // namespace pe::report

// The results file: the result model written out (engine/model/json.h), so explain, compare,
// merge and report read it back. Pretty-printed (2-space indent, trailing newline).
#pragma once

#include "engine/report/reporter.h"

namespace pe::report {

class JsonReporter final : public Reporter {
 public:
  std::string Render(const model::RunResult& result, const RenderOptions& options) const override;
};

}  // namespace pe::report

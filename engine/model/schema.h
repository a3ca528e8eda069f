// A JSON Schema (draft 2020-12) of the results file, derived from the same field tables the
// writer walks (fields.h), so it cannot drift from what perfengine writes. docs/results.schema.json
// is this, committed; a test keeps the two equal, and every results file the e2e tests write
// is validated against it.
#pragma once

#include <nlohmann/json.hpp>

namespace pe::model {

nlohmann::json ResultsSchema();

}  // namespace pe::model

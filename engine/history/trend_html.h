// `perfengine history SPEC --html FILE`: the trends as one self-contained HTML page, a line
// chart per workload (inline SVG, no scripts) with its change points marked.
#pragma once

#include <string>
#include <vector>

#include "engine/history/store.h"
#include "engine/history/trend.h"

namespace pe::history {

// The page for the workloads and figures TrendText would print (same selection, same change
// points); `title` is escaped. Throws base::UsageError as TrendText does.
std::string TrendHtml(const std::vector<WorkloadSeries>& series, const TrendOptions& options, const std::string& title);

}  // namespace pe::history

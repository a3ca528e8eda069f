// What the HTML report's sections share (engine/report/html_*.cc): each contender's colour, the
// escaping of one line of text, readable unique ids, a note paragraph and a row status's class.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "engine/model/result.h"
#include "engine/report/overview.h"
#include "engine/report/sweep_report.h"

namespace pe::report::html {

// One colour per contender, in spec order; the baseline is usually first (blue).
std::string_view ColorOf(const model::RunResult& result, std::string_view contender);

// One dash pattern per sweep configuration.
std::string_view DashOf(std::size_t i);

// Text from outside made one escaped line.
std::string Esc(std::string_view text);

// <p class="note">text</p>; `text` is already escaped.
std::string Note(std::string_view text);

// The CSS class of a verdict: "pass", "missed", "unresolved", "failed", "not-gated", "none".
std::string_view StatusClass(RowStatus status);

// Ids stay readable ("box-dense-threads-2-allocator-mimalloc") and unique: a name that
// collides with an earlier one after the replacement gets a counter.
class IdMaker {
 public:
  std::string operator()(std::string_view prefix, std::string_view name);

 private:
  std::set<std::string> used_;
};

// Per workload: its heading, description, the gated figures, each contender's time distribution
// and the paired ratio by round, and its notes (html_workload.cc).
std::string WorkloadSection(const model::RunResult& result, const model::WorkloadResult& workload,
                            const WorkloadRow& row, IdMaker& ids);

// Per sweep: its tables, fits, thresholds and charts (html_sweep.cc).
std::string SweepSectionHtml(const model::RunResult& result, const SweepSection& section,
                             const model::SweepResult& sweep, IdMaker& ids);

}  // namespace pe::report::html

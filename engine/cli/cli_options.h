// What several subcommands' command lines share: the spec options, the report-file flags (from
// the reporter registry, engine/report/reporter.h), the number checks, and colour.
#pragma once

#include <CLI/CLI.hpp>

#include "engine/cli/commands.h"

namespace pe::cli {

// Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org).
bool UseColor();

// A whole number in [min, max], checked on the text before CLI11 converts it, so an overflowing
// value is this message too, never a wrapped int or CLI11's "not in range 0.000000 to 1.79e308".
CLI::Validator WholeNumber(long long min, long long max);

// A number greater than 0 and at most max.
CLI::Validator PositiveUpTo(double max);

// SPEC (positional, required unless `spec_required` is false), --contender, --workload, --scale,
// --cache-dir.
void AddSpecOptions(CLI::App* cmd, CommonOptions& o, bool spec_required = true);

// One option per file format of report::Formats(): its flag and help, the path into
// `paths[name]`.
void AddReportOptions(CLI::App* cmd, ReportPaths& paths);

// --unresolved=fail|pass|exit3 on every command that gates (docs/exit-codes.md).
void AddUnresolvedOption(CLI::App* cmd, std::string& policy);

}  // namespace pe::cli

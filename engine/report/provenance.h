// What a report says about the run itself, beside its figures: which revisions and builds were
// compared (each contender's commit, ref, dirty or clean, build command) and what the run cost
// in wall time and runner-minutes (model::PhaseTimes). Every reporter takes these lines from
// here, so the terminal, Markdown, HTML and CSV say the same thing.
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::report {

// One contender as a header names it: its name, its role unless the name is the role, and its
// revision where it was built from git: "zstd (candidate, git feature @ 0123456789ab, dirty)".
std::string ContenderHeading(const model::RunResult& result, const model::ContenderInfo& contender);

// The header's first words: "gzip (baseline) against zstd (candidate, git feature @
// 0123456789ab)"; every contender of the run, the baseline first.
std::string ContendersLine(const model::RunResult& result);

// One line per contender on how it was obtained: "candidate 'zstd': git ref feature, commit
// 0123456789abcdef..., clean worktree, built with `make -j2`", or "... : not built from git by
// perfengine (argv: ...)", so no format leaves out what was compared.
std::vector<std::string> RevisionLines(const model::RunResult& result);

// The run's wall time and its split: "run time 4 min 14 s: build 0 s, fixtures 12.3 s, parity
// 3.10 s, measuring 3 min 50 s, analysis 8.20 s, other 0.50 s; this verdict cost 4.2
// runner-minutes (1 runner)". Empty for files from before phases were recorded.
std::string PhasesLine(const model::RunResult& result);

// A wall time for people: "8.20 s", "3 min 50 s", "1 h 02 min".
std::string FormatWallTime(double seconds);

// A run's wall time in runner-minutes: "4.2" from a minute up, "0.42", "0.033" below it.
std::string FormatRunnerMinutes(double seconds);

}  // namespace pe::report

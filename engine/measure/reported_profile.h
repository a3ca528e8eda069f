// Profiles a contender reports itself (docs/counters.md, "Profiles a contender reports"): when the
// engine profiles a regression it also runs each contender once with $PERFENGINE_PROFILE naming a
// file, and a contender that can count its own functions (an interpreter's method calls, say Ruby's
// TracePoint) writes one line per function:
//
//   Hash#transform_keys 200
//   JSON::Ext::ParserConfig#parse 200 1.5e6
//
// the function's name, how many times it was called, and optionally a cost in the contender's own
// unit. The two versions' files are diffed: the functions whose counts grew name where the extra
// work went, exactly, where callgrind sees only the interpreter's C functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pe::measure {

// The environment variable that names the file.
inline constexpr char kProfileEnv[] = "PERFENGINE_PROFILE";

struct ReportedFunction {
  std::string function;
  std::uint64_t calls = 0;
  std::optional<double> cost;
};

// Reads the file's text: `function calls [cost]` per line (spaces or tabs; blank lines ignored),
// calls a whole number, cost a finite number at least 0, each function once. On a bad line
// returns what is wrong, naming the line (from 1) and quoting it; nullopt when all is well.
std::optional<std::string> ParseReportedProfile(std::string_view text, std::vector<ReportedFunction>& out);

struct ReportedShift {
  std::string function;
  std::uint64_t base_calls = 0;
  std::uint64_t cand_calls = 0;
  double base_cost = 0;  // 0 when the contender reported no cost
  double cand_cost = 0;
};

// Functions whose calls (or, at equal calls, reported cost) grew from `base` to `cand`, most
// added calls first (ties: more added cost, then name), at most `top`.
std::vector<ReportedShift> ReportedGrowth(const std::vector<ReportedFunction>& base,
                                          const std::vector<ReportedFunction>& cand, int top);

}  // namespace pe::measure

// A callgrind profile's call graph, read from callgrind's own output file (the format of
// valgrind's docs/callgrind-format: "Callgrind Format Specification"), and "where the extra time
// went" by inclusive cost: which of the contender's own functions the growth between two profiles
// belongs to, and which of its callees explain it.
//
// Reading the file ourselves (rather than `callgrind_annotate --inclusive=yes`) keeps the edges:
// a function's inclusive cost is its self cost plus the cost of its `calls=` lines, as
// callgrind_annotate computes it, and the edges say through which callee the growth came.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pe::measure {

// A function as callgrind names it, in the object (program or shared library) it lives in.
// `object` is the file name only ("parser.so"), so the same function of two builds in two
// worktrees is one key.
struct FunctionKey {
  std::string function;
  std::string object;
  auto operator<=>(const FunctionKey&) const = default;
};

struct CallGraphNode {
  std::uint64_t self = 0;   // Ir spent in the function itself
  std::string object_path;  // the object's full path as callgrind wrote it ("" when unknown)
  bool own = false;         // in the contender's own build (MarkOwnObjects)
};

struct CallEdge {
  std::uint64_t calls = 0;
  std::uint64_t cost = 0;  // Ir of those calls, callees included (callgrind's inclusive call cost)
  // The same cost by call site, "parser.c:892" (the source file, inlined ones included, and line
  // of the call), when the profile has line positions and debug information.
  std::map<std::string, std::uint64_t> sites;
};

struct CallGraph {
  std::map<FunctionKey, CallGraphNode> nodes;
  std::map<std::pair<FunctionKey, FunctionKey>, CallEdge> edges;  // caller -> callee
  std::uint64_t total = 0;                                        // Ir of the whole profile

  // Self cost plus every outgoing call's cost, a call to itself excluded (callgrind_annotate's
  // --inclusive=yes, which also counts a recursive function's nested calls again through other
  // functions; the figure is shown, the attribution below does not rely on it).
  std::uint64_t Inclusive(const FunctionKey& f) const;
};

// Parses one callgrind output file (format version 1; name compression "(id) name" and the
// positions/events header lines honoured; cost lines after a `calls=` line are the call's cost,
// not the caller's self cost). Returns an error naming the line when the text is not that format.
std::optional<std::string> ParseCallgrindOut(std::string_view text, CallGraph& out);

// Adds `more` (another process's file) into `into`.
void MergeCallGraph(CallGraph& into, const CallGraph& more);

// Marks as own every node whose object lies under one of `own_dirs`. With no own dirs, every
// object outside the system's folders (/usr, /lib, /lib64, /bin, /sbin, /opt, /snap) is own: a
// contender run from a build directory owns its program.
void MarkOwnObjects(CallGraph& graph, const std::vector<std::filesystem::path>& own_dirs);

// The instructions of the profile's own functions: the self cost of every node marked own.
std::uint64_t OwnInstructions(const CallGraph& graph);

// The own instructions of callgrind files of one count (a process's files, or a worker batch's
// dump), own as MarkOwnObjects has it. nullopt, with `error` naming the file and line, when a file
// cannot be read as callgrind's format.
std::optional<std::uint64_t> OwnInstructionsOf(const std::vector<std::filesystem::path>& files,
                                               const std::vector<std::filesystem::path>& own_dirs, std::string& error);

// One own function named as where growth went.
struct InclusiveFinding {
  FunctionKey function;
  std::uint64_t base_inclusive = 0;
  std::uint64_t cand_inclusive = 0;
  std::int64_t attributed = 0;  // the growth attributed to it (its own code and library callees)
  // The callees through which it came, largest first (key "" for its own code), at most 3.
  std::vector<std::pair<FunctionKey, std::int64_t>> through;
  // For each of `through`, the call site whose cost grew most ("parser.c:892"), or "".
  std::vector<std::string> sites;
};

// Where the growth between `base` and `cand` went, by inclusive cost, naming own functions.
//
// Method: each function's self-cost growth is its own when it is an own function; a library
// function's (libc, libruby) growth is handed to its callers in proportion to how much each
// caller's calls to it grew (or, when none grew, to their cost in `cand`), hop by hop, until it
// reaches an own function: gprof's assumption that a callee's cost divides among its callers as
// its calls do (Graham, Kessler & McKusick, "gprof: a Call Graph Execution Profiler", 1982), applied
// to the growth only. Every instruction of growth is counted once, so recursion cannot inflate a
// caller the way inclusive costs do. Own functions whose attributed growth is at least
// `min_share` of the total growth are returned, largest first, at most `top`.
std::vector<InclusiveFinding> WhereTheGrowthWent(const CallGraph& base, const CallGraph& cand, int top,
                                                 double min_share = 0.05);

// "of which rb_str_dup (libruby.so.3.1) +1,234 (called at parser.c:892), its own code +56"
std::string FormatThrough(const InclusiveFinding& finding);

}  // namespace pe::measure

// Running a command under valgrind's callgrind tool and reading what it wrote. Callgrind
// counts every instruction the program executes (its "Ir" event), deterministically, at
// roughly 20-100x the program's normal run time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::measure {

struct CallgrindRun {
  runner::Outcome outcome;                   // the program's own exit (valgrind passes it on)
  std::vector<std::filesystem::path> files;  // callgrind.out files: one per process part
  std::string error;                         // set when valgrind itself could not be run
};

// Callgrind is this many times slower than a plain run; a command's timeout is stretched
// by it so a contender that passes its timeout natively is not killed under valgrind.
inline constexpr double kCallgrindSlowdown = 50;

// Runs `command` under `valgrind --tool=callgrind --trace-children=yes`, writing one output
// file per process into `out_dir`. A fork() dumps the parent's costs so far first, so the
// child's file holds only the child's work and summing every file counts each instruction
// once. Work a process does between fork() and exec() is lost (valgrind restarts at exec).
CallgrindRun RunCallgrind(const runner::Command& command, runner::ProcessRunner& runner,
                          const std::filesystem::path& out_dir);

// The total Ir of one callgrind output file ("totals:" or else "summary:", at the position
// of Ir in its "events:" line), or nothing when the text has neither.
std::optional<std::uint64_t> ParseCallgrindTotal(std::string_view text);

}  // namespace pe::measure

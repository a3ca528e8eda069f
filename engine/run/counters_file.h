// Counters a contender reports itself (docs/counters.md). Each execution of a workload that has
// counters gets a fresh file in its own scratch directory, named by $PERFENGINE_COUNTERS; the
// contender writes one line per declared counter, `name value unit`, and the engine reads it
// back after the execution ends.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/result.h"

namespace pe::run {

// The environment variable that names the file.
inline constexpr char kCountersEnv[] = "PERFENGINE_COUNTERS";

// The file's place in an execution's directory (ResetExecutionDir empties it before each one).
std::filesystem::path CountersFile(const std::filesystem::path& execution_dir);

// Reads `text`, the file's contents: one `name value unit` line per declared counter (fields
// separated by spaces or tabs; blank lines ignored), each name declared, each once, its unit the
// declared one, its value a finite number at least 0. Fills `out` in the order of `declared`; returns
// what is wrong (naming the line, numbered from 1, and quoting it) or nullopt when all is well.
std::optional<std::string> ParseCounterLines(std::string_view text, const std::vector<model::Counter>& declared,
                                             std::vector<model::CounterValue>& out);

// The most of a counters file the engine reads: a larger file is an error naming this cap.
inline constexpr std::size_t kCountersFileCap = std::size_t{1} << 20;  // 1 MiB

// The text of the counters file an execution left, read without following a link and without
// blocking: the path must name a regular file (not a symbolic link, a FIFO, a directory, a
// device or a socket; the error names which it is, and never reads a link's target) of at most
// kCountersFileCap bytes. Returns what was wrong (a phrase after "contender 'NAME' "), nullopt
// when `text` holds the file.
std::optional<std::string> ReadCountersText(const std::filesystem::path& file, std::string& text);

// Reads the file an execution left (ReadCountersText, then ParseCounterLines); the error says
// what was wrong, nullopt when all is well.
std::optional<std::string> ReadCountersFile(const std::filesystem::path& file,
                                            const std::vector<model::Counter>& declared,
                                            std::vector<model::CounterValue>& out);

// The file as ReadCountersText found it at one moment: a duet round takes it as soon as the
// contender's own process has ended, before its rival ends and could rewrite it.
struct CountersSnapshot {
  std::string text;
  std::optional<std::string> error;  // ReadCountersText's
};
CountersSnapshot SnapshotCounters(const std::filesystem::path& file);

// ReadCountersFile on a snapshot taken earlier.
std::optional<std::string> ReadCountersSnapshot(const CountersSnapshot& snapshot,
                                                const std::vector<model::Counter>& declared,
                                                std::vector<model::CounterValue>& out);

}  // namespace pe::run

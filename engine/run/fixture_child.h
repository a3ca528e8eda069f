// Making a generated fixture in a child process, so Ctrl-C stops it at once: generators are
// plain loops that never look at signals, and a large fixture takes many seconds to write.
#pragma once

#include <filesystem>
#include <functional>

namespace pe::run {

// Forks; the child runs `make` in a process group of its own (so whatever it spawns goes
// too) and sends back the directory or the error's text. The parent waits; on SIGINT or
// SIGTERM or SIGHUP the child's group is killed at once and this throws FixtureInterrupted.
// A `make` that throws becomes a std::runtime_error with its message. When the child ended
// without an answer (killed), `after_kill` runs once it is gone, to remove what it was
// writing. The child dies with the engine (PR_SET_PDEATHSIG), even when the engine is
// killed with SIGKILL.
struct FixtureInterrupted : std::runtime_error {
  FixtureInterrupted() : std::runtime_error("interrupted while making the fixture") {}
};
std::filesystem::path MakeInChild(const std::function<std::filesystem::path()>& make,
                                  const std::function<void()>& after_kill = {});

}  // namespace pe::run

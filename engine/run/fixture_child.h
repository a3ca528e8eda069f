// Making a generated fixture in a child process, so Ctrl-C stops it at once: generators are
// plain loops that never look at signals, and a large fixture takes many seconds to write.
// Independent fixtures are made side by side, each in a child of its own (MakeInChildren).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

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

// How many generated fixtures a run (and `perfengine generate`) makes side by side: the
// machine's two cores. Each generator is mostly one thread of encoding and the kernel's copy
// into the page cache, so two at once fill both.
inline constexpr std::size_t kFixturesAtOnce = 2;

// What became of one maker of MakeInChildren.
struct MadeInChild {
  enum class State { kNotStarted, kMade, kFailed };
  State state = State::kNotStarted;
  std::filesystem::path dir;  // kMade
  std::string error;          // kFailed: the maker's exception text, or how its child died
};

// MakeInChild for several makers, up to `at_once` children running side by side (so
// independent fixtures are written on every core), started in the order given. Once one has
// failed no more are started; those already running are waited for. Returns one outcome per
// maker, in order. `on_start(i)` runs in this process just before maker i's child starts.
// `after_kill` runs once, after every child is gone, when any of them ended without an
// answer. On SIGINT, SIGTERM or SIGHUP every child's group is killed at once and this throws
// FixtureInterrupted.
std::vector<MadeInChild> MakeInChildren(std::span<const std::function<std::filesystem::path()>> makes,
                                        std::size_t at_once, const std::function<void()>& after_kill = {},
                                        const std::function<void(std::size_t)>& on_start = {});

}  // namespace pe::run

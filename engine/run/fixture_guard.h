// Fixtures are read-only to contenders. Permission bits do not stop root, and a contender that
// writes its answer into {fixture} in one run could read it back in the next (a "speed-up" that
// is a cache). The fixture cache checks the whole tree when a run prepares it; this guard sees
// writes during a run: inotify watches on every directory of the fixture, drained after each
// execution, so the contender that wrote is named.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>

namespace pe::run {

class FixtureGuard {
 public:
  // Watches every directory under root. Where inotify cannot (no watches left), complete()
  // is false and the guard sees only what it watches; the next run's tree check still holds.
  explicit FixtureGuard(const std::filesystem::path& root);
  ~FixtureGuard();
  FixtureGuard(const FixtureGuard&) = delete;
  FixtureGuard& operator=(const FixtureGuard&) = delete;

  // What changed inside the tree since the last call ("modified a/b.cc", "created a/x"), or
  // nothing. Paths are relative to root. Changes inside a `.git` directory are ignored when
  // allow_git is set: a server that checks revisions out of a fixture's repository keeps its
  // worktree bookkeeping there (as upstream bazel-diff's `serve` does).
  std::optional<std::string> Changed(bool allow_git = false);

  bool complete() const { return complete_; }

 private:
  void Watch(const std::filesystem::path& dir);

  std::filesystem::path root_;
  int fd_ = -1;
  bool complete_ = true;
  std::unordered_map<int, std::filesystem::path> dirs_;  // watch descriptor -> directory
};

}  // namespace pe::run

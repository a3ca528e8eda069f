// What a sandboxed child may reach: the part of a start request that perfengine-spawner's minder
// turns into namespaces (spawner_sandbox.h). The runner's Command carries one (runner::Sandbox).
#pragma once

#include <filesystem>
#include <vector>

namespace pe::process {

// What a command may reach (docs/threat-model.md): with `enabled` it runs in namespaces of its own
// (spawner_sandbox.h), sees the whole file system read-only except `writable`, sees an empty
// directory at each of `hidden` (a writable path inside one is put back), has its own /proc,
// /dev/shm and pids, and everything it starts dies with it. For the code under test: contenders,
// their hooks and normalisers, git builds.
struct Sandbox {
  bool enabled = false;
  std::vector<std::filesystem::path> writable;  // absolute, existing directories
  std::vector<std::filesystem::path> hidden;    // absolute, existing directories
};

}  // namespace pe::process

// What the code under test may reach when the engine runs it (docs/threat-model.md): a contender's
// execution, its prepare and cleanup hooks and a normaliser on its output each run in a sandbox
// (runner::Sandbox) that can write only that execution's own directory and cannot see the rest of
// the run's scratch directory, where the other contenders' directories are.
#pragma once

#include <filesystem>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::run {

// The sandbox of one execution whose directory is `execution_dir`, inside the run's `scratch`:
// that directory writable, `scratch` hidden, and, when the workload's `output` is a fixed path
// outside the directory (the spec's choice, so the team's), that file's folder writable too.
// `fixed_output` empty: the output is stdout or inside the directory. `also_writable`: the
// contender's own `writable` folders (the spec's).
runner::Sandbox ExecutionSandbox(const std::filesystem::path& scratch, const std::filesystem::path& execution_dir,
                                 const std::filesystem::path& fixed_output,
                                 const std::vector<std::filesystem::path>& also_writable = {});

// Gives a sandboxed `command` a temporary directory it can write, `dir`, as $TMPDIR, unless the
// spec set $TMPDIR itself: with the file system read-only, /tmp is not one.
void GiveTemporaryDirectory(runner::Command& command, const std::filesystem::path& dir);

}  // namespace pe::run

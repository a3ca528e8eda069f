// {checkout}: a writable clone of a fixture's git repository, made for one server start.
//
// Upstream bazel-diff's `serve` checks each requested revision out in its workspace
// (`git -c gc.auto=0 checkout --force REV`, GitClient.kt:158-166 in Tinder/bazel-diff 37.0.0)
// and fetches at start-up (`git fetch --all --prune`, GitClient.kt:83-86). Pointed at the
// guarded, read-only fixture it writes into it and the run fails. A spec passes `{checkout}`
// instead: each server start gets its own clone, inside the execution's scratch directory, so
// the run's scratch machinery removes it after the run and on Ctrl-C; the fixture stays
// guarded, and the clone's `origin` is the fixture's repository, so a fetch reads from it.
#pragma once

#include <filesystem>
#include <string>

#include "engine/runner/process_runner.h"
#include "engine/spec/spec.h"

namespace pe::run {

// True when any of the workload's args or env values names {checkout}.
bool UsesCheckout(const spec::Workload& w);

// The git repository a fixture holds: `fixture` itself when it is a work tree, else
// `fixture/repo` (the git_workspace generator's layout). Throws std::runtime_error naming both
// when neither is.
std::filesystem::path FixtureRepository(const std::filesystem::path& fixture);

// Clones FixtureRepository(fixture) into `dest` (which must not exist) with `git clone
// --shared` (the clone borrows the fixture's objects and writes nothing there) and checks out
// what the fixture has checked out. `scratch` holds git's captured output. Throws
// std::runtime_error with git's message when git fails.
void MakeCheckout(runner::ProcessRunner& runner, const std::filesystem::path& fixture,
                  const std::filesystem::path& dest, const std::filesystem::path& scratch, double timeout_s);

}  // namespace pe::run

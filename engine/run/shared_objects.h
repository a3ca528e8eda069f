// The isolation check (issue 22): a contender with `isolated = true` must map only its own
// build's shared objects. Its parity execution is traced (runner::Command::record_maps): every
// process it starts, forked workers included, has its executable mappings read from
// /proc/PID/maps as it exits. Two things fail the run (exit 2), each naming the files:
//   - a file under another contender's own folders (its `own_objects`, else its git worktree)
//     and not under this contender's own: e.g. the baseline's worker loading the candidate's
//     extension;
//   - one name mapped from two paths in one process (two copies of one extension: the trap a
//     ruby/json gate once fell into, where baseline workers mapped both builds' parser.so).
// Pure functions over what the runner recorded; the Executor applies them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"

namespace pe::run {

// One contender's own folders: where its build's shared objects are.
struct ObjectOwner {
  std::string contender;
  std::vector<std::filesystem::path> dirs;
};

// What is wrong with `mapped` (one execution of `contender`), one line per problem in the
// order found, e.g. "process 812 mapped /w/b/ext.so, which is contender 'candidate''s (/w/b)"
// or "process 812 mapped two copies of ext.so: /w/a/ext.so and /w/b/ext.so". Empty: isolated.
// `owners` holds every contender's folders, `contender`'s own among them. Two paths that name
// one file (a symbolic link, a bind mount) are one copy.
std::vector<std::string> IsolationProblems(const std::vector<runner::MappedFile>& mapped, const std::string& contender,
                                           const std::vector<ObjectOwner>& owners);

// The failure's one line: how many problems, the first few of them.
std::string IsolationMessage(const std::vector<std::string>& problems);

}  // namespace pe::run

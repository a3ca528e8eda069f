// One contender's directory for one execution: <dir>/work (its {workdir}), <dir>/stdout and
// <dir>/stderr (the captures), and whatever it writes to {out}. Every execution must start from
// an empty one, and resetting it is on the path of every execution, so it is done with as few
// system calls as the kernel allows.
#pragma once

#include <filesystem>

namespace pe::run {

// Leaves `dir` holding an empty directory `work` and, at most, the capture files `stdout` and
// `stderr`, each a writable regular file with one link (the runner empties them as it opens
// them); everything else in it (any {out}, what the last execution left in work/, a capture it
// replaced with a symlink or a hard link) is removed. Throws std::filesystem::filesystem_error
// when `dir` cannot be made.
//
// Why captures are kept rather than removed and made again: on ext4 a new file is a new inode,
// and allocating one (find_inode_bit skipping recently deleted inodes, on these VMs' ext4
// without a journal) was the largest part of the engine's own time per execution of a
// command that prints (perf).
void ResetExecutionDir(const std::filesystem::path& dir);

// ResetExecutionDir, and the captures emptied too (truncated, so their inodes stay): for an
// execution whose output has been read. Each contender's directory would otherwise keep its
// last output until its next execution, so a run needed scratch space for one output per
// contender, not one (issue 45).
void ReleaseExecutionDir(const std::filesystem::path& dir);

}  // namespace pe::run

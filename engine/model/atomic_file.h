// Writing a file so that readers see either the old content or the new, never a part.
#pragma once

#include <filesystem>
#include <string_view>

namespace pe::model {

// Writes `content` to a temporary file in the same directory, fsyncs it, renames it over
// `path` and fsyncs the directory. On any failure the temporary file is removed, `path` is
// left as it was, and std::runtime_error says which step failed on which path and why.
//
// `path` is never replaced by anything but a regular file: a symlink is followed and its
// target written (the link stays); a character device or FIFO (/dev/null, /dev/stdout onto
// a pipe) is written through in place, not atomically; a directory, block device or socket
// is refused.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

// Checks, without writing anything, that WriteFileAtomically(path, ...) can succeed: the
// path is not one it refuses, and its directory takes a new file (a temporary one is created
// and removed). Throws std::runtime_error "PATH: why" otherwise.
void CheckWritable(const std::filesystem::path& path);

// The file a write to `path` lands in: symlinks followed (even a dangling one, whose target
// would be created); otherwise `path` itself.
std::filesystem::path WriteTarget(const std::filesystem::path& path);

}  // namespace pe::model

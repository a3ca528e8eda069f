// The end of a child's output file (stderr, a build log), for failure messages.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace pe::runner {

// The last `max_lines` lines of the file, read from at most its last `max_bytes`, without the
// trailing newlines; a first line cut by the byte limit is kept as cut. "" when the file is
// missing or empty, or max_lines is 0.
std::string FileTail(const std::filesystem::path& path, std::size_t max_lines, std::size_t max_bytes);

}  // namespace pe::runner

// The engine's one reader of whole files that a contender or a tool wrote (callgrind output,
// an allocation report, a contender's output, a build marker). One failure rule: a file that
// cannot be read (missing, unreadable) reads as empty, and the caller says what an empty file
// means ("no instruction total", "no process reported"). Fixtures are written and read by
// generators/file_io.h, which throws instead: a fixture that cannot be read is a failed run.
#pragma once

#include <filesystem>
#include <string>

namespace pe::runner {

std::string ReadWholeFile(const std::filesystem::path& path);

}  // namespace pe::runner

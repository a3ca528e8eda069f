// Loading a spec and sizing directories, as run, validate, list and generate do it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "engine/cli/commands.h"
#include "engine/run/experiment.h"
#include "engine/spec/spec.h"

namespace pe::cli {

// A directory parses as an empty spec ("no contenders"); this says what it is instead.
spec::Spec ParseSpecAt(const std::string& path, spec::SpecUse use = spec::SpecUse::kRun);

// ParseSpecAt, --contender overrides applied, programs checked.
spec::Spec LoadSpec(const CommonOptions& common);

// --workload, --scale and --cache-dir as run::Options.
run::Options RunOptions(const CommonOptions& common);

// Bytes of the regular files under `dir`; adds their number to *files.
std::uintmax_t DirectorySize(const std::filesystem::path& dir, std::size_t* files);

// "12.3 MiB", "4.0 KiB", "17 B".
std::string Size(std::uintmax_t bytes);

}  // namespace pe::cli

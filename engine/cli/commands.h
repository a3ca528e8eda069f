// The subcommands, each from parsed options to an exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::cli {

struct CommonOptions {
  std::string spec;
  std::vector<std::string> contenders;  // NAME=PROGRAM
  std::vector<std::string> workloads;
  std::optional<double> scale;
  std::string cache_dir;
};

struct RunFlags {
  std::optional<int> rounds;
  std::optional<int> warmup_rounds;
  std::string json;
  std::string markdown;
};

ExitCode RunCommand(const CommonOptions& common, const RunFlags& flags, bool color);
ExitCode ValidateCommand(const CommonOptions& common);
ExitCode ListCommand(const CommonOptions& common);
ExitCode GenerateCommand(const CommonOptions& common, const std::string& out_dir);

}  // namespace pe::cli

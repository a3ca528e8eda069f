// Test helpers: a scratch directory and a throwaway git repository with commits made by argv.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/runner/process_runner.h"
#include "tests/support/text_file.h"

namespace pe::testing {

class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pe-gitbuild-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A repository in `dir`, on branch main, with an identity given through the environment so
// no global git configuration is needed or read.
class TestRepo {
 public:
  explicit TestRepo(std::filesystem::path dir) : dir_(std::move(dir)), runner_(runner::MakeSystemProcessRunner()) {
    std::filesystem::create_directories(dir_);
    Git({"init", "-q", "-b", "main"});
  }

  const std::filesystem::path& dir() const { return dir_; }

  // Runs git in the repository and returns its stdout without the trailing newline.
  std::string Git(const std::vector<std::string>& args) {
    runner::Command command;
    command.argv = {"git", "-C", dir_.string()};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.env = {{"GIT_AUTHOR_NAME", "Test"},    {"GIT_AUTHOR_EMAIL", "test@example.com"},
                   {"GIT_COMMITTER_NAME", "Test"}, {"GIT_COMMITTER_EMAIL", "test@example.com"},
                   {"GIT_CONFIG_NOSYSTEM", "1"},   {"GIT_CONFIG_GLOBAL", "/dev/null"}};
    command.stdout_path = dir_.parent_path() / "git.out";
    command.stderr_path = dir_.parent_path() / "git.err";
    runner::Outcome outcome = runner_->Run(command);
    EXPECT_TRUE(outcome.ok()) << "git failed: " << outcome.error << "\n" << ReadText(command.stderr_path);
    std::string out = ReadText(command.stdout_path);
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }

  // Writes the files, commits them all and returns the new commit.
  std::string Commit(const std::vector<std::pair<std::string, std::string>>& files, const std::string& message) {
    for (const auto& [name, text] : files) WriteText(dir_ / name, text);
    Git({"add", "-A"});
    Git({"commit", "-q", "-m", message});
    return Git({"rev-parse", "HEAD"});
  }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<runner::ProcessRunner> runner_;
};

}  // namespace pe::testing

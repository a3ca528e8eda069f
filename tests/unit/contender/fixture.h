// Small bazel workspaces built by hand for the contender's tests: a query result made of
// blaze_query.Target messages, the files it names, and a replay `bazel` beside them.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "build.pb.h"

namespace pe::refdiff::testing {

// Target builders. Attributes are (name, string value) pairs of type STRING.
blaze_query::Target SourceFile(const std::string& label);
blaze_query::Target GeneratedFile(const std::string& label, const std::string& rule);
blaze_query::Target Rule(const std::string& label, const std::string& rule_class, std::vector<std::string> inputs = {},
                         std::vector<std::pair<std::string, std::string>> attributes = {},
                         std::vector<std::string> instantiation_stack = {});

// The varint-length-delimited stream `bazel query --output streamed_proto` prints.
std::string EncodeStream(const std::vector<blaze_query::Target>& targets);

// A temporary directory laid out like the bazel_workspace generator's fixtures:
//   dir/bazel -> the replay bazel, dir/query.pb (its recording), dir/workspace/...
class Fixture {
 public:
  Fixture();
  ~Fixture();
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path workspace() const { return dir_ / "workspace"; }
  std::filesystem::path bazel() const { return dir_ / "bazel"; }

  // Writes workspace/<relative> (creating folders).
  void WriteSource(const std::string& relative, const std::string& contents) const;
  void SetTargets(const std::vector<blaze_query::Target>& targets) const;
  void SetStreamBytes(const std::string& bytes) const;
  // A file in dir() (outside the workspace) holding `contents`; returns its path.
  std::filesystem::path WriteFile(const std::string& name, const std::string& contents) const;
  std::string ReadFile(const std::string& name) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace pe::refdiff::testing

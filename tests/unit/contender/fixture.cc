#include "fixture.h"

#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace pe::refdiff::testing {

blaze_query::Target SourceFile(const std::string& label) {
  blaze_query::Target target;
  target.set_type(blaze_query::Target::SOURCE_FILE);
  target.mutable_source_file()->set_name(label);
  target.mutable_source_file()->set_location("/ws/BUILD:1:1");
  return target;
}

blaze_query::Target GeneratedFile(const std::string& label, const std::string& rule) {
  blaze_query::Target target;
  target.set_type(blaze_query::Target::GENERATED_FILE);
  target.mutable_generated_file()->set_name(label);
  target.mutable_generated_file()->set_generating_rule(rule);
  return target;
}

blaze_query::Target Rule(const std::string& label, const std::string& rule_class, std::vector<std::string> inputs,
                         std::vector<std::pair<std::string, std::string>> attributes,
                         std::vector<std::string> instantiation_stack) {
  blaze_query::Target target;
  target.set_type(blaze_query::Target::RULE);
  blaze_query::Rule* rule = target.mutable_rule();
  rule->set_name(label);
  rule->set_rule_class(rule_class);
  rule->set_location("/ws/BUILD:3:1");
  for (auto& input : inputs) rule->add_rule_input(input);
  for (auto& [name, value] : attributes) {
    blaze_query::Attribute* attribute = rule->add_attribute();
    attribute->set_name(name);
    attribute->set_type(blaze_query::Attribute::STRING);
    attribute->set_string_value(value);
  }
  for (auto& frame : instantiation_stack) rule->add_instantiation_stack(frame);
  return target;
}

std::string EncodeStream(const std::vector<blaze_query::Target>& targets) {
  std::string out;
  for (const auto& target : targets) {
    std::string bytes = target.SerializeAsString();
    std::size_t size = bytes.size();
    do {
      unsigned char byte = size & 0x7f;
      size >>= 7;
      if (size != 0) byte |= 0x80;
      out += static_cast<char>(byte);
    } while (size != 0);
    out += bytes;
  }
  return out;
}

Fixture::Fixture() {
  std::string pattern = (std::filesystem::temp_directory_path() / "contender-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  std::filesystem::create_directories(workspace());
  std::filesystem::create_symlink(REFDIFF_REPLAY_BAZEL, bazel());
}

Fixture::~Fixture() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void Fixture::WriteSource(const std::string& relative, const std::string& contents) const {
  std::filesystem::path path = workspace() / relative;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
}

void Fixture::SetTargets(const std::vector<blaze_query::Target>& targets) const {
  SetStreamBytes(EncodeStream(targets));
}

void Fixture::SetStreamBytes(const std::string& bytes) const { WriteFile("query.pb", bytes); }

std::filesystem::path Fixture::WriteFile(const std::string& name, const std::string& contents) const {
  std::filesystem::path path = dir_ / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
  return path;
}

std::string Fixture::ReadFile(const std::string& name) const {
  std::ifstream in(dir_ / name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace pe::refdiff::testing

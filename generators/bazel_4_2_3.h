// What real Bazel 4.2.3 (Debian's bazel-bootstrap) prints in `query --output=streamed_proto`
// for the rule classes the Bazel fixtures use, recorded by scripts/record-bazel-4.2.3.py into
// bazel_4_2_3_data.cc. The fixtures write these bytes around the attributes they set, so their
// query output carries every default attribute real query output carries.
#pragma once

#include <span>
#include <string_view>

namespace pe::gen::bazel423 {

struct Attribute {
  std::string_view name;
  // The serialised build.proto Attribute of the class's default; empty for an attribute the
  // generator sets itself (explicitly specified in the probe).
  std::string_view default_bytes;
};

struct RuleClass {
  std::string_view name;
  std::span<const Attribute> attributes;               // in the order Bazel prints them
  std::span<const std::string_view> implicit_inputs;   // all in @bazel_tools, sorted
  std::span<const std::string_view> implicit_outputs;  // "{name}" stands for the rule's name
};

std::span<const RuleClass> Classes();
// Serialised Target messages of the //external: repositories every 4.2.3 workspace has,
// sorted by label.
std::span<const std::string_view> DefaultExternals();
std::span<const std::string_view> DefaultExternalLabels();  // their labels, in the same order

}  // namespace pe::gen::bazel423

// A target as the pipeline keeps it after decoding: only what hashing needs, not the whole proto.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "digest.h"

namespace pe::refdiff {

enum class TargetKind { kRule, kSourceFile, kGeneratedFile };

// "Rule", "SourceFile", "GeneratedFile": bazel-diff's names, used in --includeTargetType keys.
std::string_view KindName(TargetKind kind);

struct Target {
  std::string label;
  TargetKind kind = TargetKind::kRule;
  // Rule: its rule_input labels, plus //external:<repo> for each other repository they name.
  // GeneratedFile: its generating rule. SourceFile: none.
  std::vector<std::string> inputs;
  // Rule: the .bzl/.scl files its instantiation stack names, as written in the frames, kept by
  // upstream's rule (BzlFileOfFrame in query_stream.h), sorted and without duplicates.
  std::vector<std::string> bzl_files;
  // Rule: digest of rule_class, name and attributes; the .bzl contents join it later, once the
  // distinct .bzl files have been read. SourceFile: digest of its name and subincludes when it
  // has any (a BUILD file's loads), else zero.
  Digest rule_body{};
};

// The result of hashing one target.
struct HashedTarget {
  std::string label;
  TargetKind kind = TargetKind::kRule;
  Digest direct{};      // the target itself
  Digest transitive{};  // the target and everything it depends on
};

}  // namespace pe::refdiff

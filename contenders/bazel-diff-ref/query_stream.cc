#include "query_stream.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>

#include "build.pb.h"
#include "error.h"
#include "parallel.h"

namespace pe::refdiff {
namespace {

// Frames per batch: big enough that hand-out costs nothing, small enough to balance two cores.
constexpr std::size_t kBatch = 512;

// Hashes rule_class, name, skylark_environment_hash_code and every attribute sorted by name, as
// upstream's BazelRule.digest does: each attribute as its serialized message, so every type of
// build.proto counts (STRING_DICT, LICENSE, selector lists, ...) with all its fields.
// generator_location is left out because it moves whenever lines are added above a macro call,
// which changes nothing built (Bazel's own SyntheticAttributeHashCalculator skips it too).
Digest HashRuleBody(const blaze_query::Rule& rule, Sha256& hasher) {
  hasher.Field(rule.rule_class()).Field(rule.name()).Field(rule.skylark_environment_hash_code());
  std::vector<const blaze_query::Attribute*> attributes;
  attributes.reserve(rule.attribute_size());
  for (const auto& attribute : rule.attribute()) {
    if (attribute.name() != "generator_location") attributes.push_back(&attribute);
  }
  std::sort(attributes.begin(), attributes.end(), [](const auto* a, const auto* b) { return a->name() < b->name(); });
  thread_local std::string bytes;
  for (const auto* attribute : attributes) {
    bytes.clear();
    attribute->AppendPartialToString(&bytes);
    hasher.Field(bytes);
  }
  return hasher.Finish();
}

// "@repo//pkg:x" and "@@repo//pkg:x" -> "//external:repo"; "" for the main repository and
// anything else. Upstream links a rule to the //external target of each repository it takes
// inputs from, so a changed repository rule impacts its users.
std::string ExternalRepoTarget(std::string_view input) {
  if (!input.starts_with("@") || input.starts_with("@//") || input.starts_with("@@//")) return {};
  std::size_t slashes = input.find("//");
  if (slashes == std::string_view::npos || input.find("//", slashes + 2) != std::string_view::npos) return {};
  std::string_view repo = input.substr(0, slashes);
  while (repo.starts_with("@")) repo.remove_prefix(1);
  return "//external:" + std::string(repo);
}

}  // namespace

// Upstream 37's rule (RuleHasher.kt:40-48, Tinder/bazel-diff 37.0.0): the frame up to its first
// ':' ("pkg/defs.bzl:2:19: my_macro" -> "pkg/defs.bzl"), kept when it ends in ".bzl" or ".scl"
// and starts with none of "external/", "@", "../". Frames in BUILD files name no .bzl and are
// skipped (the BUILD file's effect is already in the attributes). An absolute frame (Bazel
// writes a macro of another repository as "/<output base>/external/r/defs.bzl:2:19: m") is
// kept here and then resolved under the workspace, as upstream does (see target_hasher.cc).
std::string_view BzlFileOfFrame(std::string_view frame) {
  std::string_view path = frame.substr(0, frame.find(':'));
  if (!path.ends_with(".bzl") && !path.ends_with(".scl")) return {};
  if (path.starts_with("external/") || path.starts_with("@") || path.starts_with("../")) return {};
  return path;
}

namespace {

void ConvertRule(const blaze_query::Rule& rule, Sha256& hasher, Target& target) {
  target.label = rule.name();
  target.kind = TargetKind::kRule;
  target.inputs.assign(rule.rule_input().begin(), rule.rule_input().end());
  for (const auto& input : rule.rule_input()) {
    std::string repository = ExternalRepoTarget(input);
    if (!repository.empty()) target.inputs.push_back(std::move(repository));
  }
  for (const auto& frame : rule.instantiation_stack()) {
    std::string_view file = BzlFileOfFrame(frame);
    if (!file.empty()) target.bzl_files.emplace_back(file);
  }
  std::sort(target.bzl_files.begin(), target.bzl_files.end());
  target.bzl_files.erase(std::unique(target.bzl_files.begin(), target.bzl_files.end()), target.bzl_files.end());
  target.rule_body = HashRuleBody(rule, hasher);
}

// Returns false for target types the pipeline skips; throws nothing (the caller reports).
enum class Decoded { kKept, kSkipped, kMalformed };

Decoded Convert(const blaze_query::Target& message, Sha256& hasher, Target& target) {
  switch (message.type()) {
    case blaze_query::Target::RULE:
      if (!message.has_rule()) return Decoded::kMalformed;
      ConvertRule(message.rule(), hasher, target);
      return Decoded::kKept;
    case blaze_query::Target::SOURCE_FILE:
      if (!message.has_source_file()) return Decoded::kMalformed;
      target.label = message.source_file().name();
      target.kind = TargetKind::kSourceFile;
      // Upstream seeds a source file's digest with its name and the .bzl files its BUILD file
      // loads (subinclude, on BUILD files), so a changed load() changes the BUILD file's hash.
      if (message.source_file().subinclude_size() > 0) {
        hasher.Field(target.label);
        for (const auto& subinclude : message.source_file().subinclude()) hasher.Field(subinclude);
        target.rule_body = hasher.Finish();
      }
      return Decoded::kKept;
    case blaze_query::Target::GENERATED_FILE:
      if (!message.has_generated_file()) return Decoded::kMalformed;
      target.label = message.generated_file().name();
      target.kind = TargetKind::kGeneratedFile;
      target.inputs.push_back(message.generated_file().generating_rule());
      return Decoded::kKept;
    default:
      return Decoded::kSkipped;
  }
}

}  // namespace

std::vector<Frame> SplitFrames(std::string_view stream) {
  std::vector<Frame> frames;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(stream.data());
  std::size_t pos = 0;
  while (pos < stream.size()) {
    std::size_t start = pos;
    std::uint64_t size = 0;
    int shift = 0;
    for (;;) {
      if (pos >= stream.size()) {
        throw RefDiffError("query output is truncated at byte " + std::to_string(start) +
                           " (a length prefix runs past the end)");
      }
      std::uint8_t byte = bytes[pos++];
      if (shift >= 63) {
        throw RefDiffError("query output has a malformed length prefix at byte " + std::to_string(start));
      }
      size |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) == 0) break;
    }
    if (size > stream.size() - pos) {
      throw RefDiffError("query output is truncated at byte " + std::to_string(start) + " (a " + std::to_string(size) +
                         "-byte target with " + std::to_string(stream.size() - pos) + " bytes left)");
    }
    frames.push_back({pos, static_cast<std::size_t>(size)});
    pos += size;
  }
  return frames;
}

std::vector<Target> DecodeTargets(std::string_view stream, int threads) {
  std::vector<Frame> frames = SplitFrames(stream);
  std::vector<Target> targets(frames.size());
  std::vector<char> kept(frames.size(), 0);
  // The lowest failing offset wins, so the message does not depend on thread scheduling.
  std::atomic<std::size_t> first_bad{std::numeric_limits<std::size_t>::max()};

  ParallelFor(frames.size(), kBatch, threads, [&](std::size_t begin, std::size_t end) {
    blaze_query::Target message;  // reused across the batch: Clear() keeps its buffers
    Sha256 hasher;
    for (std::size_t i = begin; i < end; ++i) {
      const Frame& frame = frames[i];
      message.Clear();
      Decoded result = Decoded::kMalformed;
      if (frame.size <= static_cast<std::size_t>(std::numeric_limits<int>::max()) &&
          message.ParseFromArray(stream.data() + frame.offset, static_cast<int>(frame.size))) {
        result = Convert(message, hasher, targets[i]);
      }
      if (result == Decoded::kMalformed) {
        std::size_t seen = first_bad.load();
        while (frame.offset < seen && !first_bad.compare_exchange_weak(seen, frame.offset)) {
        }
        return;
      }
      kept[i] = result == Decoded::kKept;
    }
  });

  if (first_bad.load() != std::numeric_limits<std::size_t>::max()) {
    throw RefDiffError("query output has a target that does not decode at byte " + std::to_string(first_bad.load()));
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (kept[i]) {
      if (out != i) targets[out] = std::move(targets[i]);
      ++out;
    }
  }
  targets.resize(out);
  return targets;
}

}  // namespace pe::refdiff

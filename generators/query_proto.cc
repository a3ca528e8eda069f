#include "generators/query_proto.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "generators/sha256.h"

namespace pe::gen {
namespace {

// The protobuf wire format written directly. Generated message classes cost a copy of every
// string into a message and an allocation per field; this writer appends straight into the
// output buffer. Fields go out in field-number order with proto2 presence, which is exactly
// what protobuf's own serialiser emits for these messages, so the bytes are the same
// (tests pin them and decode them with Python's protobuf and the generated C++ classes).
// Field numbers are those of Bazel's src/main/protobuf/build.proto (see proto/CMakeLists.txt).
//
// A nested message needs its length before its bytes. Each message is written by a generic
// lambda called twice: once into a Counter (sizes only, no copying) and once into the
// output, so no byte is copied twice.
namespace wire {

constexpr std::uint32_t kVarint = 0;
constexpr std::uint32_t kLength = 2;

struct Counter {
  std::size_t size = 0;
  void Append(const char*, std::size_t n) { size += n; }
};

// Writes into space already reserved (the Counter said how much), so no capacity checks.
struct Appender {
  char* at;
  void Append(const char* bytes, std::size_t n) {
    std::memcpy(at, bytes, n);
    at += n;
  }
};

inline std::size_t VarintSize(std::uint64_t value) {
  std::size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

template <class Sink>
void Varint(Sink& sink, std::uint64_t value) {
  if constexpr (std::is_same_v<Sink, Counter>) {
    sink.size += VarintSize(value);
  } else {
    while (value >= 0x80) {
      *sink.at++ = static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    *sink.at++ = static_cast<char>(value);
  }
}

template <class Sink>
void Tag(Sink& sink, std::uint32_t field, std::uint32_t type) {
  Varint(sink, (field << 3) | type);
}

template <class Sink>
void Bytes(Sink& sink, std::uint32_t field, std::string_view bytes) {
  Tag(sink, field, kLength);
  Varint(sink, bytes.size());
  sink.Append(bytes.data(), bytes.size());
}

template <class Sink>
void Uint(Sink& sink, std::uint32_t field, std::uint64_t value) {
  Tag(sink, field, kVarint);
  Varint(sink, value);
}

// A length-delimited submessage whose fields `write(sink)` produces.
template <class Sink, class Fields>
void Message(Sink& sink, std::uint32_t field, const Fields& write) {
  Counter counter;
  write(counter);
  Tag(sink, field, kLength);
  Varint(sink, counter.size);
  if constexpr (std::is_same_v<Sink, Counter>) {
    sink.size += counter.size;
  } else {
    write(sink);
  }
}

}  // namespace wire

// blaze_query field numbers and enum values (Bazel's build.proto, see proto/CMakeLists.txt).
namespace target {
constexpr std::uint32_t kType = 1, kRule = 2, kSourceFile = 3, kGeneratedFile = 4;
constexpr std::uint32_t kTypeRule = 1, kTypeSourceFile = 2, kTypeGeneratedFile = 3;
}  // namespace target
namespace rule {
constexpr std::uint32_t kName = 1, kRuleClass = 2, kLocation = 3, kAttribute = 4,
                        kRuleInput = 5, kRuleOutput = 6, kSkylarkEnvironmentHashCode = 12,
                        kInstantiationStack = 13;
}  // namespace rule
namespace attribute {
constexpr std::uint32_t kName = 1, kType = 2, kStringValue = 5, kStringListValue = 6,
                        kExplicitlySpecified = 13, kBooleanValue = 14, kNodep = 20;
constexpr std::uint32_t kString = 2, kStringList = 5, kLabelList = 6, kOutputList = 7,
                        kBoolean = 14;
}  // namespace attribute
namespace source_file {
constexpr std::uint32_t kName = 1, kLocation = 2;
}  // namespace source_file
namespace generated_file {
constexpr std::uint32_t kName = 1, kGeneratingRule = 2, kLocation = 3;
}  // namespace generated_file

void AppendNumber(std::string& out, std::uint64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, static_cast<std::size_t>(end - digits));
}

class Writer {
 public:
  Writer(const BazelGraph& graph, OutputFile& out) : graph_(graph), out_(out) {
    // A Starlark rule's environment hash: stable per rule class within one fixture.
    for (auto rule_class : RuleClasses()) {
      environment_hashes_.push_back(Sha256Hex(fmt::format("{}:{}", graph.seed, rule_class)));
    }
    // Every rule's label is named by up to fan_in dependents: build each once.
    rule_labels_.reserve(graph.rules.size());
    for (std::uint32_t r = 0; r < graph.rules.size(); ++r) rule_labels_.push_back(graph.RuleLabel(r));
  }

  void Run() {
    for (std::size_t i = 0; i < graph_.externals.size(); ++i) External(i);
    for (std::uint32_t p = 0; p < graph_.packages.size(); ++p) Package(p);
  }

 private:
  // One varint-delimited Target whose rule/source_file/generated_file `fields` writes.
  template <class Fields>
  void Emit(std::uint32_t type, std::uint32_t field, const Fields& fields) {
    wire::Counter counter;
    fields(counter);
    const std::size_t size = 2 + 1 + wire::VarintSize(counter.size) + counter.size;
    std::string& buffer = out_.buffer();
    const std::size_t at = buffer.size();
    const std::size_t total = wire::VarintSize(size) + size;
    buffer.resize(at + total);
    wire::Appender out{buffer.data() + at};
    wire::Varint(out, size);
    wire::Uint(out, target::kType, type);
    wire::Tag(out, field, wire::kLength);
    wire::Varint(out, counter.size);
    fields(out);
    if (out.at != buffer.data() + at + total) throw std::logic_error("query.pb size mismatch");
    out_.MaybeFlush();
  }

  struct Attr {
    std::string_view name;
    std::uint32_t type = attribute::kString;
    bool explicitly_specified = true;
    const std::string* string_value = nullptr;
    const std::string* const* list = nullptr;
    std::size_t list_size = 0;
    int boolean_value = -1;  // -1: unset
    bool nodep = false;
  };

  template <class Sink>
  static void Attribute(Sink& sink, const Attr& a) {
    wire::Message(sink, rule::kAttribute, [&](auto& s) {
      wire::Bytes(s, attribute::kName, a.name);
      wire::Uint(s, attribute::kType, a.type);
      if (a.string_value != nullptr) wire::Bytes(s, attribute::kStringValue, *a.string_value);
      for (std::size_t i = 0; i < a.list_size; ++i) {
        wire::Bytes(s, attribute::kStringListValue, *a.list[i]);
      }
      wire::Uint(s, attribute::kExplicitlySpecified, a.explicitly_specified ? 1 : 0);
      if (a.boolean_value >= 0) wire::Uint(s, attribute::kBooleanValue, a.boolean_value);
      if (a.nodep) wire::Uint(s, attribute::kNodep, 1);
    });
  }

  template <class Sink>
  static void StringAttribute(Sink& sink, std::string_view name, const std::string& value,
                              bool explicitly = true) {
    Attribute(sink, {.name = name, .explicitly_specified = explicitly, .string_value = &value});
  }

  void External(std::size_t i) {
    const std::string& name = graph_.externals[i];
    const auto line = kWorkspaceHeaderLines + 1 + i * kWorkspaceRepoLines;
    const std::string location = fmt::format("WORKSPACE:{}:13", line);
    const std::string label = "//external:" + name;
    const std::string sha256 = Sha256Hex(fmt::format("{}:{}", graph_.seed, name));
    const std::string strip_prefix = name + "-1.0";
    const std::string url = fmt::format("https://example.com/{0}/{0}-1.0.tar.gz", name);
    const std::string* urls[] = {&url};
    const std::string environment = Sha256Hex(fmt::format("{}:http", graph_.seed));
    const std::string frame = location + ": <toplevel>";
    Emit(target::kTypeRule, target::kRule, [&](auto& s) {
      wire::Bytes(s, rule::kName, label);
      wire::Bytes(s, rule::kRuleClass, "http_archive");
      wire::Bytes(s, rule::kLocation, location);
      StringAttribute(s, "name", name);
      StringAttribute(s, "sha256", sha256);
      StringAttribute(s, "strip_prefix", strip_prefix);
      Attribute(s, {.name = "urls", .type = attribute::kStringList, .list = urls, .list_size = 1});
      wire::Bytes(s, rule::kSkylarkEnvironmentHashCode, environment);
      wire::Bytes(s, rule::kInstantiationStack, frame);
    });
  }

  void Package(std::uint32_t p) {
    const PackageNode& package = graph_.packages[p];
    prefix_.assign("//").append(package.name).append(":");
    build_file_.assign(package.name).append("/BUILD");
    build_location_ = build_file_ + ":1:1";
    locations_.resize(package.rule_count);
    for (std::uint32_t j = 0; j < package.rule_count; ++j) {
      const RuleNode& node = graph_.rules[package.first_rule + j];
      const std::string_view callee =
          node.macro ? std::string_view("my_macro") : RuleClasses()[node.kind];
      // Bazel reports a rule's location at the call's opening parenthesis.
      std::string& location = locations_[j];
      location.assign(build_file_).append(":");
      AppendNumber(location, RuleLine(node));
      location.append(":");
      AppendNumber(location, callee.size() + 1);
    }
    for (const PackageEntry& entry : graph_.PackageTargets(p)) {
      switch (entry.kind) {
        case PackageEntry::Kind::kBuildFile:
        case PackageEntry::Kind::kDefsFile:
          SourceFile(entry.name, build_location_);
          break;
        case PackageEntry::Kind::kSource:
          SourceFile(entry.name, locations_[graph_.rules[entry.rule].index]);
          break;
        case PackageEntry::Kind::kOutput: {
          const RuleNode& node = graph_.rules[entry.rule];
          label_.assign(prefix_).append(entry.name);
          Emit(target::kTypeGeneratedFile, target::kGeneratedFile, [&](auto& s) {
            wire::Bytes(s, generated_file::kName, label_);
            wire::Bytes(s, generated_file::kGeneratingRule, rule_labels_[entry.rule]);
            wire::Bytes(s, generated_file::kLocation, locations_[node.index]);
          });
          break;
        }
        case PackageEntry::Kind::kRule:
          Rule(entry.rule);
          break;
      }
    }
  }

  void SourceFile(const std::string& name, const std::string& location) {
    label_.assign(prefix_).append(name);
    Emit(target::kTypeSourceFile, target::kSourceFile, [&](auto& s) {
      wire::Bytes(s, source_file::kName, label_);
      wire::Bytes(s, source_file::kLocation, location);
    });
  }

  void Rule(std::uint32_t r) {
    static const std::string kCmd = "cat $(SRCS) > $@";
    static const std::string kPublic = "//visibility:public";
    static const std::string kMacro = "my_macro";
    const RuleNode& node = graph_.rules[r];
    const PackageNode& package = graph_.packages[node.package];
    const std::string& location = locations_[node.index];
    const std::string name = BazelGraph::RuleName(node);

    // Labels of srcs, deps and outs, in that order; deps point at the shared rule labels.
    const std::size_t source_count = node.srcs.size();
    const auto deps = graph_.DepsOf(r);
    labels_.resize(source_count + node.outs);  // reusing the strings' capacity
    lists_.clear();
    for (std::size_t i = 0; i < source_count; ++i) {
      labels_[i].assign(prefix_).append(BazelGraph::SourceName(node, node.srcs[i]));
      lists_.push_back(&labels_[i]);
    }
    for (std::uint32_t dep : deps) lists_.push_back(&rule_labels_[dep]);
    const std::size_t outs_at = source_count + deps.size();
    for (std::uint32_t k = 0; k < node.outs; ++k) {
      labels_[source_count + k].assign(prefix_).append(BazelGraph::OutputName(node, k));
      lists_.push_back(&labels_[source_count + k]);
    }
    sorted_.assign(lists_.begin(), lists_.begin() + static_cast<std::ptrdiff_t>(outs_at));
    std::sort(sorted_.begin(), sorted_.end(),
              [](const std::string* a, const std::string* b) { return *a < *b; });
    const std::string* const tags[] = {&tag_};
    const std::string* const visibility[] = {&kPublic};
    tag_.assign("l");
    AppendNumber(tag_, package.layer);
    frame_.assign(location).append(": <toplevel>");
    macro_frame_.assign(package.name).append("/defs.bzl:2:9: my_macro");

    Emit(target::kTypeRule, target::kRule, [&](auto& s) {
      wire::Bytes(s, rule::kName, rule_labels_[r]);
      wire::Bytes(s, rule::kRuleClass, RuleClasses()[node.kind]);
      wire::Bytes(s, rule::kLocation, location);
      // Attributes in name order, as Bazel lists a rule class's attributes.
      StringAttribute(s, "cmd", kCmd);
      Attribute(s, {.name = "deps", .type = attribute::kLabelList,
                    .list = lists_.data() + source_count, .list_size = deps.size()});
      if (node.macro) {
        StringAttribute(s, "generator_function", kMacro, false);
        StringAttribute(s, "generator_location", location, false);
        StringAttribute(s, "generator_name", name, false);
      }
      Attribute(s, {.name = "linkstatic", .type = attribute::kBoolean,
                    .boolean_value = node.flag ? 1 : 0});
      StringAttribute(s, "name", name);
      Attribute(s, {.name = "outs", .type = attribute::kOutputList,
                    .list = lists_.data() + outs_at, .list_size = node.outs});
      Attribute(s, {.name = "srcs", .type = attribute::kLabelList, .list = lists_.data(),
                    .list_size = source_count});
      Attribute(s, {.name = "tags", .type = attribute::kStringList, .list = tags, .list_size = 1});
      Attribute(s, {.name = "visibility", .type = attribute::kStringList, .list = visibility,
                    .list_size = 1, .nodep = true});
      for (const std::string* input : sorted_) wire::Bytes(s, rule::kRuleInput, *input);
      for (std::uint32_t k = 0; k < node.outs; ++k) {
        wire::Bytes(s, rule::kRuleOutput, *lists_[outs_at + k]);
      }
      wire::Bytes(s, rule::kSkylarkEnvironmentHashCode, environment_hashes_[node.kind]);
      wire::Bytes(s, rule::kInstantiationStack, frame_);
      if (node.macro) wire::Bytes(s, rule::kInstantiationStack, macro_frame_);
    });
  }

  const BazelGraph& graph_;
  OutputFile& out_;
  std::vector<std::string> environment_hashes_;
  std::vector<std::string> rule_labels_;
  // Scratch strings reused across targets, so steady state allocates little.
  std::string prefix_, build_file_, build_location_, label_, tag_, frame_, macro_frame_;
  std::vector<std::string> locations_;
  std::vector<std::string> labels_;
  std::vector<const std::string*> lists_;
  std::vector<const std::string*> sorted_;
};

}  // namespace

void WriteQueryProto(const BazelGraph& graph, OutputFile& out) { Writer(graph, out).Run(); }

void WriteQueryProto(const BazelGraph& graph, const std::filesystem::path& path) {
  OutputFile out(path);
  WriteQueryProto(graph, out);
  out.Close();
}

}  // namespace pe::gen

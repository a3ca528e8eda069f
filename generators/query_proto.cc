#include "generators/query_proto.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "generators/bazel_4_2_3.h"
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
constexpr std::uint32_t kType = 1, kRule = 2, kSourceFile = 3, kGeneratedFile = 4, kPackageGroup = 5;
constexpr std::uint32_t kTypeRule = 1, kTypeSourceFile = 2, kTypeGeneratedFile = 3, kTypePackageGroup = 4;
}  // namespace target
namespace rule {
constexpr std::uint32_t kName = 1, kRuleClass = 2, kLocation = 3, kAttribute = 4, kRuleInput = 5, kRuleOutput = 6,
                        kInstantiationStack = 13;
}  // namespace rule
namespace attribute {
constexpr std::uint32_t kName = 1, kType = 2, kIntValue = 3, kStringValue = 5, kStringListValue = 6,
                        kStringDictValue = 8, kExplicitlySpecified = 13, kBooleanValue = 14, kNodep = 20;
constexpr std::uint32_t kString = 2, kLabel = 3, kStringList = 5, kLabelList = 6, kOutputList = 7, kStringDict = 10,
                        kBoolean = 14;
}  // namespace attribute
namespace source_file {
constexpr std::uint32_t kName = 1, kLocation = 2, kSubinclude = 3, kVisibilityLabel = 5, kPackageContainsErrors = 9;
}  // namespace source_file
namespace package_group {
constexpr std::uint32_t kName = 1, kContainedPackage = 2;
}  // namespace package_group
namespace generated_file {
constexpr std::uint32_t kName = 1, kGeneratingRule = 2, kLocation = 3;
}  // namespace generated_file

void AppendNumber(std::string& out, std::uint64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, static_cast<std::size_t>(end - digits));
}

const bazel423::RuleClass& RecordedClass(std::string_view name) {
  for (const auto& recorded : bazel423::Classes()) {
    if (recorded.name == name) return recorded;
  }
  throw std::logic_error(fmt::format("no recorded Bazel 4.2.3 rule class {}", name));
}

// An explicitly specified attribute, shaped as Bazel 4.2.3 prints one of its type: lists and
// strings carry nodep, booleans their int and string forms instead.
struct Attr {
  std::string_view name;
  std::uint32_t type = attribute::kString;
  const std::string* string_value = nullptr;
  const std::string* const* list = nullptr;
  std::size_t list_size = 0;
  int boolean_value = -1;  // set for kBoolean
  bool nodep = false;
  bool explicitly_specified = true;  // false only for a value Bazel computes (a select's $config_dependencies)
};

template <class Sink>
void Attribute(Sink& sink, const Attr& a) {
  static const std::string kTrue = "true", kFalse = "false";
  wire::Message(sink, rule::kAttribute, [&](auto& s) {
    wire::Bytes(s, attribute::kName, a.name);
    wire::Uint(s, attribute::kType, a.type);
    if (a.type == attribute::kBoolean) {
      wire::Uint(s, attribute::kIntValue, a.boolean_value);
      wire::Bytes(s, attribute::kStringValue, a.boolean_value ? kTrue : kFalse);
    }
    if (a.string_value != nullptr) wire::Bytes(s, attribute::kStringValue, *a.string_value);
    for (std::size_t i = 0; i < a.list_size; ++i) {
      wire::Bytes(s, attribute::kStringListValue, *a.list[i]);
    }
    wire::Uint(s, attribute::kExplicitlySpecified, a.explicitly_specified ? 1 : 0);
    if (a.type == attribute::kBoolean) {
      wire::Uint(s, attribute::kBooleanValue, a.boolean_value);
    } else {
      wire::Uint(s, attribute::kNodep, a.nodep ? 1 : 0);
    }
  });
}

// A STRING_DICT of one entry (a config_setting's values): no nodep, as Bazel writes it.
template <class Sink>
void StringDictAttribute(Sink& sink, std::string_view name, std::string_view key, const std::string& value) {
  wire::Message(sink, rule::kAttribute, [&](auto& s) {
    wire::Bytes(s, attribute::kName, name);
    wire::Uint(s, attribute::kType, attribute::kStringDict);
    wire::Message(s, attribute::kStringDictValue, [&](auto& entry) {
      wire::Bytes(entry, 1, key);
      wire::Bytes(entry, 2, value);
    });
    wire::Uint(s, attribute::kExplicitlySpecified, 1);
  });
}

// The repository of "@repo//pkg:name" ("" for a main-repository label).
std::string_view RepositoryOf(std::string_view label) {
  if (!label.starts_with('@')) return {};
  return label.substr(1, label.find("//") - 1);
}

template <class Sink>
void StringAttribute(Sink& sink, std::string_view name, const std::string& value) {
  Attribute(sink, {.name = name, .string_value = &value});
}

// Every attribute of a recorded class in Bazel's order: the recorded default where the
// generator sets nothing, else what `set(sink, name)` writes. `computed` says which defaults
// the rule replaces: a macro's generator_ attributes, a select()'s $config_dependencies (its keys).
constexpr unsigned kByMacro = 1, kBySelect = 2;
template <class Sink, class Set>
void Attributes(Sink& sink, const bazel423::RuleClass& recorded, unsigned computed, const Set& set) {
  for (const bazel423::Attribute& a : recorded.attributes) {
    const bool generated = ((computed & kByMacro) != 0 && a.name.starts_with("generator_")) ||
                           ((computed & kBySelect) != 0 && a.name == "$config_dependencies");
    if (a.default_bytes.empty() || generated) {
      set(sink, a.name);
    } else {
      wire::Tag(sink, rule::kAttribute, wire::kLength);
      wire::Varint(sink, a.default_bytes.size());
      sink.Append(a.default_bytes.data(), a.default_bytes.size());
    }
  }
}

class Writer {
 public:
  Writer(const BazelGraph& graph, OutputFile& out, StreamShape shape)
      : graph_(graph),
        out_(out),
        shape_(shape),
        http_archive_(RecordedClass("http_archive")),
        local_repository_(RecordedClass("local_repository")) {
    for (auto rule_class : RuleClasses()) classes_.push_back(&RecordedClass(rule_class));
    // Labels of other repositories as this shape prints them (bzlmod: DisplayLabel), once, each
    // with the repository it sorts by among a rule's inputs: Bazel 4.2.3 compares the repository
    // as written ("@bazel_tools" before "@zlib"), Bazel 8 its canonical name
    // (PackageIdentifier.compareTo: "+_repo_rules+zlib" before "bazel_tools"). A recorded
    // label's repository is its canonical name under bzlmod too (bzlmod_fixture.h).
    const bool bzlmod = shape == StreamShape::kBzlmod;
    const RepoMapping root = bzlmod ? RootRepoMapping(graph) : RepoMapping();
    for (const auto* recorded : classes_) {
      auto& inputs = implicit_inputs_.emplace_back();
      auto& keys = implicit_keys_.emplace_back();
      for (std::string_view input : recorded->implicit_inputs) {
        inputs.push_back(bzlmod ? DisplayLabel(input, root) : std::string(input));
        keys.emplace_back(RepositoryOf(input));
      }
    }
    // Every rule's label is named by up to fan_in dependents: build each once.
    rule_labels_.reserve(graph.rules.size());
    for (std::uint32_t r = 0; r < graph.rules.size(); ++r) rule_labels_.push_back(graph.RuleLabel(r));
    for (std::uint32_t e = 0; e < graph.externals.size(); ++e) {
      const std::string& name = graph.externals[e];
      if (bzlmod) {
        external_keys_.push_back(CanonicalRepoName(name));
        external_labels_.push_back(DisplayLabel(external_keys_.back(), "//:" + name, root));
      } else {
        external_keys_.push_back(name);
        external_labels_.push_back(graph.ExternalLabel(e));
      }
    }
  }

  void Run() {
    // Bazel 8 with WORKSPACE off has no //external package (its repositories are `mod
    // show_repo`'s answer instead, bzlmod_fixture.h).
    if (shape_ == StreamShape::kWorkspace) {
      for (std::string_view recorded : bazel423::DefaultExternals()) Raw(recorded);
      Workspace();
      for (std::size_t i = 0; i < graph_.externals.size(); ++i) External(i);
    }
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

  // A Target recorded from real Bazel, as it was.
  void Raw(std::string_view target) {
    std::string& buffer = out_.buffer();
    const std::size_t at = buffer.size();
    buffer.resize(at + wire::VarintSize(target.size()) + target.size());
    wire::Appender out{buffer.data() + at};
    wire::Varint(out, target.size());
    out.Append(target.data(), target.size());
    out_.MaybeFlush();
  }

  // //external:WORKSPACE and the workspace's own repository, named by workspace() on line 1.
  void Workspace() {
    SourceFile("//external:WORKSPACE", "WORKSPACE", nullptr);
    static const std::string kName(kWorkspaceName), kPath = ".";
    const std::string label = "//external:" + kName;
    Emit(target::kTypeRule, target::kRule, [&](auto& s) {
      wire::Bytes(s, rule::kName, label);
      wire::Bytes(s, rule::kRuleClass, local_repository_.name);
      wire::Bytes(s, rule::kLocation, "WORKSPACE:1:10");
      Attributes(s, local_repository_, false, [&](auto& sink, std::string_view name) {
        StringAttribute(sink, name, name == "name" ? kName : kPath);
      });
      wire::Bytes(s, rule::kInstantiationStack, "WORKSPACE:1:10: <toplevel>");
    });
  }

  void External(std::size_t i) {
    const std::string& name = graph_.externals[i];
    const auto line = kWorkspaceHeaderLines + 1 + i * kWorkspaceRepoLines;
    const std::string location = fmt::format("WORKSPACE:{}:13", line);
    const std::string label = "//external:" + name;
    const std::string sha256 = ExternalSha256(graph_, name);
    const std::string strip_prefix = name + "-1.0";
    const std::string url = fmt::format("https://example.com/{0}/{0}-1.0.tar.gz", name);
    const std::string* urls[] = {&url};
    const std::string frame = location + ": <toplevel>";
    Emit(target::kTypeRule, target::kRule, [&](auto& s) {
      wire::Bytes(s, rule::kName, label);
      wire::Bytes(s, rule::kRuleClass, http_archive_.name);
      wire::Bytes(s, rule::kLocation, location);
      Attributes(s, http_archive_, false, [&](auto& sink, std::string_view attr) {
        if (attr == "urls") {
          Attribute(sink, {.name = attr, .type = attribute::kStringList, .list = urls, .list_size = 1});
        } else {
          StringAttribute(sink, attr, attr == "name" ? name : attr == "sha256" ? sha256 : strip_prefix);
        }
      });
      wire::Bytes(s, rule::kInstantiationStack, frame);
    });
  }

  void Package(std::uint32_t p) {
    const PackageNode& package = graph_.packages[p];
    prefix_.assign("//").append(package.name).append(":");
    build_file_.assign(package.name).append("/BUILD");
    defs_label_.assign(prefix_).append("defs.bzl");
    locations_.resize(package.rule_count);
    for (std::uint32_t j = 0; j < package.rule_count; ++j) {
      const RuleNode& node = graph_.rules[package.first_rule + j];
      const std::string_view callee = node.macro ? std::string_view("my_macro") : RuleClasses()[node.kind];
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
          label_.assign(prefix_).append(entry.name);
          SourceFile(label_, build_file_, package.has_defs ? &defs_label_ : nullptr, true);
          break;
        case PackageEntry::Kind::kPackageGroup: {
          label_.assign(prefix_).append(entry.name);
          const std::string contained = package.name + "/...";
          Emit(target::kTypePackageGroup, target::kPackageGroup, [&](auto& s) {
            wire::Bytes(s, package_group::kName, label_);
            wire::Bytes(s, package_group::kContainedPackage, contained);
          });
          break;
        }
        case PackageEntry::Kind::kSource:
          label_.assign(prefix_).append(entry.name);
          SourceFile(label_, locations_[graph_.rules[entry.rule].index], nullptr);
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

  // A BUILD file names the .bzl files it loads (subinclude); every source file is private.
  void SourceFile(const std::string& label, const std::string& location, const std::string* subinclude,
                  bool build_file = false) {
    static const std::string kPrivate = "//visibility:private";
    Emit(target::kTypeSourceFile, target::kSourceFile, [&](auto& s) {
      wire::Bytes(s, source_file::kName, label);
      wire::Bytes(s, source_file::kLocation, location);
      if (subinclude != nullptr) wire::Bytes(s, source_file::kSubinclude, *subinclude);
      wire::Bytes(s, source_file::kVisibilityLabel, kPrivate);
      if (build_file) wire::Uint(s, source_file::kPackageContainsErrors, 0);
    });
  }

  void Rule(std::uint32_t r) {
    static const std::string kCmd = "cat $(SRCS) > $@";
    static const std::string kPublic = "//visibility:public";
    static const std::string kMacro = "my_macro";
    const RuleNode& node = graph_.rules[r];
    const PackageNode& package = graph_.packages[node.package];
    const bazel423::RuleClass& recorded = *classes_[node.kind];
    const std::string& location = locations_[node.index];
    const std::string name = BazelGraph::RuleName(node);
    // A genrule's and a filegroup's deps (and external repositories) are the tail of their srcs.
    const bool deps_in_srcs = !HasDepsAttribute(node.kind);

    // Labels of srcs, deps, external repositories and outs, in that order; deps point at the
    // shared rule labels.
    const std::size_t source_count = node.srcs.size();
    const auto deps = graph_.DepsOf(r);
    labels_.resize(source_count + node.outs);  // reusing the strings' capacity
    lists_.clear();
    for (std::size_t i = 0; i < source_count; ++i) {
      labels_[i].assign(prefix_).append(BazelGraph::SourceName(node, node.srcs[i]));
      lists_.push_back(&labels_[i]);
    }
    for (std::uint32_t dep : deps) lists_.push_back(&rule_labels_[dep]);
    const std::size_t externals_at = source_count + deps.size();
    for (std::uint32_t e : node.external_deps) lists_.push_back(&external_labels_[e]);
    const std::size_t outs_at = externals_at + node.external_deps.size();
    for (std::uint32_t k = 0; k < node.outs; ++k) {
      labels_[source_count + k].assign(prefix_).append(BazelGraph::OutputName(node, k));
      lists_.push_back(&labels_[source_count + k]);
    }
    // Rule inputs: srcs and deps sorted, then the class's implicit @bazel_tools inputs, which
    // sort after every "//" label.
    sorted_.assign(lists_.begin(), lists_.begin() + static_cast<std::ptrdiff_t>(externals_at));
    std::sort(sorted_.begin(), sorted_.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
    const std::string* const tags[] = {&tag_};
    const std::string* const visibility[] = {&kPublic};
    tag_.assign("l");
    AppendNumber(tag_, package.layer);
    frame_.assign(location).append(": <toplevel>");
    macro_frame_.assign(package.name).append("/defs.bzl:2:9: my_macro");
    const std::string_view flag = FlagAttribute(node.kind);
    const unsigned computed = (node.macro ? kByMacro : 0) | (node.select ? kBySelect : 0);

    Emit(target::kTypeRule, target::kRule, [&](auto& s) {
      wire::Bytes(s, rule::kName, rule_labels_[r]);
      wire::Bytes(s, rule::kRuleClass, recorded.name);
      wire::Bytes(s, rule::kLocation, location);
      Attributes(s, recorded, computed, [&](auto& sink, std::string_view attr) {
        if (attr == "name") {
          StringAttribute(sink, attr, name);
        } else if (attr == "srcs") {
          Attribute(sink, {.name = attr,
                           .type = attribute::kLabelList,
                           .list = lists_.data(),
                           .list_size = deps_in_srcs ? outs_at : source_count});
        } else if (attr == "deps" && node.select) {
          SelectDeps(sink, node, source_count, outs_at);
        } else if (attr == "deps") {
          Attribute(sink, {.name = attr,
                           .type = attribute::kLabelList,
                           .list = lists_.data() + source_count,
                           .list_size = outs_at - source_count});
        } else if (attr == "$config_dependencies") {
          Attribute(sink, {.name = attr,
                           .type = attribute::kLabelList,
                           .list = lists_.data() + source_count + node.select_key,
                           .list_size = 1,
                           .explicitly_specified = false});
        } else if (attr == "actual") {
          Attribute(sink, {.name = attr, .type = attribute::kLabel, .string_value = lists_[source_count]});
        } else if (attr == "values") {
          config_value_.assign("pe=").append(name);
          StringDictAttribute(sink, attr, "define", config_value_);
        } else if (attr == "outs") {
          Attribute(
              sink,
              {.name = attr, .type = attribute::kOutputList, .list = lists_.data() + outs_at, .list_size = node.outs});
        } else if (attr == "cmd") {
          StringAttribute(sink, attr, kCmd);
        } else if (attr == flag) {
          Attribute(sink, {.name = attr, .type = attribute::kBoolean, .boolean_value = node.flag ? 1 : 0});
        } else if (attr == "tags") {
          Attribute(sink, {.name = attr, .type = attribute::kStringList, .list = tags, .list_size = 1});
        } else if (attr == "visibility") {
          Attribute(sink,
                    {.name = attr, .type = attribute::kStringList, .list = visibility, .list_size = 1, .nodep = true});
        } else if (attr == "generator_function") {
          StringAttribute(sink, attr, kMacro);
        } else if (attr == "generator_location") {
          StringAttribute(sink, attr, location);
        } else if (attr == "generator_name") {
          StringAttribute(sink, attr, name);
        } else {
          throw std::logic_error(fmt::format("no value for {}'s attribute {}", recorded.name, attr));
        }
      });
      for (const std::string* input : sorted_) wire::Bytes(s, rule::kRuleInput, *input);
      // External repositories named explicitly and the class's implicit inputs (as this stream
      // shape prints them), merged in Bazel's label order (by repository first, as this shape's
      // Bazel compares repositories; both lists are in that order already).
      std::size_t e = externals_at;
      const std::vector<std::string>& implicit = implicit_inputs_[node.kind];
      const std::vector<std::string>& implicit_keys = implicit_keys_[node.kind];
      for (std::size_t i = 0; i < implicit.size(); ++i) {
        while (e < outs_at && external_keys_[node.external_deps[e - externals_at]] < implicit_keys[i])
          wire::Bytes(s, rule::kRuleInput, *lists_[e++]);
        wire::Bytes(s, rule::kRuleInput, implicit[i]);
      }
      while (e < outs_at) wire::Bytes(s, rule::kRuleInput, *lists_[e++]);
      for (std::uint32_t k = 0; k < node.outs; ++k) {
        wire::Bytes(s, rule::kRuleOutput, *lists_[outs_at + k]);
      }
      wire::Bytes(s, rule::kInstantiationStack, frame_);
      if (node.macro) wire::Bytes(s, rule::kInstantiationStack, macro_frame_);
    });
  }

  // deps = select({key: the other deps and externals, default: the same but the last dep}), as
  // Bazel 4.2.3 prints it by default (--proto:flatten_selects): one LABEL_LIST of every label
  // any branch names, in the order first named, here the key's branch; the key itself is only
  // a rule input.
  template <class Sink>
  void SelectDeps(Sink& sink, const RuleNode& node, std::size_t deps_at, std::size_t outs_at) {
    when_key_.clear();
    for (std::size_t i = deps_at; i < outs_at; ++i) {
      if (i - deps_at != node.select_key) when_key_.push_back(lists_[i]);
    }
    Attribute(sink,
              {.name = "deps", .type = attribute::kLabelList, .list = when_key_.data(), .list_size = when_key_.size()});
  }

  const BazelGraph& graph_;
  OutputFile& out_;
  StreamShape shape_;
  const bazel423::RuleClass& http_archive_;
  const bazel423::RuleClass& local_repository_;
  std::vector<const bazel423::RuleClass*> classes_;  // by RuleNode::kind
  std::vector<std::vector<std::string>> implicit_inputs_;  // by RuleNode::kind
  std::vector<std::vector<std::string>> implicit_keys_;    // the repository each sorts by
  std::vector<std::string> rule_labels_;
  std::vector<std::string> external_labels_;  // by BazelGraph::externals index
  std::vector<std::string> external_keys_;    // the repository each sorts by
  std::string config_value_;
  std::vector<const std::string*> when_key_;
  // Scratch strings reused across targets, so steady state allocates little.
  std::string prefix_, build_file_, defs_label_, label_, tag_, frame_, macro_frame_;
  std::vector<std::string> locations_;
  std::vector<std::string> labels_;
  std::vector<const std::string*> lists_;
  std::vector<const std::string*> sorted_;
};

}  // namespace

void WriteQueryProto(const BazelGraph& graph, OutputFile& out, StreamShape shape) { Writer(graph, out, shape).Run(); }

void WriteQueryProto(const BazelGraph& graph, const std::filesystem::path& path, StreamShape shape) {
  OutputFile out(path);
  WriteQueryProto(graph, out, shape);
  out.Close();
}

}  // namespace pe::gen

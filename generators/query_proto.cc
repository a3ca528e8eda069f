#include "generators/query_proto.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "generators/bazel_4_2_3.h"
#include "generators/huge_pages.h"
#include "generators/sha256.h"
#include "generators/wiring_progress.h"

namespace pe::gen {
namespace {

// The protobuf wire format written directly. Generated message classes cost a copy of every
// string into a message and an allocation per field; this writer appends straight into the
// output buffer. Fields go out in field-number order with proto2 presence, which is exactly
// what protobuf's own serialiser emits for these messages, so the bytes are the same
// (tests pin them and decode them with Python's protobuf and the generated C++ classes).
// Field numbers are those of Bazel's src/main/protobuf/build.proto (see proto/CMakeLists.txt).
//
// A nested message needs its length before its bytes. Each message's fields are written once,
// straight after room for its header (tag and length) sized from a guess of its length; the
// header is filled in afterwards, and in the rare case the guess was wrong the body is moved
// by the difference. Nothing is counted first (counting and then writing walked every target's
// fields two or three times).
namespace wire {

constexpr std::uint32_t kVarint = 0;
constexpr std::uint32_t kLength = 2;

// A growable byte buffer that is never zero-filled and keeps its memory when cleared, so a
// writer that reuses one touches each of its pages once.
class Buffer {
 public:
  void Append(const char* bytes, std::size_t n) {
    Need(n);
    std::memcpy(at, bytes, n);
    at += n;
  }
  void Need(std::size_t n) {
    if (static_cast<std::size_t>(end_ - at) < n) Grow(n);
  }
  std::size_t size() const { return static_cast<std::size_t>(at - begin_); }
  char* data() { return begin_; }
  std::string_view view() const { return {begin_, size()}; }
  void clear() { at = begin_; }

  char* at = nullptr;  // the end of what was written

 private:
  void Grow(std::size_t n) {
    const std::size_t used = size();
    std::size_t capacity = std::max({used + n, 2 * static_cast<std::size_t>(end_ - begin_), std::size_t{1} << 16});
    RawBytes fresh = AllocateRawBytes(capacity);  // huge pages from 2 MiB: a block buffer faults once
    if (used > 0) std::memcpy(fresh.get(), begin_, used);
    storage_ = std::move(fresh);
    begin_ = storage_.get();
    at = begin_ + used;
    end_ = begin_ + capacity;
  }

  RawBytes storage_;
  char* begin_ = nullptr;
  char* end_ = nullptr;
};

inline std::size_t VarintSize(std::uint64_t value) {
  std::size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

inline char* PutVarint(char* at, std::uint64_t value) {
  while (value >= 0x80) {
    *at++ = static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  *at++ = static_cast<char>(value);
  return at;
}

inline void Varint(Buffer& sink, std::uint64_t value) {
  sink.Need(10);
  sink.at = PutVarint(sink.at, value);
}

inline void Tag(Buffer& sink, std::uint32_t field, std::uint32_t type) { Varint(sink, (field << 3) | type); }

inline void Bytes(Buffer& sink, std::uint32_t field, std::string_view bytes) {
  sink.Need(20 + bytes.size());
  char* at = PutVarint(sink.at, (field << 3) | kLength);
  at = PutVarint(at, bytes.size());
  std::memcpy(at, bytes.data(), bytes.size());
  sink.at = at + bytes.size();
}

inline void Uint(Buffer& sink, std::uint32_t field, std::uint64_t value) {
  sink.Need(20);
  sink.at = PutVarint(PutVarint(sink.at, (field << 3) | kVarint), value);
}

// Leaves `room` bytes, writes `write`'s fields after them, then puts the bytes
// `header(at, length)` writes in front of the fields, moving the fields when that header is not
// exactly `room` bytes long. sink.at ends after the fields.
template <class Fields, class Header>
void Prefixed(Buffer& sink, std::size_t room, const Fields& write, const Header& header) {
  sink.Need(room);
  const std::size_t start = sink.size();
  sink.at += room;
  write(sink);
  const std::size_t length = sink.size() - start - room;
  char head[32];
  const auto head_size = static_cast<std::size_t>(header(head, length) - head);
  if (head_size != room) {
    if (head_size > room) sink.Need(head_size - room);
    char* const base = sink.data();  // Need may have moved the buffer
    std::memmove(base + start + head_size, base + start + room, length);
    sink.at = base + start + head_size + length;
  }
  std::memcpy(sink.data() + start, head, head_size);
}

// A length-delimited submessage whose fields `write(sink)` produces; `length_bytes` is the
// guess of its length's varint size (1 below 128 bytes).
template <class Fields>
void Message(Buffer& sink, std::uint32_t field, const Fields& write, std::size_t length_bytes = 1) {
  const std::uint32_t tag = (field << 3) | kLength;
  Prefixed(sink, VarintSize(tag) + length_bytes, write,
           [&](char* at, std::size_t length) { return PutVarint(PutVarint(at, tag), length); });
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
  const std::string_view* string_value = nullptr;
  const std::string_view* list = nullptr;
  std::size_t list_size = 0;
  int boolean_value = -1;  // set for kBoolean
  bool nodep = false;
  bool explicitly_specified = true;  // false only for a value Bazel computes (a select's $config_dependencies)
};

// The guess of an attribute's length for its header (wire::Message): its bytes but for tags.
std::size_t LengthBytes(const Attr& a) {
  std::size_t estimate = a.name.size() + 16;
  if (a.string_value != nullptr) estimate += a.string_value->size();
  for (std::size_t i = 0; i < a.list_size; ++i) estimate += a.list[i].size() + 2;
  return estimate < 128 ? 1 : 2;
}

void Attribute(wire::Buffer& sink, const Attr& a) {
  static constexpr std::string_view kTrue = "true", kFalse = "false";
  wire::Message(
      sink, rule::kAttribute,
      [&](wire::Buffer& s) {
        wire::Bytes(s, attribute::kName, a.name);
        wire::Uint(s, attribute::kType, a.type);
        if (a.type == attribute::kBoolean) {
          wire::Uint(s, attribute::kIntValue, a.boolean_value);
          wire::Bytes(s, attribute::kStringValue, a.boolean_value ? kTrue : kFalse);
        }
        if (a.string_value != nullptr) wire::Bytes(s, attribute::kStringValue, *a.string_value);
        for (std::size_t i = 0; i < a.list_size; ++i) {
          wire::Bytes(s, attribute::kStringListValue, a.list[i]);
        }
        wire::Uint(s, attribute::kExplicitlySpecified, a.explicitly_specified ? 1 : 0);
        if (a.type == attribute::kBoolean) {
          wire::Uint(s, attribute::kBooleanValue, a.boolean_value);
        } else {
          wire::Uint(s, attribute::kNodep, a.nodep ? 1 : 0);
        }
      },
      LengthBytes(a));
}

// A STRING_DICT of one entry (a config_setting's values): no nodep, as Bazel writes it.
void StringDictAttribute(wire::Buffer& sink, std::string_view name, std::string_view key, const std::string& value) {
  wire::Message(sink, rule::kAttribute, [&](wire::Buffer& s) {
    wire::Bytes(s, attribute::kName, name);
    wire::Uint(s, attribute::kType, attribute::kStringDict);
    wire::Message(s, attribute::kStringDictValue, [&](wire::Buffer& entry) {
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

void StringAttribute(wire::Buffer& sink, std::string_view name, std::string_view value) {
  Attribute(sink, {.name = name, .string_value = &value});
}

// A recorded default attribute as a rule's field.
void AppendDefault(wire::Buffer& sink, const bazel423::Attribute& a) {
  wire::Bytes(sink, rule::kAttribute, a.default_bytes);
}

// Every attribute of a recorded class in Bazel's order: the recorded default where the
// generator sets nothing, else what `set(sink, name)` writes. `computed` says which defaults
// the rule replaces: a macro's generator_ attributes, a select()'s $config_dependencies (its keys).
constexpr unsigned kByMacro = 1, kBySelect = 2;
template <class Set>
void Attributes(wire::Buffer& sink, const bazel423::RuleClass& recorded, unsigned computed, const Set& set) {
  for (const bazel423::Attribute& a : recorded.attributes) {
    const bool generated = ((computed & kByMacro) != 0 && a.name.starts_with("generator_")) ||
                           ((computed & kBySelect) != 0 && a.name == "$config_dependencies");
    if (a.default_bytes.empty() || generated) {
      set(sink, a.name);
    } else {
      AppendDefault(sink, a);
    }
  }
}

// What a generated rule's attribute is given (Writer::Rule), decided once per class and
// `computed` rather than by comparing names for every rule.
enum class Slot : std::uint8_t {
  kDefaults,  // a run of recorded defaults, already encoded
  kName,
  kSrcs,
  kDeps,
  kConfigDependencies,
  kActual,
  kValues,
  kOuts,
  kCmd,
  kFlag,
  kTags,
  kVisibility,
  kGeneratorFunction,
  kGeneratorLocation,
  kGeneratorName,
  kUnknown,  // no value for it: an error if a rule of the class is written
};

struct Piece {
  Slot slot = Slot::kDefaults;
  std::string_view name;  // the attribute's, unless kDefaults
  std::string bytes;      // kDefaults: the consecutive default attributes, encoded
};

// A class's attributes in the order Attributes() writes them, with neighbouring defaults
// merged into one piece: the same bytes, one copy per run of defaults.
std::vector<Piece> PlanAttributes(const bazel423::RuleClass& recorded, std::uint8_t kind, unsigned computed) {
  const std::string_view flag = FlagAttribute(kind);
  std::vector<Piece> pieces;
  for (const bazel423::Attribute& a : recorded.attributes) {
    const bool generated = ((computed & kByMacro) != 0 && a.name.starts_with("generator_")) ||
                           ((computed & kBySelect) != 0 && a.name == "$config_dependencies");
    if (!a.default_bytes.empty() && !generated) {
      if (pieces.empty() || pieces.back().slot != Slot::kDefaults) pieces.emplace_back();
      wire::Buffer encoded;
      AppendDefault(encoded, a);
      pieces.back().bytes.append(encoded.view());
      continue;
    }
    const std::string_view n = a.name;
    const Slot slot = n == "name"                   ? Slot::kName
                      : n == "srcs"                 ? Slot::kSrcs
                      : n == "deps"                 ? Slot::kDeps
                      : n == "$config_dependencies" ? Slot::kConfigDependencies
                      : n == "actual"               ? Slot::kActual
                      : n == "values"               ? Slot::kValues
                      : n == "outs"                 ? Slot::kOuts
                      : n == "cmd"                  ? Slot::kCmd
                      : n == flag                   ? Slot::kFlag
                      : n == "tags"                 ? Slot::kTags
                      : n == "visibility"           ? Slot::kVisibility
                      : n == "generator_function"   ? Slot::kGeneratorFunction
                      : n == "generator_location"   ? Slot::kGeneratorLocation
                      : n == "generator_name"       ? Slot::kGeneratorName
                                                    : Slot::kUnknown;
    pieces.push_back({slot, n, {}});
  }
  return pieces;
}

// What every writer of one graph reads and none changes: built once, shared by the threads.
struct Shared {
  Shared(const BazelGraph& g, StreamShape s)
      : graph(g),
        shape(s),
        http_archive(RecordedClass("http_archive")),
        local_repository(RecordedClass("local_repository")) {
    for (auto rule_class : RuleClasses()) classes.push_back(&RecordedClass(rule_class));
    // Labels of other repositories as this shape prints them (bzlmod: DisplayLabel), once, each
    // with the repository it sorts by among a rule's inputs: Bazel 4.2.3 compares the repository
    // as written ("@bazel_tools" before "@zlib"), Bazel 8 its canonical name
    // (PackageIdentifier.compareTo: "+_repo_rules+zlib" before "bazel_tools"). A recorded
    // label's repository is its canonical name under bzlmod too (bzlmod_fixture.h).
    const bool bzlmod = shape == StreamShape::kBzlmod;
    const RepoMapping root = bzlmod ? RootRepoMapping(graph) : RepoMapping();
    for (const auto* recorded : classes) {
      auto& inputs = implicit_inputs.emplace_back();
      auto& keys = implicit_keys.emplace_back();
      for (std::string_view input : recorded->implicit_inputs) {
        inputs.push_back(bzlmod ? DisplayLabel(input, root) : std::string(input));
        keys.emplace_back(RepositoryOf(input));
      }
    }
    // Every rule's label is named by up to fan_in dependents: build each once, all of them in
    // one string (no allocation per label), "//" + package + ":mod" + index.
    std::size_t label_bytes = 0;
    for (const RuleNode& rule : graph.rules) label_bytes += graph.packages[rule.package].name.size() + 16;
    rule_label_bytes.reserve(label_bytes);  // an upper bound, so the views below stay valid
    rule_labels.reserve(graph.rules.size());
    for (const RuleNode& rule : graph.rules) {
      const std::size_t at = rule_label_bytes.size();
      rule_label_bytes.append("//").append(graph.packages[rule.package].name).append(":mod");
      AppendNumber(rule_label_bytes, rule.index);
      rule_labels.push_back(std::string_view(rule_label_bytes).substr(at));
    }
    RankRuleLabels(graph);
    for (std::uint32_t e = 0; e < graph.externals.size(); ++e) {
      const std::string& name = graph.externals[e];
      if (bzlmod) {
        external_keys.push_back(CanonicalRepoName(name));
        external_labels.push_back(DisplayLabel(external_keys.back(), "//:" + name, root));
      } else {
        external_keys.push_back(name);
        external_labels.push_back(graph.ExternalLabel(e));
      }
    }
    // Each class's attributes planned once per way a rule can replace its defaults, and its
    // implicit inputs encoded once (as they go out for a rule naming no external repository).
    plans.resize(classes.size());
    for (std::uint8_t kind = 0; kind < classes.size(); ++kind) {
      for (unsigned computed = 0; computed < 4; ++computed) {
        plans[kind][computed] = PlanAttributes(*classes[kind], kind, computed);
      }
      wire::Buffer inputs;
      for (const std::string& input : implicit_inputs[kind]) wire::Bytes(inputs, rule::kRuleInput, input);
      implicit_encoded.emplace_back(inputs.view());
    }
  }

  // rule_keys: a rule's deps are sorted among a rule's inputs by label, a few string compares
  // each for every dep. Where every package name has one length and the names rise with the
  // package's index (as BuildGraph names them), "//P:modI" sorts by P's index, then by I as a
  // decimal string: key = package << 32 | the rank of I's digits. Else the keys are the
  // labels' places in the sorted list of them all.
  void RankRuleLabels(const BazelGraph& graph) {
    const auto& packages = graph.packages;
    bool rising = true;
    for (std::size_t p = 1; p < packages.size() && rising; ++p) {
      rising = packages[p].name.size() == packages[0].name.size() && packages[p - 1].name < packages[p].name;
    }
    rule_keys.resize(graph.rules.size());
    if (rising) {
      std::uint32_t names = 0;
      for (const RuleNode& rule : graph.rules) names = std::max(names, rule.index + 1);
      std::vector<std::uint32_t> by_digits(names);
      for (std::uint32_t i = 0; i < names; ++i) by_digits[i] = i;
      std::sort(by_digits.begin(), by_digits.end(), [](std::uint32_t a, std::uint32_t b) {
        char x[12], y[12];
        return std::string_view(x, std::to_chars(x, x + sizeof x, a).ptr) <
               std::string_view(y, std::to_chars(y, y + sizeof y, b).ptr);
      });
      std::vector<std::uint32_t> rank(names);
      for (std::uint32_t k = 0; k < names; ++k) rank[by_digits[k]] = k;
      for (std::size_t r = 0; r < graph.rules.size(); ++r) {
        rule_keys[r] = (std::uint64_t{graph.rules[r].package} << 32) | rank[graph.rules[r].index];
      }
      return;
    }
    std::vector<std::uint32_t> order(graph.rules.size());
    for (std::uint32_t r = 0; r < order.size(); ++r) order[r] = r;
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return rule_labels[a] < rule_labels[b]; });
    for (std::size_t k = 0; k < order.size(); ++k) rule_keys[order[k]] = k;
  }

  const BazelGraph& graph;
  StreamShape shape;
  const bazel423::RuleClass& http_archive;
  const bazel423::RuleClass& local_repository;
  std::vector<const bazel423::RuleClass*> classes;        // by RuleNode::kind
  std::vector<std::vector<std::string>> implicit_inputs;  // by RuleNode::kind
  std::vector<std::vector<std::string>> implicit_keys;    // the repository each sorts by
  std::vector<std::array<std::vector<Piece>, 4>> plans;   // by RuleNode::kind, then `computed`
  std::vector<std::string> implicit_encoded;              // by RuleNode::kind: implicit_inputs as rule inputs
  std::string rule_label_bytes;                           // every rule label, one after the other
  std::vector<std::string_view> rule_labels;              // by rule, into rule_label_bytes
  std::vector<std::uint64_t> rule_keys;                   // by rule: ordered as rule_labels are, compared in one go
  std::vector<std::string> external_labels;               // by BazelGraph::externals index
  std::vector<std::string> external_keys;                 // the repository each sorts by
};

// Appends targets to `buffer`; `out`, when given, is the file that buffer belongs to, flushed
// in multi-megabyte writes as it fills. Without one the caller hands the buffer on (a block of
// packages encoded on another thread).
class Writer {
 public:
  Writer(const Shared& shared, wire::Buffer& buffer, OutputFile* out)
      : graph_(shared.graph),
        out_(out),
        buffer_(buffer),
        shape_(shared.shape),
        http_archive_(shared.http_archive),
        local_repository_(shared.local_repository),
        classes_(shared.classes),
        implicit_inputs_(shared.implicit_inputs),
        implicit_keys_(shared.implicit_keys),
        plans_(shared.plans),
        implicit_encoded_(shared.implicit_encoded),
        rule_labels_(shared.rule_labels),
        rule_keys_(shared.rule_keys),
        external_labels_(shared.external_labels),
        external_keys_(shared.external_keys) {}

  // Everything before the packages. Bazel 8 with WORKSPACE off has no //external package (its
  // repositories are `mod show_repo`'s answer instead, bzlmod_fixture.h).
  void Head() {
    if (shape_ == StreamShape::kWorkspace) {
      for (std::string_view recorded : bazel423::DefaultExternals()) Raw(recorded);
      Workspace();
      for (std::size_t i = 0; i < graph_.externals.size(); ++i) External(i);
    }
  }

  void Packages(std::uint32_t first, std::uint32_t end) {
    for (std::uint32_t p = first; p < end; ++p) Package(p);
  }

  // Writes what the buffer holds to the file, if there is one.
  void Flush() {
    if (out_ == nullptr) return;
    out_->Write(buffer_.view());
    buffer_.clear();
  }

 private:
  void MaybeFlush() {
    if (out_ != nullptr && buffer_.size() >= OutputFile::kFlushBytes) Flush();
  }

  // One varint-delimited Target whose rule/source_file/generated_file `fields` writes. Room is
  // left for two-byte lengths in front of a rule (one to a few KB), one-byte ones for the rest.
  template <class Fields>
  void Emit(std::uint32_t type, std::uint32_t field, const Fields& fields) {
    const std::size_t room = type == target::kTypeRule ? 7 : 5;
    wire::Prefixed(buffer_, room, fields, [&](char* at, std::size_t length) {
      at = wire::PutVarint(at, 2 + 1 + wire::VarintSize(length) + length);  // type (2), field's tag (1)
      at = wire::PutVarint(at, (target::kType << 3) | wire::kVarint);
      at = wire::PutVarint(at, type);
      at = wire::PutVarint(at, (field << 3) | wire::kLength);
      return wire::PutVarint(at, length);
    });
    MaybeFlush();
  }

  // A Target recorded from real Bazel, as it was.
  void Raw(std::string_view target) {
    wire::Varint(buffer_, target.size());
    buffer_.Append(target.data(), target.size());
    MaybeFlush();
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
    const std::string_view urls[] = {url};
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
    graph_.PackageTargets(p, entries_);
    for (const PackageEntry& entry : entries_) {
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

  // Where each kind of label starts in lists_ for the rule being written: srcs from 0, then
  // deps, then external repositories, then outs.
  struct RuleLists {
    std::size_t source_count = 0;
    std::size_t externals_at = 0;
    std::size_t outs_at = 0;
  };

  // One rule target: its labels, its sorted inputs, then its attributes in the recorded
  // class's order, its inputs, outputs and instantiation stack.
  void Rule(std::uint32_t r) {
    const RuleNode& node = graph_.rules[r];
    const auto deps = graph_.DepsOf(r);
    const RuleLists at = ListLabels(node, deps);
    SortInputs(deps, at.source_count);
    const PackageNode& package = graph_.packages[node.package];
    tag_.assign("l");
    AppendNumber(tag_, package.layer);
    frame_.assign(locations_[node.index]).append(": <toplevel>");
    macro_frame_.assign(package.name).append("/defs.bzl:2:9: my_macro");
    name_.assign("mod");
    AppendNumber(name_, node.index);
    const unsigned computed = (node.macro ? kByMacro : 0) | (node.select ? kBySelect : 0);
    Emit(target::kTypeRule, target::kRule, [&](wire::Buffer& s) {
      wire::Bytes(s, rule::kName, rule_labels_[r]);
      wire::Bytes(s, rule::kRuleClass, classes_[node.kind]->name);
      wire::Bytes(s, rule::kLocation, locations_[node.index]);
      for (const Piece& piece : plans_[node.kind][computed]) RuleAttribute(s, piece, node, at);
      RuleInputsAndOutputs(s, node, at);
    });
  }

  // Labels of srcs, deps, external repositories and outs, in that order, into lists_; deps
  // point at the shared rule labels.
  RuleLists ListLabels(const RuleNode& node, std::span<const std::uint32_t> deps) {
    RuleLists at;
    at.source_count = node.srcs.size();
    labels_.resize(at.source_count + node.outs);  // reusing the strings' capacity
    lists_.clear();
    for (std::size_t i = 0; i < at.source_count; ++i) {
      labels_[i].assign(prefix_).append(BazelGraph::SourceName(node, node.srcs[i]));
      lists_.push_back(labels_[i]);
    }
    for (std::uint32_t dep : deps) lists_.push_back(rule_labels_[dep]);
    at.externals_at = at.source_count + deps.size();
    for (std::uint32_t e : node.external_deps) lists_.push_back(external_labels_[e]);
    at.outs_at = at.externals_at + node.external_deps.size();
    for (std::uint32_t k = 0; k < node.outs; ++k) {
      labels_[at.source_count + k].assign(prefix_).append(BazelGraph::OutputName(node, k));
      lists_.push_back(labels_[at.source_count + k]);
    }
    return at;
  }

  // Rule inputs into sorted_: srcs and deps sorted by label (the class's implicit @bazel_tools
  // inputs, which sort after every "//" label, follow in RuleInputsAndOutputs). The deps sorted
  // by their keys (the same order as their labels), the srcs by label, then the two merged (the
  // deps are of lower layers, so usually all before the srcs: one compare).
  void SortInputs(std::span<const std::uint32_t> deps, std::size_t source_count) {
    dep_order_.assign(deps.begin(), deps.end());
    std::sort(dep_order_.begin(), dep_order_.end(),
              [this](std::uint32_t a, std::uint32_t b) { return rule_keys_[a] < rule_keys_[b]; });
    sorted_.clear();
    for (std::uint32_t dep : dep_order_) sorted_.push_back(rule_labels_[dep]);
    const auto deps_end = static_cast<std::ptrdiff_t>(sorted_.size());
    sorted_.insert(sorted_.end(), lists_.begin(), lists_.begin() + static_cast<std::ptrdiff_t>(source_count));
    std::sort(sorted_.begin() + deps_end, sorted_.end());
    if (deps_end > 0 && std::cmp_less(deps_end, sorted_.size()) && sorted_[deps_end] < sorted_[deps_end - 1]) {
      std::inplace_merge(sorted_.begin(), sorted_.begin() + deps_end, sorted_.end());
    }
  }

  // One attribute of the class's plan: recorded default bytes, or this rule's value.
  void RuleAttribute(wire::Buffer& s, const Piece& piece, const RuleNode& node, const RuleLists& at) {
    static const std::string kCmd = "cat $(SRCS) > $@";
    static const std::string kPublic = "//visibility:public";
    static const std::string kMacro = "my_macro";
    const std::string_view attr = piece.name;
    switch (piece.slot) {
      case Slot::kDefaults:
        s.Append(piece.bytes.data(), piece.bytes.size());
        break;
      case Slot::kName:
      case Slot::kGeneratorName:
        StringAttribute(s, attr, name_);
        break;
      case Slot::kSrcs:
        // A genrule's and a filegroup's deps (and external repositories) are the tail of their srcs.
        Attribute(s, {.name = attr,
                      .type = attribute::kLabelList,
                      .list = lists_.data(),
                      .list_size = HasDepsAttribute(node.kind) ? at.source_count : at.outs_at});
        break;
      case Slot::kDeps:
        if (node.select) {
          SelectDeps(s, node, at.source_count, at.outs_at);
        } else {
          Attribute(s, {.name = attr,
                        .type = attribute::kLabelList,
                        .list = lists_.data() + at.source_count,
                        .list_size = at.outs_at - at.source_count});
        }
        break;
      case Slot::kConfigDependencies:
        Attribute(s, {.name = attr,
                      .type = attribute::kLabelList,
                      .list = lists_.data() + at.source_count + node.select_key,
                      .list_size = 1,
                      .explicitly_specified = false});
        break;
      case Slot::kActual:
        Attribute(s, {.name = attr, .type = attribute::kLabel, .string_value = &lists_[at.source_count]});
        break;
      case Slot::kValues:
        config_value_.assign("pe=").append(name_);
        StringDictAttribute(s, attr, "define", config_value_);
        break;
      case Slot::kOuts:
        Attribute(
            s,
            {.name = attr, .type = attribute::kOutputList, .list = lists_.data() + at.outs_at, .list_size = node.outs});
        break;
      case Slot::kCmd:
        StringAttribute(s, attr, kCmd);
        break;
      case Slot::kFlag:
        Attribute(s, {.name = attr, .type = attribute::kBoolean, .boolean_value = node.flag ? 1 : 0});
        break;
      case Slot::kTags: {
        const std::string_view tags[] = {tag_};
        Attribute(s, {.name = attr, .type = attribute::kStringList, .list = tags, .list_size = 1});
        break;
      }
      case Slot::kVisibility: {
        const std::string_view visibility[] = {kPublic};
        Attribute(s, {.name = attr, .type = attribute::kStringList, .list = visibility, .list_size = 1, .nodep = true});
        break;
      }
      case Slot::kGeneratorFunction:
        StringAttribute(s, attr, kMacro);
        break;
      case Slot::kGeneratorLocation:
        StringAttribute(s, attr, locations_[node.index]);
        break;
      case Slot::kUnknown:
        throw std::logic_error(fmt::format("no value for {}'s attribute {}", classes_[node.kind]->name, attr));
    }
  }

  // The sorted inputs; external repositories named explicitly and the class's implicit inputs
  // (as this stream shape prints them), merged in Bazel's label order (by repository first, as
  // this shape's Bazel compares repositories; both lists are in that order already); the outs;
  // the instantiation stack.
  void RuleInputsAndOutputs(wire::Buffer& s, const RuleNode& node, const RuleLists& at) {
    for (const std::string_view input : sorted_) wire::Bytes(s, rule::kRuleInput, input);
    std::size_t e = at.externals_at;
    if (e == at.outs_at) {
      const std::string& encoded = implicit_encoded_[node.kind];
      s.Append(encoded.data(), encoded.size());
    } else {
      const std::vector<std::string>& implicit = implicit_inputs_[node.kind];
      const std::vector<std::string>& implicit_keys = implicit_keys_[node.kind];
      for (std::size_t i = 0; i < implicit.size(); ++i) {
        while (e < at.outs_at && external_keys_[node.external_deps[e - at.externals_at]] < implicit_keys[i])
          wire::Bytes(s, rule::kRuleInput, lists_[e++]);
        wire::Bytes(s, rule::kRuleInput, implicit[i]);
      }
    }
    while (e < at.outs_at) wire::Bytes(s, rule::kRuleInput, lists_[e++]);
    for (std::uint32_t k = 0; k < node.outs; ++k) wire::Bytes(s, rule::kRuleOutput, lists_[at.outs_at + k]);
    wire::Bytes(s, rule::kInstantiationStack, frame_);
    if (node.macro) wire::Bytes(s, rule::kInstantiationStack, macro_frame_);
  }

  // deps = select({key: the other deps and externals, default: the same but the last dep}), as
  // Bazel 4.2.3 prints it by default (--proto:flatten_selects): one LABEL_LIST of every label
  // any branch names, in the order first named, here the key's branch; the key itself is only
  // a rule input.
  void SelectDeps(wire::Buffer& sink, const RuleNode& node, std::size_t deps_at, std::size_t outs_at) {
    when_key_.clear();
    for (std::size_t i = deps_at; i < outs_at; ++i) {
      if (i - deps_at != node.select_key) when_key_.push_back(lists_[i]);
    }
    Attribute(sink,
              {.name = "deps", .type = attribute::kLabelList, .list = when_key_.data(), .list_size = when_key_.size()});
  }

  const BazelGraph& graph_;
  OutputFile* out_;
  wire::Buffer& buffer_;
  StreamShape shape_;
  const bazel423::RuleClass& http_archive_;
  const bazel423::RuleClass& local_repository_;
  const std::vector<const bazel423::RuleClass*>& classes_;
  const std::vector<std::vector<std::string>>& implicit_inputs_;
  const std::vector<std::vector<std::string>>& implicit_keys_;
  const std::vector<std::array<std::vector<Piece>, 4>>& plans_;
  const std::vector<std::string>& implicit_encoded_;
  const std::vector<std::string_view>& rule_labels_;
  const std::vector<std::uint64_t>& rule_keys_;
  const std::vector<std::string>& external_labels_;
  const std::vector<std::string>& external_keys_;
  std::string config_value_;
  std::vector<std::string_view> when_key_;
  // Scratch strings reused across targets, so steady state allocates little.
  std::string prefix_, build_file_, defs_label_, label_, name_, tag_, frame_, macro_frame_;
  std::vector<std::string> locations_;
  std::vector<PackageEntry> entries_;
  std::vector<std::string> labels_;
  std::vector<std::string_view> lists_;
  std::vector<std::string_view> sorted_;
  std::vector<std::uint32_t> dep_order_;
};

// The packages split into blocks of about 1 MB of output each. Two threads encode blocks, in
// turn, into buffers of their own while the calling thread writes finished blocks in order, so
// encoding runs on both cores and overlaps the write(2) calls. At most kAhead blocks wait to be
// written, so memory stays bounded however large the graph, and block buffers are reused rather
// than freed, so their pages are faulted in once. Every block's bytes are what the one-thread
// writer appends for those packages: the file is the same (the digests pinned in
// tests/unit/generators/generator_bytes_test.cc were taken from the one-thread writer).
constexpr std::size_t kBlockRules = 512;  // about 1.1 MB of the dense stream, 0.5 MB of the calibrated
constexpr std::size_t kAhead = 4;

struct Block {
  std::uint32_t first = 0, end = 0;  // packages
  std::uint32_t rules_end = 0;       // the rules of [first, end) are below this one
  wire::Buffer* bytes = nullptr;
  bool ready = false;
};

std::vector<Block> SplitIntoBlocks(const BazelGraph& graph) {
  std::vector<Block> blocks;
  std::size_t rules = 0;
  std::uint32_t first = 0;
  const auto packages = static_cast<std::uint32_t>(graph.packages.size());
  for (std::uint32_t p = 0; p < packages; ++p) {
    rules += graph.packages[p].rule_count;
    if (rules >= kBlockRules || p + 1 == packages) {
      blocks.push_back(
          {.first = first, .end = p + 1, .rules_end = graph.packages[p].first_rule + graph.packages[p].rule_count});
      first = p + 1;
      rules = 0;
    }
  }
  return blocks;
}

// With a progress, the graph is still being wired: a block is encoded once its rules are.
void WriteBlocks(const Shared& shared, std::vector<Block>& blocks, OutputFile& out, WiringProgress* progress) {
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next = 0;     // the next block a thread takes
  std::size_t written = 0;  // blocks written to the file
  std::exception_ptr failure;
  std::vector<std::unique_ptr<wire::Buffer>> buffers;  // every block buffer; spare ones below
  std::vector<wire::Buffer*> spare;
  auto encode = [&] {
    for (;;) {
      std::size_t i = 0;
      wire::Buffer* buffer = nullptr;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return failure || next >= blocks.size() || next < written + kAhead; });
        if (failure || next >= blocks.size()) return;
        i = next++;
        if (spare.empty()) {
          buffer = buffers.emplace_back(std::make_unique<wire::Buffer>()).get();
        } else {
          buffer = spare.back();
          spare.pop_back();
        }
      }
      try {
        std::shared_lock<std::shared_mutex> reading;
        if (progress != nullptr) reading = progress->Await(blocks[i].rules_end);
        buffer->clear();
        buffer->Need(std::size_t{2} << 20);
        Writer(shared, *buffer, nullptr).Packages(blocks[i].first, blocks[i].end);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
      }
      const std::lock_guard lock(mutex);
      blocks[i].bytes = buffer;
      blocks[i].ready = true;
      changed.notify_all();
    }
  };
  std::thread first(encode), second(encode);
  try {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return failure || blocks[i].ready; });
        if (failure) break;
      }
      out.Write(blocks[i].bytes->view());
      const std::lock_guard lock(mutex);
      spare.push_back(blocks[i].bytes);
      written = i + 1;
      changed.notify_all();
    }
  } catch (...) {
    const std::lock_guard lock(mutex);
    if (!failure) failure = std::current_exception();
    changed.notify_all();
  }
  first.join();
  second.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

void WriteQueryProto(const BazelGraph& graph, OutputFile& out, StreamShape shape) {
  const Shared shared(graph, shape);
  wire::Buffer buffer;
  Writer writer(shared, buffer, &out);
  writer.Head();
  std::vector<Block> blocks = SplitIntoBlocks(graph);
  if (blocks.size() < 2) {
    writer.Packages(0, static_cast<std::uint32_t>(graph.packages.size()));
    writer.Flush();
    return;
  }
  writer.Flush();
  WriteBlocks(shared, blocks, out, nullptr);
}

BazelGraph BuildAndWriteQueryProto(const GraphOptions& options, std::uint64_t seed, const std::filesystem::path& path,
                                   StreamShape shape) {
  GraphBuilder builder(options, seed);
  std::vector<Block> blocks = SplitIntoBlocks(builder.graph());
  if (blocks.size() < 2) {
    builder.Wire();
    WriteQueryProto(builder.graph(), path, shape);
    return std::move(builder.graph());
  }
  // Every package and rule exists already; their deps are drawn on a thread of its own while
  // this one makes the labels and writes the head, and the block encoders follow the wiring.
  WiringProgress progress;
  std::exception_ptr wiring_failure;
  std::thread wiring([&] {
    try {
      builder.Wire(&progress);
    } catch (...) {
      wiring_failure = std::current_exception();
    }
    progress.Finish();
  });
  try {
    OutputFile out(path);
    const Shared shared(builder.graph(), shape);
    wire::Buffer buffer;
    Writer writer(shared, buffer, &out);
    writer.Head();
    writer.Flush();
    WriteBlocks(shared, blocks, out, &progress);
    out.Close();
  } catch (...) {
    progress.Cancel();
    wiring.join();
    if (wiring_failure) std::rethrow_exception(wiring_failure);  // the cause of a WiringStopped
    throw;
  }
  wiring.join();
  if (wiring_failure) std::rethrow_exception(wiring_failure);
  return std::move(builder.graph());
}

void WriteQueryProto(const BazelGraph& graph, const std::filesystem::path& path, StreamShape shape) {
  OutputFile out(path);
  WriteQueryProto(graph, out, shape);
  out.Close();
}

}  // namespace pe::gen

// hash_pair: two bazel-diff hash files (start.json, final.json) over the targets of a layered
// graph, where final changes, adds and removes exact fractions of the targets; optionally the
// dependency edges of the final revision (deps.json) for distance metrics. Upstream
// bazel-diff's get-impacted-targets requires -w and may run `bazel mod graph` there, so the
// fixture also holds an empty WORKSPACE-mode workspace/ and the replay shim as bazel.
//
// Hashes follow bazel-diff's shape: "<total>~<direct>", where direct covers the target itself
// and total also covers the totals of its inputs. With propagate (the default when edges are
// written) a change flows into every dependent's total, as in real bazel-diff output;
// without it, only the chosen targets (and their generated files) change.
//
// As upstream bazel-diff 37.0.0 writes them (Tinder/bazel-diff, cli/src/main/kotlin/com/bazel_diff):
// a source file's value is "X~X" (TargetHasher.kt:63-71: TargetDigest(digest, digest)); a
// generated file's value is its generating rule's (TargetHasher.kt:24-49); the -d deps file
// (GenerateHashesInteractor.kt:84-86, gson drops the null deps of source files) has a key per
// rule, listing the rules and generated files among its inputs (RuleHasher.kt:131-149: only
// putTransitiveBytes records a dep), and a key per generated file naming its rule
// (TargetHasher.kt:47-48). A generated file cannot change apart from its rule, so the changed
// and removed fractions are picked among rules and source files; a removed rule's generated
// files go with it.
#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "generators/bazel_4_2_3.h"
#include "generators/bazel_graph.h"
#include "generators/bazel_shim_install.h"
#include "generators/builtin_generators.h"
#include "generators/file_io.h"
#include "generators/rng.h"
#include "generators/sha256.h"

namespace pe::gen {
namespace {

constexpr std::uint64_t kHashPairStream = 0x686173682d706169;  // "hash-pai"

using Digest = std::array<std::uint8_t, 32>;

enum class Type : std::uint8_t { kRule, kSourceFile, kGeneratedFile };

constexpr std::string_view TypePrefix(Type type) {
  switch (type) {
    case Type::kRule:
      return "Rule#";
    case Type::kSourceFile:
      return "SourceFile#";
    case Type::kGeneratedFile:
      return "GeneratedFile#";
  }
  return "";
}

struct Node {
  std::string label;
  Type type = Type::kRule;
  std::uint32_t layer = 0;
  std::uint32_t package = 0;
  std::vector<std::uint32_t> inputs;  // node indices
  std::uint32_t version = 0;
  bool present = true;
  Digest direct{};
  Digest total{};
};

struct Options {
  GraphOptions graph;
  double changed = 0.05;
  double added = 0.01;
  double removed = 0.01;
  bool edges = false;
  bool propagate = false;
  bool target_types = false;
};

Digest Hash(std::string_view bytes) {
  Digest out{};
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), out.data(), &size, EVP_sha256(), nullptr);
  return out;
}

class HashPair {
 public:
  HashPair(const Options& options, std::uint64_t seed) : options_(options), seed_(seed) {}

  void Write(const std::filesystem::path& dir) {
    Build(BuildGraph(options_.graph, seed_));
    Rehash();
    WriteHashes(dir / "start.json");
    Revise();
    Rehash();
    WriteHashes(dir / "final.json");
    if (options_.edges) WriteEdges(dir / "deps.json");
    std::filesystem::create_directories(dir / "workspace");
    WriteFile(dir / "workspace" / "WORKSPACE", "workspace(name = \"perfengine_hash_pair\")\n");
    InstallShim(dir, {});
    WriteFile(dir / "query.pb", "");
  }

 private:
  // Flattens the graph into nodes ordered so every input precedes its users.
  void Build(const BazelGraph& graph) {
    // What real Bazel lists whatever the workspace (bazel_graph.h, FixedExternalCount).
    for (std::string_view label : bazel423::DefaultExternalLabels()) Add(std::string(label), Type::kRule, 0, 0);
    Add("//external:WORKSPACE", Type::kSourceFile, 0, 0);
    Add("//external:" + std::string(kWorkspaceName), Type::kRule, 0, 0);
    for (const auto& name : graph.externals) Add("//external:" + name, Type::kRule, 0, 0);
    std::vector<std::uint32_t> rule_node(graph.rules.size());
    // Sources first, so rules can name them; rules in package order (deps lie in lower
    // layers, hence earlier packages); generated files last.
    for (std::uint32_t p = 0; p < graph.packages.size(); ++p) {
      const PackageNode& package = graph.packages[p];
      Add(graph.Label(p, "BUILD"), Type::kSourceFile, package.layer, p);
      for (std::uint32_t r = package.first_rule; r < package.first_rule + package.rule_count; ++r) {
        for (const SourceRef& src : graph.rules[r].srcs) {
          Add(graph.Label(p, BazelGraph::SourceName(graph.rules[r], src)), Type::kSourceFile, package.layer, p);
        }
      }
    }
    for (std::uint32_t r = 0; r < graph.rules.size(); ++r) {
      const RuleNode& rule = graph.rules[r];
      const PackageNode& package = graph.packages[rule.package];
      std::vector<std::uint32_t> inputs;
      for (const SourceRef& src : rule.srcs) {
        inputs.push_back(index_.at(graph.Label(rule.package, BazelGraph::SourceName(rule, src))));
      }
      for (std::uint32_t dep : graph.DepsOf(r)) inputs.push_back(rule_node[dep]);
      rule_node[r] = Add(graph.RuleLabel(r), Type::kRule, package.layer, rule.package);
      nodes_[rule_node[r]].inputs = std::move(inputs);
      rules_by_layer_.resize(std::max<std::size_t>(rules_by_layer_.size(), package.layer + 1));
      rules_by_layer_[package.layer].push_back(rule_node[r]);
    }
    for (std::uint32_t r = 0; r < graph.rules.size(); ++r) {
      const RuleNode& rule = graph.rules[r];
      for (std::uint32_t k = 0; k < rule.outs; ++k) {
        const auto n = Add(graph.Label(rule.package, BazelGraph::OutputName(rule, k)), Type::kGeneratedFile,
                           graph.packages[rule.package].layer, rule.package);
        nodes_[n].inputs.push_back(rule_node[r]);
      }
    }
    package_names_.clear();
    for (const auto& package : graph.packages) package_names_.push_back(package.name);
    package_layers_.clear();
    for (const auto& package : graph.packages) package_layers_.push_back(package.layer);
    index_.clear();
  }

  std::uint32_t Add(std::string label, Type type, std::uint32_t layer, std::uint32_t package) {
    const auto n = static_cast<std::uint32_t>(nodes_.size());
    if (type == Type::kSourceFile) index_.emplace(label, n);
    Node node;
    node.label = std::move(label);
    node.type = type;
    node.layer = layer;
    node.package = package;
    nodes_.push_back(std::move(node));
    return n;
  }

  // Picks exact counts: the first `changed` of one shuffle change, the next `removed` go.
  void Revise() {
    Rng rng(seed_, kHashPairStream);
    const auto n = static_cast<std::uint32_t>(nodes_.size());
    const auto count = [&](double fraction) { return static_cast<std::uint32_t>(std::llround(fraction * n)); };
    const std::uint32_t changed = count(options_.changed);
    const std::uint32_t removed = std::min(count(options_.removed), n - changed);
    const std::uint32_t added = count(options_.added);
    // Rules and source files are picked; a generated file changes and goes with its rule.
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (nodes_[i].type != Type::kGeneratedFile) order.push_back(i);
    }
    const auto pickable = static_cast<std::uint32_t>(order.size());
    const std::uint32_t picked_changed = std::min(changed, pickable);
    const std::uint32_t picked_removed = std::min(removed, pickable - picked_changed);
    for (std::uint32_t i = 0; i < picked_changed + picked_removed; ++i) {
      std::swap(order[i], order[i + rng.Below(pickable - i)]);
    }
    for (std::uint32_t i = 0; i < picked_changed; ++i) nodes_[order[i]].version = 1;
    for (std::uint32_t i = picked_changed; i < picked_changed + picked_removed; ++i) nodes_[order[i]].present = false;
    for (auto& node : nodes_) {
      if (node.type == Type::kGeneratedFile && !nodes_[node.inputs.front()].present) node.present = false;
    }
    // A dependent of a removed target loses an input: its own definition changed.
    for (auto& node : nodes_) {
      if (!node.present) continue;
      const auto before = node.inputs.size();
      std::erase_if(node.inputs, [&](std::uint32_t input) { return !nodes_[input].present; });
      if (node.inputs.size() != before) node.version = 1;
    }
    // New rules land in random packages and depend on rules of the layer below, like the rest.
    for (std::uint32_t i = 0; i < added && !package_names_.empty(); ++i) {
      const auto package = static_cast<std::uint32_t>(rng.Below(package_names_.size()));
      const std::uint32_t layer = package_layers_[package];
      const auto n_new = Add(fmt::format("//{}:added{}", package_names_[package], i), Type::kRule, layer, package);
      nodes_[n_new].version = 1;
      if (layer > 0 && layer - 1 < rules_by_layer_.size()) {
        std::vector<std::uint32_t> candidates;
        for (std::uint32_t r : rules_by_layer_[layer - 1]) {
          if (nodes_[r].present) candidates.push_back(r);
        }
        const auto want = std::min<std::size_t>(static_cast<std::size_t>(options_.graph.fan_in), candidates.size());
        for (std::size_t k = 0; k < want; ++k) {
          std::swap(candidates[k], candidates[k + rng.Below(candidates.size() - k)]);
          nodes_[n_new].inputs.push_back(candidates[k]);
        }
        std::sort(nodes_[n_new].inputs.begin(), nodes_[n_new].inputs.end());
      }
    }
  }

  void Rehash() {
    std::string buffer;
    for (auto& node : nodes_) {
      if (!node.present) continue;
      if (node.type == Type::kGeneratedFile) {  // its rule's value; rules precede it in nodes_
        node.direct = nodes_[node.inputs.front()].direct;
        node.total = nodes_[node.inputs.front()].total;
        continue;
      }
      buffer.assign(reinterpret_cast<const char*>(&seed_), sizeof seed_);
      buffer += node.label;
      buffer.append(reinterpret_cast<const char*>(&node.version), sizeof node.version);
      // Inputs always precede their users in nodes_, so their hashes are final here. With
      // propagate, a rule's source files go into its direct hash, as upstream's RuleHasher puts
      // them (RuleHasher.kt:133-134), and its other inputs' totals into its total.
      if (options_.propagate) {
        for (std::uint32_t input : node.inputs) {
          if (nodes_[input].type == Type::kSourceFile) {
            buffer.append(reinterpret_cast<const char*>(nodes_[input].direct.data()), 32);
          }
        }
      }
      node.direct = Hash(buffer);
      if (node.type == Type::kSourceFile) {  // "X~X"
        node.total = node.direct;
        continue;
      }
      buffer.assign(reinterpret_cast<const char*>(node.direct.data()), node.direct.size());
      if (options_.propagate) {
        for (std::uint32_t input : node.inputs) {
          if (nodes_[input].type != Type::kSourceFile) {
            buffer.append(reinterpret_cast<const char*>(nodes_[input].total.data()), 32);
          }
        }
      }
      node.total = Hash(buffer);
    }
  }

  std::vector<std::uint32_t> SortedPresent() const {
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].present) order.push_back(i);
    }
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return nodes_[a].label < nodes_[b].label; });
    return order;
  }

  // One JSON object, a key per present target in label order (source files only when
  // `sources`); `value` appends that key's value.
  template <typename Value>
  void WriteObject(const std::filesystem::path& path, bool sources, Value value) const {
    OutputFile out(path);
    std::string& buffer = out.buffer();
    buffer += "{";
    bool first = true;
    for (std::uint32_t i : SortedPresent()) {
      const Node& node = nodes_[i];
      if (!sources && node.type == Type::kSourceFile) continue;
      buffer += first ? "\n  \"" : ",\n  \"";
      first = false;
      buffer += node.label;
      buffer += "\": ";
      value(node, buffer);
      out.MaybeFlush();
    }
    buffer += "\n}\n";
    out.Close();
  }

  void WriteHashes(const std::filesystem::path& path) const {
    WriteObject(path, true, [&](const Node& node, std::string& buffer) {
      buffer += '"';
      if (options_.target_types) buffer += TypePrefix(node.type);
      buffer += ToHex(node.total.data(), node.total.size());
      buffer += '~';
      buffer += ToHex(node.direct.data(), node.direct.size());
      buffer += '"';
    });
  }

  void WriteEdges(const std::filesystem::path& path) const {
    WriteObject(path, false, [&](const Node& node, std::string& buffer) {
      std::vector<const std::string*> inputs;
      for (std::uint32_t input : node.inputs) {
        if (nodes_[input].type != Type::kSourceFile) inputs.push_back(&nodes_[input].label);
      }
      std::sort(inputs.begin(), inputs.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
      buffer += '[';
      for (std::size_t k = 0; k < inputs.size(); ++k) {
        buffer += k == 0 ? "\"" : ", \"";
        buffer += *inputs[k];
        buffer += '"';
      }
      buffer += ']';
    });
  }

  Options options_;
  std::uint64_t seed_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, std::uint32_t> index_;
  std::vector<std::vector<std::uint32_t>> rules_by_layer_;
  std::vector<std::string> package_names_;
  std::vector<std::uint32_t> package_layers_;
};

class HashPairGenerator : public Generator {
 public:
  std::string_view Name() const override { return "hash_pair"; }
  std::string_view Description() const override {
    return "start.json, final.json (bazel-diff hashes of two revisions), optionally deps.json, and "
           "workspace/ with the replay bazel for get-impacted-targets -w";
  }
  // 3: Bazel 4.2.3's own externals, no defs.bzl; 4: upstream's shape (X~X sources, generated
  // files equal to their rule, deps without source files)
  int Version() const override { return 4; }
  std::string KeyExtra() const override { return ShimKeyExtra(); }
  void Check(const Params& params) const override { Read(params, 1); }
  void Generate(const Params& params, const Context& ctx) const override {
    HashPair(Read(params, ctx.scale), ctx.seed).Write(ctx.out_dir);
  }

 private:
  Options Read(const Params& params, double scale) const {
    ParamReader reader(Name(), params);
    Options options;
    options.graph = ReadGraphOptions(reader, scale, 150000);
    options.graph.package_groups = false;  // upstream's hash files have no package groups
    options.changed = reader.Fraction("changed", options.changed);
    options.added = reader.Fraction("added", options.added);
    options.removed = reader.Fraction("removed", options.removed);
    options.edges = reader.Bool("edges", options.edges);
    options.propagate = reader.Bool("propagate", options.edges);
    options.target_types = reader.Bool("target_types", options.target_types);
    reader.Finish();
    if (options.changed + options.removed > 1) {
      throw ParamError("removed", "'changed' + 'removed' must not exceed 1");
    }
    return options;
  }
};

}  // namespace

std::unique_ptr<Generator> MakeHashPairGenerator() { return std::make_unique<HashPairGenerator>(); }

}  // namespace pe::gen

#include "generators/source_tree.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <unordered_set>
#include <vector>

#include "generators/file_io.h"
#include "generators/rng.h"

namespace pe::gen {
namespace {

constexpr std::uint64_t kSourceStream = 0x736f757263652d31;  // "source-1"
constexpr std::uint64_t kSizeStream = 0x73697a65732d7631;    // "sizes-v1"

// Every rule's label, built once for a whole tree (each is named by up to fan_in dependents'
// BUILD files), or on demand when one BUILD file is rendered alone.
class RuleLabels {
 public:
  explicit RuleLabels(const BazelGraph& graph, bool all = false) : graph_(graph) {
    if (!all) return;
    labels_.reserve(graph.rules.size());
    for (std::uint32_t r = 0; r < graph.rules.size(); ++r) labels_.push_back(graph.RuleLabel(r));
  }
  std::string_view operator()(std::uint32_t rule) const {
    if (!labels_.empty()) return labels_[rule];
    return made_.emplace_back(graph_.RuleLabel(rule));
  }

 private:
  const BazelGraph& graph_;
  std::vector<std::string> labels_;
  mutable std::deque<std::string> made_;  // on demand: kept, so views of them stay valid
};

void AppendQuoted(std::string& out, std::string_view item) { out.append("\"").append(item).append("\""); }

// [ "a", "b" ] as the BUILD files write it: `["a", "b"]`.
template <class Items>
void AppendItems(std::string& out, const Items& items) {
  out += '[';
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += ", ";
    first = false;
    AppendQuoted(out, item);
  }
  out += ']';
}

void AppendList(std::string& out, std::string_view key, const std::vector<std::string_view>& items,
                bool end_line = true) {
  out.append("    ").append(key).append(" = ");
  AppendItems(out, items);
  out += end_line ? ",\n" : ",";
}

// Line 4 of a rule with a deps attribute: its deps and external repositories, or a select()
// whose config_setting branch has them all and whose default lacks the last rule dep.
void AppendDeps(std::string& out, const BazelGraph& graph, std::uint32_t r, const RuleLabels& labels,
                const std::vector<std::string>& external_labels, std::vector<std::string_view>& items) {
  const RuleNode& rule = graph.rules[r];
  const auto deps = graph.DepsOf(r);
  items.clear();
  for (std::size_t i = 0; i < deps.size(); ++i) {
    if (!rule.select || i != rule.select_key) items.push_back(labels(deps[i]));
  }
  const std::size_t rule_deps = items.size();
  for (std::uint32_t e : rule.external_deps) items.push_back(external_labels[e]);
  if (!rule.select) {
    AppendList(out, "deps", items);
    return;
  }
  out.append("    deps = select({");
  AppendQuoted(out, labels(deps[rule.select_key]));
  out.append(": ");
  AppendItems(out, items);
  out.append(", \"//conditions:default\": ");
  // The default branch: the same, but the last rule dep.
  std::vector<std::string_view> fallback(items.begin(), items.end());
  if (rule_deps > 0) fallback.erase(fallback.begin() + static_cast<std::ptrdiff_t>(rule_deps) - 1);
  AppendItems(out, fallback);
  out.append("}),\n");
}

std::string RenderBuildFile(const BazelGraph& graph, std::uint32_t p, const RuleLabels& labels,
                            const std::vector<std::string>& external_labels);

}  // namespace

SourceTreeOptions ReadSourceTreeOptions(ParamReader& reader, std::int64_t default_bytes) {
  SourceTreeOptions options;
  options.source_bytes = reader.Int("source_bytes", default_bytes, 0, std::int64_t{1} << 30);
  return options;
}

std::string RenderWorkspaceFile(const BazelGraph& graph) {
  // kWorkspaceHeaderLines lines, then kWorkspaceRepoLines per repository.
  return fmt::format(
             "workspace(name = \"{}\")\n\n"
             "load(\"@bazel_tools//tools/build_defs/repo:http.bzl\", \"http_archive\")\n\n",
             kWorkspaceName) +
         HttpArchiveCalls(graph);
}

std::string RenderDefsFile(bool starlark_rule) {
  // my_macro's rule call sits at line 2, column 9, as the query's instantiation stacks say.
  std::string out =
      "def my_macro(name, kind, **kwargs):\n"
      "    kind(name = name, **kwargs)\n";
  if (starlark_rule) {
    out +=
        "\n"
        "def _my_rule_impl(ctx):\n"
        "    return [DefaultInfo(files = depset(ctx.files.srcs))]\n"
        "\n"
        "my_rule = rule(\n"
        "    implementation = _my_rule_impl,\n"
        "    attrs = {\n"
        "        \"srcs\": attr.label_list(allow_files = True),\n"
        "        \"deps\": attr.label_list(),\n"
        "        \"local\": attr.bool(),\n"
        "    },\n"
        ")\n";
  }
  return out;
}

std::int64_t SourceBytes(const BazelGraph& graph, const RuleNode& rule, const SourceRef& src, std::int64_t median) {
  if (graph.source_bytes_sigma == 0) return median;
  Rng rng(graph.seed, Mix(Mix(kSizeStream, rule.package), Mix(rule.index, src.id)));
  const double size = static_cast<double>(median) * LogNormalFactor(rng, graph.source_bytes_sigma);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(size + 0.5), 1, std::int64_t{1} << 30);
}

std::string RenderBuildFile(const BazelGraph& graph, std::uint32_t p) {
  std::vector<std::string> external_labels;
  for (std::uint32_t e = 0; e < graph.externals.size(); ++e) external_labels.push_back(graph.ExternalLabel(e));
  return RenderBuildFile(graph, p, RuleLabels(graph), external_labels);
}

namespace {

// Appended, not formatted: a BUILD file is rendered for every package of every fixture.
void AppendNumber(std::string& out, std::uint64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, static_cast<std::size_t>(end - digits));
}

std::string RenderBuildFile(const BazelGraph& graph, std::uint32_t p, const RuleLabels& labels,
                            const std::vector<std::string>& external_labels) {
  const PackageNode& package = graph.packages[p];
  std::string out = !package.has_defs      ? "\n\n"
                    : graph.starlark_rules ? "load(\":defs.bzl\", \"my_macro\", \"my_rule\")\n\n"
                                           : "load(\":defs.bzl\", \"my_macro\")\n\n";
  std::vector<std::string> names;
  std::vector<std::string_view> items;
  for (std::uint32_t r = package.first_rule; r < package.first_rule + package.rule_count; ++r) {
    const RuleNode& rule = graph.rules[r];
    const std::string_view rule_class = RuleClasses()[rule.kind];
    // Exactly kBuildRuleLines lines per rule, with only the attributes its class has: a
    // genrule has no deps (its deps are srcs) and only a genrule has outs and cmd.
    if (rule.macro) {
      out.append("my_macro(\n    name = \"mod");
      AppendNumber(out, rule.index);
      out.append("\", kind = ").append(rule_class).append(",\n");
    } else {
      out.append(rule_class).append("(\n    name = \"mod");
      AppendNumber(out, rule.index);
      out.append("\",\n");
    }
    names.clear();
    for (const SourceRef& src : rule.srcs) names.push_back(BazelGraph::SourceName(rule, src));
    items.assign(names.begin(), names.end());
    if (HasDepsAttribute(rule.kind)) {
      AppendList(out, "srcs", items);
      AppendDeps(out, graph, r, labels, external_labels, items);
    } else if (rule.kind == kAlias) {
      out.append("    actual = \"").append(labels(graph.DepsOf(r)[0])).append("\",\n    # an alias of one rule\n");
    } else if (rule.kind == kConfigSetting) {
      out.append("    values = {\"define\": \"pe=mod");
      AppendNumber(out, rule.index);
      out.append("\"},\n    # no deps\n");
    } else {
      // A genrule and a filegroup name their deps in srcs.
      for (std::uint32_t dep : graph.DepsOf(r)) items.push_back(labels(dep));
      for (std::uint32_t e : rule.external_deps) items.push_back(external_labels[e]);
      AppendList(out, "srcs", items);
      if (rule.kind == kGenrule) {
        names.clear();
        for (std::uint32_t k = 0; k < rule.outs; ++k) names.push_back(BazelGraph::OutputName(rule, k));
        items.assign(names.begin(), names.end());
        AppendList(out, "outs", items, false);
        out += " cmd = \"cat $(SRCS) > $@\",\n";
      } else {
        out += "    # no deps: a filegroup lists them in srcs\n";
      }
    }
    out.append("    ").append(FlagAttribute(rule.kind)).append(rule.flag ? " = True,\n" : " = False,\n");
    out.append("    tags = [\"l");
    AppendNumber(out, package.layer);
    out.append("\"],\n");
    out += "    visibility = [\"//visibility:public\"],\n)\n\n";
  }
  if (package.has_group) {
    fmt::format_to(std::back_inserter(out), "package_group(\n    name = \"{}\",\n    packages = [\"//{}/...\"],\n)\n",
                   BazelGraph::kPackageGroupName, package.name);
  }
  return out;
}

}  // namespace

void RenderSource(const BazelGraph& graph, const RuleNode& rule, const SourceRef& src, std::int64_t size,
                  std::string& out) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ ";
  constexpr std::size_t kColumns = 63;  // symbols per line, then '\n'
  const auto total = static_cast<std::size_t>(size);
  // Into out's own memory (a writer reuses one string for every file).
  out.clear();
  out.append("// //").append(graph.packages[rule.package].name).append(":");
  out.append(BazelGraph::SourceName(rule, src)).append(" v");
  char digits[12];
  out.append(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, src.version).ptr - digits));
  out += '\n';
  if (out.size() >= total) {
    out.resize(total);
    return;
  }
  Rng rng(graph.seed, Mix(Mix(kSourceStream, rule.package), Mix(rule.index, Mix(src.id, src.version))));
  const std::size_t header = out.size();
  out.resize(total);
  // Lines of kColumns symbols and a newline; each 64-bit draw gives 10 six-bit symbols, which run
  // on across line ends.
  char* at = out.data() + header;
  char* const end = out.data() + total;
  std::uint64_t bits = 0;
  int left = 0;
  while (at < end) {
    std::size_t line = std::min<std::size_t>(kColumns, static_cast<std::size_t>(end - at));
    const bool full = line == kColumns && at + kColumns < end;
    while (line > 0) {
      if (left == 0) {
        bits = rng.Next();
        left = 10;
      }
      const int take = static_cast<int>(std::min<std::size_t>(line, static_cast<std::size_t>(left)));
      for (int k = 0; k < take; ++k) {
        *at++ = kAlphabet[bits & 63];
        bits >>= 6;
      }
      left -= take;
      line -= static_cast<std::size_t>(take);
    }
    if (full) *at++ = '\n';
  }
  if (total > 0) out[total - 1] = '\n';
}

namespace {

// mkdir for every directory a package sits in, parents first, each once (packages share
// their parents): no stat-then-mkdir walk per package as create_directories does.
void MakePackageDirectories(const BazelGraph& graph, const std::filesystem::path& root) {
  std::unordered_set<std::string> made;
  std::string relative;
  for (const PackageNode& package : graph.packages) {
    std::size_t at = 0;
    while (at != std::string::npos) {
      at = package.name.find('/', at + 1);
      relative.assign(package.name, 0, at);
      if (!made.insert(relative).second) continue;
      const std::filesystem::path dir = root / relative;
      if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
        throw std::runtime_error(fmt::format("cannot create {}: {}", dir.string(), std::strerror(errno)));
      }
    }
  }
}

// What every package's files are rendered from, made once per tree.
struct TreeParts {
  explicit TreeParts(const BazelGraph& graph) : labels(graph, true), defs(RenderDefsFile(graph.starlark_rules)) {
    for (std::uint32_t e = 0; e < graph.externals.size(); ++e) external_labels.push_back(graph.ExternalLabel(e));
  }
  RuleLabels labels;
  std::vector<std::string> external_labels;
  std::string defs;
};

// One package's files, rendered into `content` (reused) and created relative to its directory.
void WritePackage(const BazelGraph& graph, const SourceTreeOptions& options, const TreeParts& parts,
                  const std::filesystem::path& root, std::uint32_t p, std::string& content) {
  const PackageNode& package = graph.packages[p];
  const OpenDirectory dir(root / package.name);
  dir.WriteFile("BUILD", RenderBuildFile(graph, p, parts.labels, parts.external_labels));
  if (package.has_defs) dir.WriteFile("defs.bzl", parts.defs);
  for (std::uint32_t r = package.first_rule; r < package.first_rule + package.rule_count; ++r) {
    const RuleNode& rule = graph.rules[r];
    for (const SourceRef& src : rule.srcs) {
      RenderSource(graph, rule, src, SourceBytes(graph, rule, src, options.source_bytes), content);
      dir.WriteFile(BazelGraph::SourceName(rule, src), content);
    }
  }
}

}  // namespace

void WriteSourceTree(const BazelGraph& graph, const SourceTreeOptions& options, const std::filesystem::path& root) {
  std::filesystem::create_directories(root);
  WriteFile(root / "WORKSPACE", RenderWorkspaceFile(graph));
  MakePackageDirectories(graph, root);
  const TreeParts parts(graph);
  // Files are what the kernel spends its time on (an inode each): packages are written on
  // kTreeThreads threads, taking kPackagesPerTake at a time, so both cores create files. Every
  // file's bytes depend only on the graph, so the tree is the same whatever the order.
  constexpr unsigned kTreeThreads = 2;
  constexpr std::uint32_t kPackagesPerTake = 8;
  const auto packages = static_cast<std::uint32_t>(graph.packages.size());
  std::atomic<std::uint32_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::exception_ptr failure;
  auto work = [&] {
    std::string content;
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        const std::uint32_t first = next.fetch_add(kPackagesPerTake, std::memory_order_relaxed);
        if (first >= packages) return;
        const std::uint32_t end = std::min(packages, first + kPackagesPerTake);
        for (std::uint32_t p = first; p < end; ++p) WritePackage(graph, options, parts, root, p, content);
      }
    } catch (...) {
      stop = true;
      const std::lock_guard lock(mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  if (packages <= kPackagesPerTake) {
    work();
  } else {
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < kTreeThreads; ++t) helpers.emplace_back(work);
    work();
    for (std::thread& helper : helpers) helper.join();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace pe::gen

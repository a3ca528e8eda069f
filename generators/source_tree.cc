#include "generators/source_tree.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
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

void AppendList(std::string& out, std::string_view key, const std::vector<std::string>& items, bool end_line = true) {
  fmt::format_to(std::back_inserter(out), "    {} = [", key);
  for (std::size_t i = 0; i < items.size(); ++i) {
    fmt::format_to(std::back_inserter(out), "{}\"{}\"", i == 0 ? "" : ", ", items[i]);
  }
  out += end_line ? "],\n" : "],";
}

// Line 4 of a rule with a deps attribute: its deps and external repositories, or a select()
// whose config_setting branch has them all and whose default lacks the last rule dep.
void AppendDeps(std::string& out, const BazelGraph& graph, std::uint32_t r) {
  const RuleNode& rule = graph.rules[r];
  const auto deps = graph.DepsOf(r);
  std::vector<std::string> items;
  for (std::size_t i = 0; i < deps.size(); ++i) {
    if (!rule.select || i != rule.select_key) items.push_back(graph.RuleLabel(deps[i]));
  }
  std::vector<std::string> externals;
  for (std::uint32_t e : rule.external_deps) externals.push_back(graph.ExternalLabel(e));
  if (!rule.select) {
    items.insert(items.end(), externals.begin(), externals.end());
    AppendList(out, "deps", items);
    return;
  }
  const auto list = [&](std::vector<std::string> labels, bool drop_last) {
    if (drop_last && !labels.empty()) labels.pop_back();
    labels.insert(labels.end(), externals.begin(), externals.end());
    std::string text = "[";
    for (std::size_t i = 0; i < labels.size(); ++i) text += fmt::format("{}\"{}\"", i == 0 ? "" : ", ", labels[i]);
    return text + "]";
  };
  fmt::format_to(std::back_inserter(out), "    deps = select({{\"{}\": {}, \"//conditions:default\": {}}}),\n",
                 graph.RuleLabel(deps[rule.select_key]), list(items, false), list(items, true));
}

}  // namespace

SourceTreeOptions ReadSourceTreeOptions(ParamReader& reader, std::int64_t default_bytes) {
  SourceTreeOptions options;
  options.source_bytes = reader.Int("source_bytes", default_bytes, 0, std::int64_t{1} << 30);
  return options;
}

std::string RenderWorkspaceFile(const BazelGraph& graph) {
  // kWorkspaceHeaderLines lines, then kWorkspaceRepoLines per repository.
  std::string out = fmt::format(
      "workspace(name = \"{}\")\n\n"
      "load(\"@bazel_tools//tools/build_defs/repo:http.bzl\", \"http_archive\")\n\n",
      kWorkspaceName);
  for (const std::string& name : graph.externals) {
    fmt::format_to(std::back_inserter(out),
                   "http_archive(\n"
                   "    name = \"{0}\",\n"
                   "    urls = [\"https://example.com/{0}/{0}-1.0.tar.gz\"],\n"
                   "    strip_prefix = \"{0}-1.0\", sha256 = \"{1}\",\n"
                   ")\n\n",
                   name, ExternalSha256(graph, name));
  }
  return out;
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
  const PackageNode& package = graph.packages[p];
  std::string out = !package.has_defs      ? "\n\n"
                    : graph.starlark_rules ? "load(\":defs.bzl\", \"my_macro\", \"my_rule\")\n\n"
                                           : "load(\":defs.bzl\", \"my_macro\")\n\n";
  std::vector<std::string> items;
  for (std::uint32_t r = package.first_rule; r < package.first_rule + package.rule_count; ++r) {
    const RuleNode& rule = graph.rules[r];
    const std::string_view rule_class = RuleClasses()[rule.kind];
    // Exactly kBuildRuleLines lines per rule, with only the attributes its class has: a
    // genrule has no deps (its deps are srcs) and only a genrule has outs and cmd.
    if (rule.macro) {
      fmt::format_to(std::back_inserter(out), "my_macro(\n    name = \"mod{}\", kind = {},\n", rule.index, rule_class);
    } else {
      fmt::format_to(std::back_inserter(out), "{}(\n    name = \"mod{}\",\n", rule_class, rule.index);
    }
    items.clear();
    for (const SourceRef& src : rule.srcs) items.push_back(BazelGraph::SourceName(rule, src));
    if (HasDepsAttribute(rule.kind)) {
      AppendList(out, "srcs", items);
      AppendDeps(out, graph, r);
    } else if (rule.kind == kAlias) {
      fmt::format_to(std::back_inserter(out), "    actual = \"{}\",\n    # an alias of one rule\n",
                     graph.RuleLabel(graph.DepsOf(r)[0]));
    } else if (rule.kind == kConfigSetting) {
      fmt::format_to(std::back_inserter(out), "    values = {{\"define\": \"pe=mod{}\"}},\n    # no deps\n",
                     rule.index);
    } else {
      // A genrule and a filegroup name their deps in srcs.
      for (std::uint32_t dep : graph.DepsOf(r)) items.push_back(graph.RuleLabel(dep));
      for (std::uint32_t e : rule.external_deps) items.push_back(graph.ExternalLabel(e));
      AppendList(out, "srcs", items);
      if (rule.kind == kGenrule) {
        items.clear();
        for (std::uint32_t k = 0; k < rule.outs; ++k) items.push_back(BazelGraph::OutputName(rule, k));
        AppendList(out, "outs", items, false);
        out += " cmd = \"cat $(SRCS) > $@\",\n";
      } else {
        out += "    # no deps: a filegroup lists them in srcs\n";
      }
    }
    fmt::format_to(std::back_inserter(out), "    {} = {},\n", FlagAttribute(rule.kind), rule.flag ? "True" : "False");
    fmt::format_to(std::back_inserter(out), "    tags = [\"l{}\"],\n", package.layer);
    out += "    visibility = [\"//visibility:public\"],\n)\n\n";
  }
  if (package.has_group) {
    fmt::format_to(std::back_inserter(out), "package_group(\n    name = \"{}\",\n    packages = [\"//{}/...\"],\n)\n",
                   BazelGraph::kPackageGroupName, package.name);
  }
  return out;
}

void RenderSource(const BazelGraph& graph, const RuleNode& rule, const SourceRef& src, std::int64_t size,
                  std::string& out) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ ";
  const auto total = static_cast<std::size_t>(size);
  out = fmt::format("// //{}:{} v{}\n", graph.packages[rule.package].name, BazelGraph::SourceName(rule, src),
                    src.version);
  if (out.size() >= total) {
    out.resize(total);
    return;
  }
  Rng rng(graph.seed, Mix(Mix(kSourceStream, rule.package), Mix(rule.index, Mix(src.id, src.version))));
  const std::size_t header = out.size();
  out.resize(total);
  std::size_t column = 0;
  std::uint64_t bits = 0;
  int left = 0;
  for (std::size_t i = header; i < total; ++i) {
    if (column == 63) {
      out[i] = '\n';
      column = 0;
      continue;
    }
    if (left == 0) {
      bits = rng.Next();
      left = 10;  // 10 six-bit symbols per 64-bit draw
    }
    out[i] = kAlphabet[bits & 63];
    bits >>= 6;
    --left;
    ++column;
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

// One package's files, rendered into `content` (reused) and created relative to its directory.
void WritePackage(const BazelGraph& graph, const SourceTreeOptions& options, const std::filesystem::path& root,
                  std::uint32_t p, std::string& content) {
  const PackageNode& package = graph.packages[p];
  const OpenDirectory dir(root / package.name);
  dir.WriteFile("BUILD", RenderBuildFile(graph, p));
  if (package.has_defs) dir.WriteFile("defs.bzl", RenderDefsFile(graph.starlark_rules));
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
        for (std::uint32_t p = first; p < end; ++p) WritePackage(graph, options, root, p, content);
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

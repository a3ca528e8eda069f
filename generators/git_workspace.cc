// git_workspace: a real git repository whose commits rev0, rev1, ... hold the workspace of a
// layered graph at successive revisions. Each revision changes, removes and adds exact
// fractions of the rule sources of the one before (BUILD files follow the removals and
// additions), and carries its own query stream at .perfengine/query.pb, which the fixture's
// shim replays from whatever revision is checked out. Author, committer and dates are fixed,
// so the commit hashes are reproducible.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "generators/bazel_graph.h"
#include "generators/bazel_shim_install.h"
#include "generators/builtin_generators.h"
#include "generators/file_io.h"
#include "generators/query_proto.h"
#include "generators/rng.h"
#include "generators/source_tree.h"
#include "generators/subprocess.h"

namespace pe::gen {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kRevisionStream = 0x7265766973696f6e;  // "revision"
constexpr std::int64_t kEpoch = 1700000000;                    // 2023-11-14, any fixed instant
constexpr const char* kQueryPath = ".perfengine/query.pb";

struct Options {
  GraphOptions graph;
  SourceTreeOptions tree;
  ShimOptions shim;
  std::int64_t revisions = 2;
  double changed = 0.05;
  double added = 0.01;
  double removed = 0.01;
};

// Applies one revision's edits to the rule sources.
void Revise(BazelGraph& graph, const Options& options, std::uint32_t revision) {
  Rng rng(graph.seed, Mix(kRevisionStream, revision));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sources;  // (rule, position in srcs)
  for (std::uint32_t r = 0; r < graph.rules.size(); ++r) {
    for (std::uint32_t i = 0; i < graph.rules[r].srcs.size(); ++i) sources.emplace_back(r, i);
  }
  const auto n = static_cast<std::uint32_t>(sources.size());
  const auto count = [&](double fraction) { return static_cast<std::uint32_t>(std::llround(fraction * n)); };
  const std::uint32_t changed = count(options.changed);
  const std::uint32_t removed = std::min(count(options.removed), n - changed);
  const std::uint32_t added = count(options.added);
  for (std::uint32_t i = 0; i < changed + removed; ++i) {
    std::swap(sources[i], sources[i + rng.Below(n - i)]);
  }
  for (std::uint32_t i = 0; i < changed; ++i) {
    graph.rules[sources[i].first].srcs[sources[i].second].version = revision;
  }
  constexpr std::uint32_t kGone = ~std::uint32_t{0};
  for (std::uint32_t i = changed; i < changed + removed; ++i) {
    graph.rules[sources[i].first].srcs[sources[i].second].id = kGone;
  }
  for (auto& rule : graph.rules) {
    std::erase_if(rule.srcs, [](const SourceRef& src) { return src.id == kGone; });
  }
  for (std::uint32_t i = 0; i < added && !graph.rules.empty(); ++i) {
    RuleNode& rule = graph.rules[rng.Below(graph.rules.size())];
    rule.srcs.push_back({rule.next_source_id++, revision});
  }
}

void ClearWorkTree(const fs::path& repo) {
  for (const auto& entry : fs::directory_iterator(repo)) {
    if (entry.path().filename() != ".git") fs::remove_all(entry.path());
  }
}

class GitWorkspaceGenerator : public Generator {
 public:
  std::string_view Name() const override { return "git_workspace"; }
  std::string_view Description() const override {
    return "repo/: a git repository with the workspace at revisions tagged rev0, rev1, ...";
  }
  int Version() const override { return 2; }  // 2: what real Bazel 4.2.3 prints (bazel_4_2_3.h)
  void Check(const Params& params) const override { Read(params, 1); }
  std::string KeyExtra() const override { return ShimKeyExtra(); }

  void Generate(const Params& params, const Context& ctx) const override {
    Options options = Read(params, ctx.scale);
    options.shim.workspace_query_proto = kQueryPath;
    InstallShim(ctx.out_dir, options.shim);

    const fs::path repo = ctx.out_dir / "repo";
    fs::create_directories(repo);
    const std::map<std::string, std::string> base_env = {{"GIT_CONFIG_NOSYSTEM", "1"},
                                                         {"GIT_CONFIG_GLOBAL", "/dev/null"},
                                                         {"GIT_AUTHOR_NAME", "perfengine"},
                                                         {"GIT_AUTHOR_EMAIL", "fixtures@perfengine.invalid"},
                                                         {"GIT_COMMITTER_NAME", "perfengine"},
                                                         {"GIT_COMMITTER_EMAIL", "fixtures@perfengine.invalid"},
                                                         {"LC_ALL", "C"}};
    const std::vector<std::string> git = {
        "git", "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"};
    auto run = [&](std::vector<std::string> args, const std::map<std::string, std::string>& env) {
      std::vector<std::string> argv = git;
      argv.insert(argv.end(), args.begin(), args.end());
      return RunChecked(argv, repo, env);
    };
    run({"init", "-q", "-b", "main"}, base_env);

    BazelGraph graph = BuildGraph(options.graph, ctx.seed);
    nlohmann::ordered_json revisions = nlohmann::ordered_json::array();
    for (std::int64_t k = 0; k < options.revisions; ++k) {
      const auto revision = static_cast<std::uint32_t>(k);
      if (revision > 0) Revise(graph, options, revision);
      ClearWorkTree(repo);
      WriteSourceTree(graph, options.tree, repo);
      fs::create_directories(repo / ".perfengine");
      WriteQueryProto(graph, repo / kQueryPath);

      auto env = base_env;
      const std::string date = fmt::format("@{} +0000", kEpoch + k * 3600);
      env["GIT_AUTHOR_DATE"] = date;
      env["GIT_COMMITTER_DATE"] = date;
      const std::string tag = fmt::format("rev{}", k);
      run({"add", "-A", "."}, env);
      run({"commit", "-q", "--allow-empty", "-m", tag}, env);
      run({"tag", tag}, env);
      std::string commit = run({"rev-parse", "HEAD"}, env);
      while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) {
        commit.pop_back();
      }
      revisions.push_back({{"tag", tag}, {"commit", commit}});
    }
    // Leave the last revision checked out and the index clean, as after a fresh clone.
    WriteFile(ctx.out_dir / "revisions.json", revisions.dump(2) + "\n");
  }

 private:
  Options Read(const Params& params, double scale) const {
    ParamReader reader(Name(), params);
    Options options;
    options.graph = ReadGraphOptions(reader, scale, 4800);
    options.tree = ReadSourceTreeOptions(reader, options.graph.shape.source_bytes);
    options.shim = ReadShimOptions(reader);
    options.revisions = reader.Int("revisions", options.revisions, 1, 1000);
    options.changed = reader.Fraction("changed", options.changed);
    options.added = reader.Fraction("added", options.added);
    options.removed = reader.Fraction("removed", options.removed);
    reader.Finish();
    if (options.changed + options.removed > 1) {
      throw ParamError("removed", "'changed' + 'removed' must not exceed 1");
    }
    return options;
  }
};

}  // namespace

std::unique_ptr<Generator> MakeGitWorkspaceGenerator() { return std::make_unique<GitWorkspaceGenerator>(); }

}  // namespace pe::gen

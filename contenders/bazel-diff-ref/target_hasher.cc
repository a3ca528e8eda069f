#include "target_hasher.h"

#include <algorithm>
#include <string>

#include "error.h"
#include "parallel.h"

namespace pe::refdiff {
namespace {

// Files per batch (each is a read plus a hash), targets per batch (a hash each).
constexpr std::size_t kFileBatch = 64;
constexpr std::size_t kTargetBatch = 256;
// A dependency level smaller than this is hashed on the calling thread: deep, narrow graphs have
// thousands of one-target levels, where waking threads would cost more than the hashing.
constexpr std::size_t kParallelLevel = 1024;

// Where upstream looks for a frame's file: softDigest(BazelSourceFileTarget("//" + path)) reads
// Paths.get(workspace, path) (SourceFileHasher.kt:130-145), so an absolute frame resolves under
// the workspace too ("/out/external/r/defs.bzl" -> workspace/out/external/r/defs.bzl), where
// it is almost never found.
std::filesystem::path BzlPath(const std::filesystem::path& workspace, std::string_view file) {
  while (file.starts_with('/')) file.remove_prefix(1);
  return workspace / file;
}

// Every distinct .bzl file any rule names, sorted, and its content digest. A file that is not a
// regular file under the workspace has none: upstream's softDigest returns null for it, and
// ruleBzlSeed then hashes neither its path nor a digest (RuleHasher.kt:50-60).
struct BzlDigests {
  std::vector<std::string_view> files;
  std::vector<Digest> digests;
  std::vector<char> found;

  // The file's digest, or nullptr when upstream would skip it.
  const Digest* Of(std::string_view file) const {
    auto it = std::lower_bound(files.begin(), files.end(), file);
    const auto i = static_cast<std::size_t>(it - files.begin());
    return found[i] ? &digests[i] : nullptr;
  }
};

BzlDigests HashBzlFiles(const TargetGraph& graph, const HashOptions& options) {
  BzlDigests bzl;
  for (const Target& target : graph.targets()) {
    for (const std::string& file : target.bzl_files) bzl.files.push_back(file);
  }
  std::sort(bzl.files.begin(), bzl.files.end());
  bzl.files.erase(std::unique(bzl.files.begin(), bzl.files.end()), bzl.files.end());
  bzl.digests.resize(bzl.files.size());
  bzl.found.resize(bzl.files.size());
  ParallelFor(bzl.files.size(), kFileBatch, options.threads, [&](std::size_t begin, std::size_t end) {
    Sha256 hasher;
    for (std::size_t i = begin; i < end; ++i) {
      bzl.found[i] = HashFile(BzlPath(options.workspace, bzl.files[i]), hasher, bzl.digests[i]) ? 1 : 0;
    }
  });
  return bzl;
}

// A source file's digest, as upstream's SourceFileHasher makes it: the content, a byte saying it
// exists, a byte for the owner-execute bit (git tracks only that one), then its seed (name and
// subincludes, when it has any) and label. A missing file: a byte saying so; a directory: none.
Digest HashSource(const Target& target, const HashOptions& options, Sha256& hasher) {
  bool owner_exec = false;
  std::filesystem::path path = SourcePath(options.workspace, target.label);
  if (!path.empty() && HashFileInto(path, hasher, owner_exec)) {
    hasher.Update(std::string_view("\x01", 1))
        .Update(owner_exec ? std::string_view("\x01", 1) : std::string_view("\x00", 1));
  } else if (std::error_code ec; path.empty() || !std::filesystem::exists(path, ec)) {
    hasher.Update(std::string_view("\x00", 1));
  }
  // A directory (or anything else that is there but not a file): no byte at all, as upstream's
  // `if (file.exists()) { if (file.isFile) {...} } else { 0x00 }` (SourceFileHasher.kt:107-123).
  static const Digest kNoSeed{};
  if (target.rule_body != kNoSeed) hasher.Update(target.rule_body);
  return hasher.Field(target.label).Finish();
}

// Direct hashes of source files, then of rules, whose direct hash takes in the digests of the
// source files among their inputs (upstream's RuleHasher puts them in the direct digest, so a
// rule whose own source changed is impacted at distance 0). Generated files take their rule's
// later.
void HashDirect(const TargetGraph& graph, const HashOptions& options, const BzlDigests& bzl,
                std::vector<HashedTarget>& out) {
  ParallelFor(graph.size(), kFileBatch, options.threads, [&](std::size_t begin, std::size_t end) {
    Sha256 hasher;
    for (std::size_t i = begin; i < end; ++i) {
      const Target& target = graph.targets()[i];
      if (target.kind == TargetKind::kSourceFile) out[i].direct = HashSource(target, options, hasher);
    }
  });
  ParallelFor(graph.size(), kTargetBatch, options.threads, [&](std::size_t begin, std::size_t end) {
    Sha256 hasher;
    for (std::size_t i = begin; i < end; ++i) {
      const Target& target = graph.targets()[i];
      if (target.kind != TargetKind::kRule) continue;
      hasher.Update(target.rule_body);
      for (const std::string& file : target.bzl_files) {
        if (const Digest* digest = bzl.Of(file)) hasher.Field(file).Update(*digest);
      }
      for (const auto& input : graph.inputs(i)) {
        hasher.Field(input.label);
        if (input.target >= 0 && graph.targets()[input.target].kind == TargetKind::kSourceFile) {
          hasher.Update(out[input.target].direct);
        }
      }
      out[i].direct = hasher.Finish();
    }
  });
}

void HashTransitive(const TargetGraph& graph, std::size_t i, Sha256& hasher, std::vector<HashedTarget>& out) {
  const Target& target = graph.targets()[i];
  if (target.kind == TargetKind::kGeneratedFile) {
    std::int32_t rule = graph.inputs(i).empty() ? -1 : graph.inputs(i)[0].target;
    if (rule >= 0) {
      out[i].direct = out[rule].direct;
      out[i].transitive = out[rule].transitive;
    } else {
      // The generating rule is not in the query result: all we know is its name.
      out[i].direct = out[i].transitive = hasher.Field(target.inputs[0]).Finish();
    }
    return;
  }
  if (target.kind == TargetKind::kSourceFile) {
    out[i].transitive = out[i].direct;  // "X~X", as upstream writes source files
    return;
  }
  // The direct hash already names every input and holds the source files' digests; here go the
  // transitive hashes of the rules and generated files it depends on.
  hasher.Update(out[i].direct);
  for (const auto& input : graph.inputs(i)) {
    if (input.target < 0 || graph.targets()[input.target].kind == TargetKind::kSourceFile) continue;
    hasher.Field(input.label).Update(out[input.target].transitive);
  }
  out[i].transitive = hasher.Finish();
}

// Called when Kahn's algorithm leaves targets unprocessed: each of them waits on another
// unprocessed one, so walking those waits from any of them must come back round.
[[noreturn]] void ReportCycle(const TargetGraph& graph, const std::vector<std::size_t>& pending) {
  std::size_t start = 0;
  while (pending[start] == 0) ++start;
  std::vector<std::size_t> order(graph.size(), 0);  // 1-based position on the walk, 0 = unvisited
  std::vector<std::size_t> walk;
  std::size_t at = start;
  while (order[at] == 0) {
    order[at] = walk.size() + 1;
    walk.push_back(at);
    for (const auto& input : graph.inputs(at)) {
      if (input.target >= 0 && pending[input.target] > 0) {
        at = static_cast<std::size_t>(input.target);
        break;
      }
    }
  }
  std::string cycle;
  for (std::size_t k = order[at] - 1; k < walk.size(); ++k) cycle += graph.targets()[walk[k]].label + " -> ";
  cycle += graph.targets()[at].label;
  throw RefDiffError("query output has a dependency cycle: " + cycle);
}

}  // namespace

std::filesystem::path SourcePath(const std::filesystem::path& workspace, std::string_view label) {
  // The main repository may be spelled //, @// or @@//.
  if (label.starts_with("@@//"))
    label.remove_prefix(2);
  else if (label.starts_with("@//"))
    label.remove_prefix(1);
  if (!label.starts_with("//") || label.starts_with("//external:")) return {};
  label.remove_prefix(2);
  std::size_t colon = label.find(':');
  std::string_view package = colon == std::string_view::npos ? label : label.substr(0, colon);
  std::string_view name;
  if (colon != std::string_view::npos) {
    name = label.substr(colon + 1);
  } else {
    std::size_t slash = package.rfind('/');
    name = slash == std::string_view::npos ? package : package.substr(slash + 1);
  }
  std::filesystem::path path = workspace;
  if (!package.empty()) path /= std::filesystem::path(package);
  return path / std::filesystem::path(name);
}

std::vector<HashedTarget> HashTargets(const TargetGraph& graph, const HashOptions& options) {
  std::vector<HashedTarget> out(graph.size());
  for (std::size_t i = 0; i < graph.size(); ++i) {
    out[i].label = graph.targets()[i].label;
    out[i].kind = graph.targets()[i].kind;
  }
  BzlDigests bzl = HashBzlFiles(graph, options);
  HashDirect(graph, options, bzl, out);

  // Kahn's algorithm: a target is ready once all the targets it depends on are hashed.
  std::vector<std::size_t> pending(graph.size(), 0);
  std::vector<std::size_t> dependent_offsets(graph.size() + 1, 0);
  for (std::size_t i = 0; i < graph.size(); ++i) {
    for (const auto& input : graph.inputs(i)) {
      if (input.target < 0) continue;
      ++pending[i];
      ++dependent_offsets[input.target + 1];
    }
  }
  for (std::size_t i = 0; i < graph.size(); ++i) dependent_offsets[i + 1] += dependent_offsets[i];
  std::vector<std::size_t> dependents(dependent_offsets.back());
  {
    std::vector<std::size_t> fill(dependent_offsets.begin(), dependent_offsets.end() - 1);
    for (std::size_t i = 0; i < graph.size(); ++i) {
      for (const auto& input : graph.inputs(i)) {
        if (input.target >= 0) dependents[fill[input.target]++] = i;
      }
    }
  }

  std::vector<std::size_t> level;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    if (pending[i] == 0) level.push_back(i);
  }
  std::size_t done = 0;
  std::vector<std::size_t> next;
  Sha256 hasher;
  while (!level.empty()) {
    if (level.size() < kParallelLevel) {
      for (std::size_t i : level) HashTransitive(graph, i, hasher, out);
    } else {
      ParallelFor(level.size(), kTargetBatch, options.threads, [&](std::size_t begin, std::size_t end) {
        Sha256 worker_hasher;
        for (std::size_t k = begin; k < end; ++k) HashTransitive(graph, level[k], worker_hasher, out);
      });
    }
    done += level.size();
    next.clear();
    for (std::size_t i : level) {
      for (std::size_t d = dependent_offsets[i]; d < dependent_offsets[i + 1]; ++d) {
        if (--pending[dependents[d]] == 0) next.push_back(dependents[d]);
      }
    }
    level.swap(next);
  }
  if (done != graph.size()) ReportCycle(graph, pending);
  return out;
}

}  // namespace pe::refdiff

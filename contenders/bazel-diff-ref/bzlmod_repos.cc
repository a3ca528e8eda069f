#include "bzlmod_repos.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>

#include "build.pb.h"
#include "digest.h"
#include "error.h"
#include "query_stream.h"
#include "repository.pb.h"

namespace pe::refdiff {
namespace {

bool StartsWith(std::string_view text, std::string_view prefix) { return text.starts_with(prefix); }

// JsonParser.parseString, then from the first '{' when that fails (ModuleGraphParser.kt:31-38).
std::optional<nlohmann::json> ParseObject(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) {
    std::size_t start = text.find('{');
    if (start == std::string::npos) return std::nullopt;
    json = nlohmann::json::parse(text.substr(start), nullptr, false);
  }
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  return json;
}

// ModuleGraphParser.extractDepEdges: every `dependencies` array seen, unexpanded ones included.
void ExtractDepEdges(const nlohmann::json& object, std::map<std::string, std::vector<std::string>>& edges) {
  auto name = object.find("name");
  if (name == object.end() || !name->is_string()) return;
  auto deps = object.find("dependencies");
  if (deps == object.end() || !deps->is_array()) return;
  std::vector<std::string>& collected = edges[name->get<std::string>()];
  for (const auto& dep : *deps) {
    if (!dep.is_object()) continue;
    auto dep_name = dep.find("name");
    if (dep_name == dep.end() || !dep_name->is_string()) continue;
    const std::string value = dep_name->get<std::string>();
    if (std::find(collected.begin(), collected.end(), value) == collected.end()) collected.push_back(value);
    ExtractDepEdges(dep, edges);
  }
}

void AppendVarint(std::string& out, std::size_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

}  // namespace

bool CanUseShowRepo(const std::vector<int>& version) {
  static const std::vector<int> kFirst = {8, 6, 0};
  if (std::lexicographical_compare(version.begin(), version.end(), kFirst.begin(), kFirst.end())) return false;
  return version != std::vector<int>{9, 0, 0};
}

RepoMapping ParseRepoMapping(const std::string& output) {
  RepoMapping mapping;
  std::size_t begin = 0;
  while (begin < output.size()) {
    std::size_t end = output.find('\n', begin);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(begin, end - begin);
    begin = end + 1;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(line, nullptr, false);
    if (json.is_discarded() || !json.is_object()) return {};
    for (const auto& [apparent, value] : json.items()) {
      if (!value.is_string()) return {};
      const std::string canonical = value.get<std::string>();
      if (apparent.empty() || canonical.empty() || StartsWith(canonical, "bazel_tools") ||
          StartsWith(canonical, "_builtins") || StartsWith(canonical, "local_config_") ||
          StartsWith(canonical, "rules_java_builtin") || apparent == "bazel_tools" ||
          apparent == "local_config_platform") {
        continue;
      }
      auto same =
          std::find_if(mapping.begin(), mapping.end(), [&](const auto& entry) { return entry.first == apparent; });
      if (same != mapping.end()) {
        same->second = canonical;
      } else {
        mapping.emplace_back(apparent, canonical);
      }
    }
  }
  return mapping;
}

std::vector<std::string> ShowRepoArguments(const RepoMapping& mapping) {
  std::vector<std::string> arguments;
  for (const auto& [apparent, canonical] : mapping) {
    if (canonical.find_first_of("+~") == std::string::npos) continue;
    std::string argument = "@@" + canonical;
    if (std::find(arguments.begin(), arguments.end(), argument) == arguments.end()) arguments.push_back(argument);
  }
  return arguments;
}

std::map<std::string, std::vector<std::string>> ModuleDepEdges(const std::string& json) {
  std::optional<nlohmann::json> root = ParseObject(json);
  if (!root) return {};
  std::map<std::string, std::vector<std::string>> edges;
  ExtractDepEdges(*root, edges);
  // ModuleGraphParser.breakCycles: nodes and their edges in name order; an edge to a node on
  // the current path closes a cycle and is dropped.
  std::map<std::string, std::vector<std::string>> result;
  std::set<std::string> visited, on_path;
  std::function<void(const std::string&)> visit = [&](const std::string& node) {
    if (visited.contains(node)) return;
    on_path.insert(node);
    std::vector<std::string> targets;
    if (auto it = edges.find(node); it != edges.end()) targets = it->second;
    std::sort(targets.begin(), targets.end());
    std::vector<std::string> kept;
    for (const std::string& target : targets) {
      if (on_path.contains(target)) continue;
      kept.push_back(target);
      visit(target);
    }
    result[node] = std::move(kept);
    on_path.erase(node);
    visited.insert(node);
  };
  for (const auto& entry : edges) visit(entry.first);
  return result;
}

std::optional<std::string> LocalRepoContentHash(const std::filesystem::path& directory) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) return std::nullopt;
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  for (auto it = std::filesystem::recursive_directory_iterator(directory, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file(error) || it->path().filename() == "MODULE.bazel.lock") continue;
    files.emplace_back(it->path().lexically_relative(directory).generic_string(), it->path());
  }
  if (error) return std::nullopt;
  std::sort(files.begin(), files.end());
  Sha256 hasher;
  for (const auto& [relative, path] : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    hasher.Update(relative).Update(std::string_view("\0", 1)).Update(contents).Update(std::string_view("\0", 1));
  }
  return ToHex(hasher.Finish());
}

std::string SyntheticRepoTargets(std::string_view show_repo_stream, const RepoMapping& mapping,
                                 const std::optional<std::string>& module_graph_json,
                                 const std::filesystem::path& workspace) {
  std::vector<blaze_query::Repository> repos;
  for (const Frame& frame : SplitFrames(show_repo_stream)) {
    blaze_query::Repository& repo = repos.emplace_back();
    if (!repo.ParseFromArray(show_repo_stream.data() + frame.offset, static_cast<int>(frame.size))) {
      throw RefDiffError("'bazel mod show_repo' printed a repository that does not decode at byte " +
                         std::to_string(frame.offset));
    }
  }
  const auto edges =
      module_graph_json ? ModuleDepEdges(*module_graph_json) : std::map<std::string, std::vector<std::string>>();
  auto plus_count = [](const std::string& name) { return std::count(name.begin(), name.end(), '+'); };
  // A module's repository is "<module>+" or "<module>+<version>": exactly one '+'.
  std::map<std::string, std::string> module_to_canonical;
  for (const auto& repo : repos) {
    if (plus_count(repo.canonical_name()) == 1) {
      module_to_canonical[repo.canonical_name().substr(0, repo.canonical_name().find('+'))] = repo.canonical_name();
    }
  }
  std::map<std::string, std::vector<std::string>> canonical_to_apparent;
  for (const auto& [apparent, canonical] : mapping) canonical_to_apparent[canonical].push_back(apparent);

  std::string stream;
  for (const auto& repo : repos) {
    std::set<std::string> deps;  // sorted, as upstream's toSortedSet
    if (plus_count(repo.canonical_name()) == 1) {
      auto it = edges.find(repo.canonical_name().substr(0, repo.canonical_name().find('+')));
      if (it != edges.end()) {
        for (const std::string& module : it->second) {
          auto canonical = module_to_canonical.find(module);
          if (canonical == module_to_canonical.end()) continue;
          auto apparent = canonical_to_apparent.find(canonical->second);
          if (apparent != canonical_to_apparent.end()) deps.insert(apparent->second.begin(), apparent->second.end());
        }
      }
    }
    std::optional<std::string> content_hash;
    if (repo.repo_rule_name() == "local_repository") {
      for (const auto& attribute : repo.attribute()) {
        if (attribute.name() != "path" || attribute.type() != blaze_query::Attribute::STRING) continue;
        if (attribute.string_value().empty()) break;
        std::filesystem::path path(attribute.string_value());
        content_hash = LocalRepoContentHash(path.is_absolute() ? path : workspace / path);
        break;
      }
    }
    std::vector<std::string> names;
    if (auto it = canonical_to_apparent.find(repo.canonical_name()); it != canonical_to_apparent.end()) {
      names = it->second;
    } else {
      names.push_back(repo.canonical_name());  // no apparent name: upstream falls back to the canonical one
    }
    for (const std::string& name : names) {
      blaze_query::Target target;
      target.set_type(blaze_query::Target::RULE);
      blaze_query::Rule* rule = target.mutable_rule();
      rule->set_name("//external:" + name);
      rule->set_rule_class(repo.repo_rule_name().empty() ? "bzlmod_repo" : repo.repo_rule_name());
      for (const auto& attribute : repo.attribute()) *rule->add_attribute() = attribute;
      if (content_hash) {
        blaze_query::Attribute* attribute = rule->add_attribute();
        attribute->set_name("_bazel_diff_content_hash");
        attribute->set_type(blaze_query::Attribute::STRING);
        attribute->set_string_value(*content_hash);
      }
      for (const std::string& dep : deps) {
        if (dep != name) rule->add_rule_input("//external:" + dep);
      }
      const std::string bytes = target.SerializeAsString();
      AppendVarint(stream, bytes.size());
      stream += bytes;
    }
  }
  return stream;
}

void AppendSyntheticTargets(std::vector<Target>& targets, std::string_view synthetic_stream, int threads) {
  if (synthetic_stream.empty()) return;
  std::vector<Target> synthetic = DecodeTargets(synthetic_stream, threads);
  std::unordered_set<std::string> labels;
  for (const Target& target : targets) {
    if (target.label.starts_with("//external:")) labels.insert(target.label);
  }
  for (Target& target : synthetic) {
    if (labels.insert(target.label).second) targets.push_back(std::move(target));
  }
}

std::vector<Target> DecodeQueryResult(QueryResult& query, int threads) {
  std::vector<Target> targets = DecodeTargets(query.stream, threads);
  query.stream = std::string();  // the decoded targets replace it; give the memory back
  AppendSyntheticTargets(targets, query.synthetic_stream, threads);
  query.synthetic_stream = std::string();
  return targets;
}

}  // namespace pe::refdiff

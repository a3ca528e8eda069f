#include "generators/bzlmod_fixture.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <nlohmann/json.hpp>

#include "generators/file_io.h"

namespace pe::gen {
namespace {

// The protobuf wire format, written by hand as query_proto.cc writes Targets (pe_generators does
// not link protobuf). Field numbers: proto/repository.proto and Bazel's build.proto Attribute.
void Varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void Bytes(std::string& out, std::uint32_t field, std::string_view bytes) {
  Varint(out, (field << 3) | 2);
  Varint(out, bytes.size());
  out.append(bytes);
}

void Uint(std::string& out, std::uint32_t field, std::uint64_t value) {
  Varint(out, field << 3);
  Varint(out, value);
}

namespace repository {
constexpr std::uint32_t kCanonicalName = 1, kRepoRuleName = 2, kRepoRuleBzlLabel = 3, kAttribute = 7;
}  // namespace repository
namespace attribute {
constexpr std::uint32_t kName = 1, kType = 2, kStringValue = 5, kStringListValue = 6, kExplicitlySpecified = 13;
constexpr std::uint32_t kString = 2, kStringList = 5;
}  // namespace attribute

std::string StringAttribute(std::string_view name, std::string_view value) {
  std::string out;
  Bytes(out, attribute::kName, name);
  Uint(out, attribute::kType, attribute::kString);
  Bytes(out, attribute::kStringValue, value);
  Uint(out, attribute::kExplicitlySpecified, 1);
  return out;
}

std::string StringListAttribute(std::string_view name, std::string_view value) {
  std::string out;
  Bytes(out, attribute::kName, name);
  Uint(out, attribute::kType, attribute::kStringList);
  Bytes(out, attribute::kStringListValue, value);
  Uint(out, attribute::kExplicitlySpecified, 1);
  return out;
}

constexpr std::string_view kRepoRulesPrefix = "+_repo_rules+";

}  // namespace

StreamShape ReadStreamShape(ParamReader& reader) {
  const std::string value = reader.String("stream", "workspace");
  if (value == "workspace") return StreamShape::kWorkspace;
  if (value == "bzlmod") return StreamShape::kBzlmod;
  throw ParamError("stream", fmt::format("'stream' must be \"workspace\" or \"bzlmod\", not \"{}\"", value));
}

std::string CanonicalRepoName(std::string_view apparent) {
  return std::string(kRepoRulesPrefix) + std::string(apparent);
}

RepoMapping RootRepoMapping(const BazelGraph& graph) {
  RepoMapping mapping = {{"", ""}, {"bazel_tools", "bazel_tools"}, {std::string(kWorkspaceName), ""}};
  for (const std::string& name : graph.externals) mapping.emplace_back(name, CanonicalRepoName(name));
  std::sort(mapping.begin(), mapping.end());
  return mapping;
}

std::string RepoMappingJson(const RepoMapping& mapping) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const auto& [apparent, canonical] : mapping) json[apparent] = canonical;
  return json.dump();
}

std::string DisplayLabel(std::string_view canonical, std::string_view rest, const RepoMapping& root) {
  if (canonical.empty()) return std::string(rest);
  for (const auto& [apparent, mapped] : root) {
    if (!apparent.empty() && mapped == canonical) return "@" + apparent + std::string(rest);
  }
  return "@@" + std::string(canonical) + std::string(rest);
}

std::string DisplayLabel(std::string_view recorded_label, const RepoMapping& root) {
  if (!recorded_label.starts_with("@")) return std::string(recorded_label);
  std::string_view label = recorded_label;
  label.remove_prefix(label.starts_with("@@") ? 2 : 1);
  const std::size_t slashes = label.find("//");
  if (slashes == std::string_view::npos) return std::string(recorded_label);
  return DisplayLabel(label.substr(0, slashes), label.substr(slashes), root);
}

void WriteRepositories(const BazelGraph& graph, const std::filesystem::path& path) {
  std::string out;
  for (const std::string& name : graph.externals) {
    const std::string canonical = CanonicalRepoName(name);
    std::string message;
    Bytes(message, repository::kCanonicalName, canonical);
    Bytes(message, repository::kRepoRuleName, "http_archive");
    Bytes(message, repository::kRepoRuleBzlLabel, "@@bazel_tools//tools/build_defs/repo:http.bzl");
    // The attributes the MODULE.bazel call sets, by name; the repository's name is canonical.
    Bytes(message, repository::kAttribute, StringAttribute("name", canonical));
    Bytes(message, repository::kAttribute, StringAttribute("sha256", ExternalSha256(graph, name)));
    Bytes(message, repository::kAttribute, StringAttribute("strip_prefix", name + "-1.0"));
    Bytes(message, repository::kAttribute,
          StringListAttribute("urls", fmt::format("https://example.com/{0}/{0}-1.0.tar.gz", name)));
    Varint(out, message.size());
    out += message;
  }
  WriteFile(path, out);
}

std::string RenderModuleFile(const BazelGraph& graph) {
  return fmt::format(
             "module(name = \"{}\")\n\n"
             "http_archive = use_repo_rule(\"@bazel_tools//tools/build_defs/repo:http.bzl\", \"http_archive\")\n\n",
             kWorkspaceName) +
         HttpArchiveCalls(graph);
}

}  // namespace pe::gen

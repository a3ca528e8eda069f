#include "generators/shim/shim.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace pe::shim {
namespace {

namespace fs = std::filesystem;

void Write(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string Joined(const std::vector<std::string>& args) {
  std::string text = "bazel";
  for (const auto& arg : args) text += " " + arg;
  return text;
}

int Unsupported(const std::vector<std::string>& args, std::string_view why) {
  Write(2, "perfengine-bazel-shim: unsupported call: " + Joined(args) + " (" + std::string(why) + ")\n");
  return kUnsupported;
}

bool IsOption(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

// Copies the whole of `from` to the open descriptor `to`.
bool CopyTo(const fs::path& from, int to, std::string& error) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    error = "cannot read " + from.string() + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  ::fstat(in, &st);
  off_t left = st.st_size;
  bool ok = true;
  while (left > 0) {
    const ssize_t n = ::sendfile(to, in, nullptr, static_cast<std::size_t>(left));
    if (n > 0) {
      left -= n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EINVAL || errno == ENOSYS)) {
      // sendfile cannot write to this descriptor: fall back to read/write.
      char buffer[1 << 16];
      ssize_t got = 0;
      while ((got = ::read(in, buffer, sizeof buffer)) > 0) {
        Write(to, std::string_view(buffer, static_cast<std::size_t>(got)));
      }
      left = 0;
      break;
    }
    error = "cannot copy " + from.string() + ": " + std::strerror(errno);
    ok = false;
    break;
  }
  ::close(in);
  return ok;
}

std::optional<fs::path> FindWorkspaceRoot() {
  std::error_code ec;
  fs::path dir = fs::current_path(ec);
  if (ec) return std::nullopt;
  for (;;) {
    for (const char* marker : {"WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel"}) {
      if (fs::exists(dir / marker, ec)) return dir;
    }
    if (dir == dir.root_path()) return std::nullopt;
    dir = dir.parent_path();
  }
}

int Info(const Config& config, const std::vector<std::string>& args, std::size_t at,
         const std::optional<std::string>& output_base_override) {
  std::vector<std::string> keys;
  for (std::size_t i = at; i < args.size(); ++i) {
    if (!IsOption(args[i])) keys.push_back(args[i]);
  }
  if (keys.size() != 1 || keys[0] != "output_base") {
    return Unsupported(args, "only `info output_base` is recorded");
  }
  const fs::path base = output_base_override ? fs::absolute(*output_base_override) : config.output_base;
  Write(1, base.string() + "\n");
  return 0;
}

// What a release of `config.bazel_version` prints (built with --stamp --embed_label), built at time
// 0: the build target is the server's deploy jar as singlejar names it (build.target, Bazel
// 4.2.3's src/tools/singlejar/output_jar.cc; 6.0.0 prints it so too), its label from 7.0.0; the
// build time as Bazel's JavaBuildInfoFactory formats it, the timestamps in seconds.
int Version(const Config& config) {
  const char* target =
      VersionAtLeast(config.bazel_version, {7, 0, 0})
          ? "@@//src/main/java/com/google/devtools/build/lib/bazel:BazelServer"
          : "bazel-out/k8-opt/bin/src/main/java/com/google/devtools/build/lib/bazel/BazelServer_deploy.jar";
  Write(1, "Build label: " + config.bazel_version + "\nBuild target: " + target +
               "\n"
               "Build time: Thu Jan 1 00:00:00 1970 (0)\n"
               "Build timestamp: 0\n"
               "Build timestamp as int: 0\n");
  return 0;
}

// Reads a base-128 varint at `at`; false when it runs past the end.
bool ReadVarint(std::string_view bytes, std::size_t& at, std::uint64_t& value) {
  value = 0;
  for (int shift = 0; at < bytes.size() && shift < 64; shift += 7) {
    const auto byte = static_cast<unsigned char>(bytes[at++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// The recorded Repository messages by canonical_name (field 1), each with its length prefix, so
// the shim needs no protobuf library. Throws std::runtime_error for a malformed recording.
std::vector<std::pair<std::string, std::string_view>> RecordedRepositories(std::string_view stream) {
  std::vector<std::pair<std::string, std::string_view>> repositories;
  std::size_t at = 0;
  while (at < stream.size()) {
    const std::size_t start = at;
    std::uint64_t size = 0;
    if (!ReadVarint(stream, at, size) || size > stream.size() - at) {
      throw std::runtime_error("repos.pb is truncated at byte " + std::to_string(start));
    }
    const std::string_view message = stream.substr(at, size);
    at += size;
    std::string canonical;
    for (std::size_t field = 0; field < message.size();) {
      std::uint64_t tag = 0, length = 0;
      if (!ReadVarint(message, field, tag)) break;
      if ((tag & 7) == 0) {
        ReadVarint(message, field, length);
        continue;
      }
      if ((tag & 7) != 2 || !ReadVarint(message, field, length) || length > message.size() - field) break;
      if ((tag >> 3) == 1) canonical.assign(message.substr(field, length));
      field += length;
    }
    repositories.emplace_back(std::move(canonical), stream.substr(start, at - start));
  }
  return repositories;
}

// `mod dump_repo_mapping ""`: the root module's mapping, one JSON object per repository asked.
int DumpRepoMapping(const Config& config, const std::vector<std::string>& args, std::size_t at) {
  nlohmann::ordered_json mapping = nlohmann::ordered_json::object();
  if (config.repo_mapping.empty()) {
    mapping[""] = "";
    mapping["bazel_tools"] = "bazel_tools";
  }
  for (const auto& [apparent, canonical] : config.repo_mapping) mapping[apparent] = canonical;
  std::string out;
  for (std::size_t i = at; i < args.size(); ++i) {
    if (IsOption(args[i])) continue;
    if (!args[i].empty()) return Unsupported(args, "only the root module's mapping (\"\") is recorded");
    out += mapping.dump() + "\n";
  }
  Write(1, out);
  return 0;
}

// `mod show_repo @@<canonical>... --output=streamed_proto`: the recorded messages, in argument order.
int ShowRepo(const Config& config, const std::vector<std::string>& args, std::size_t at) {
  std::optional<std::string> output;
  std::vector<std::string> repos;
  for (std::size_t i = at; i < args.size(); ++i) {
    if (args[i] == "--output" && i + 1 < args.size()) {
      output = args[++i];
    } else if (args[i].rfind("--output=", 0) == 0) {
      output = args[i].substr(9);
    } else if (!IsOption(args[i])) {
      repos.push_back(args[i]);
    }
  }
  if (output == "streamed_proto" && !HasShowRepoProto(config.bazel_version)) {
    // The mod command's --output is an enum option: before 8.6.0 it has no streamed_proto.
    Write(2,
          "ERROR: While parsing option --output=streamed_proto: Not a valid output format: "
          "'streamed_proto' (should be text, json or graph)\n");
    return 2;
  }
  if (output != "streamed_proto") return Unsupported(args, "only `mod show_repo --output=streamed_proto` is recorded");
  std::string stream;
  if (!config.repos_proto.empty()) {
    std::ifstream in(config.repos_proto, std::ios::binary);
    if (!in) {
      Write(2, "ERROR: cannot read " + config.repos_proto.string() + "\n");
      return 2;
    }
    stream.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto recorded = RecordedRepositories(stream);
  std::string out;
  for (const std::string& repo : repos) {
    auto found = recorded.end();
    if (repo.rfind("@@", 0) == 0) {
      found =
          std::find_if(recorded.begin(), recorded.end(), [&](const auto& entry) { return "@@" + entry.first == repo; });
    } else {
      return Unsupported(args, "only canonical names (@@name) are recorded");
    }
    if (found == recorded.end()) {
      // ModCommand's INVALID_ARGUMENTS answer for a repository it cannot resolve.
      Write(2, "ERROR: In repo argument " + repo + ": no such repo\n");
      return 2;
    }
    out += found->second;
  }
  Write(1, out);
  return 0;
}

int Mod(const Config& config, const std::vector<std::string>& args, std::size_t at) {
  if (!HasModCommand(config.bazel_version)) {
    // Bazel's answer to a command it does not have (4.2.3, the version the stream is from).
    Write(2, "Command 'mod' not found. Try 'bazel help'.\n");
    return 2;
  }
  std::size_t i = at;
  while (i < args.size() && IsOption(args[i])) ++i;
  const std::string subcommand = i < args.size() ? args[i] : "";
  if (subcommand == "dump_repo_mapping" && !HasDumpRepoMapping(config.bazel_version)) {
    Write(2, "ERROR: Invalid subcommand: dump_repo_mapping. Type 'bazel help mod' for syntax and help.\n");
    return 2;
  }
  if (subcommand != "graph" && subcommand != "dump_repo_mapping" && subcommand != "show_repo") {
    return Unsupported(args, "only `mod graph`, `mod dump_repo_mapping` and `mod show_repo` are recorded");
  }
  if (!config.bzlmod) {
    Write(2,
          "ERROR: Bzlmod has to be enabled for mod command to work, run with "
          "--enable_bzlmod\n");
    return 2;
  }
  if (subcommand == "dump_repo_mapping") return DumpRepoMapping(config, args, i + 1);
  if (subcommand == "show_repo") return ShowRepo(config, args, i + 1);
  for (std::size_t k = i + 1; k < args.size(); ++k) {
    if (args[k] == "--output=json" || (args[k] == "--output" && k + 1 < args.size() && args[k + 1] == "json")) {
      // The shape of `bazel mod graph --output=json`: the root module and its dependencies.
      Write(1,
            "{\n  \"key\": \"<root>\",\n  \"name\": \"perfengine_fixture\",\n  \"version\": \"\",\n"
            "  \"apparentName\": \"perfengine_fixture\",\n  \"dependencies\": []\n}\n");
      return 0;
    }
  }
  Write(1, "<root> (perfengine_fixture@_)\n");
  return 0;
}

// "7.4.1" -> {7, 4, 1}; a label that is not a version (a development build) -> {}.
std::vector<int> VersionParts(const std::string& label) {
  std::vector<int> parts;
  std::size_t at = 0;
  while (at < label.size() && std::isdigit(static_cast<unsigned char>(label[at]))) {
    std::size_t end = at;
    while (end < label.size() && std::isdigit(static_cast<unsigned char>(label[end]))) ++end;
    parts.push_back(std::stoi(label.substr(at, end - at)));
    if (end >= label.size() || label[end] != '.') break;
    at = end + 1;
  }
  return parts;
}

int Query(const Config& config, const std::vector<std::string>& args, std::size_t at) {
  std::optional<std::string> output;
  std::optional<std::string> output_file;
  std::optional<std::string> query_file;
  std::string output_file_spelling;
  bool has_expression = false;
  // The options whose value may follow as a separate word.
  auto take = [&](std::size_t& i, std::string_view name, std::optional<std::string>& slot) {
    const std::string& arg = args[i];
    const std::string flag = "--" + std::string(name);
    if (arg == flag && i + 1 < args.size()) {
      slot = args[++i];
      return true;
    }
    if (arg.rfind(flag + "=", 0) == 0) {
      slot = arg.substr(flag.size() + 1);
      return true;
    }
    return false;
  };
  for (std::size_t i = at; i < args.size(); ++i) {
    if (args[i].rfind("--output_file", 0) == 0) output_file_spelling = args[i];
    if (take(i, "output", output) || take(i, "output_file", output_file) || take(i, "query_file", query_file)) {
      continue;
    }
    if (!IsOption(args[i])) has_expression = true;
  }
  if (output_file && !QueryHasOutputFile(config.bazel_version)) {
    // As Bazel before 8.2 answers: the option does not exist there.
    const std::string spelled = output_file_spelling;
    Write(2, "ERROR: Unrecognized option: " + spelled + "\n");
    return 2;
  }
  if (output.value_or("") != "streamed_proto") {
    return Unsupported(args, "only `query --output streamed_proto` is recorded");
  }
  if (query_file) {
    if (::access(query_file->c_str(), R_OK) != 0) {
      Write(2, "ERROR: cannot read query file " + *query_file + ": " + std::strerror(errno) + "\n");
      return 2;
    }
  } else if (!has_expression) {
    Write(2, "ERROR: missing query expression\n");
    return 2;
  }

  if (!ExternalPackageAvailable(config)) {
    std::string expression;
    if (query_file) {
      std::ifstream in(*query_file);
      expression.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
      for (std::size_t i = at; i < args.size(); ++i) expression += args[i] + " ";
    }
    if (expression.find("//external") != std::string::npos) {
      // Bazel's NO_SUCH_PACKAGE error once WORKSPACE is off (PackageFunction in Bazel 8).
      Write(2,
            "ERROR: no such package 'external': //external package is not available since the "
            "WORKSPACE file is deprecated, please migrate to Bzlmod. See "
            "https://bazel.build/external/migration#bind-targets.\n");
      return 7;
    }
  }

  fs::path source = config.query_proto;
  if (!config.workspace_query_proto.empty()) {
    const auto root = FindWorkspaceRoot();
    if (!root) {
      Write(2,
            "ERROR: not inside a workspace (no WORKSPACE or MODULE.bazel above the working "
            "directory)\n");
      return 2;
    }
    source = *root / config.workspace_query_proto;
  }

  std::string error;
  bool ok = false;
  if (output_file) {
    const int out = ::open(output_file->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
      error = "cannot write " + *output_file + ": " + std::strerror(errno);
    } else {
      ok = CopyTo(source, out, error);
      if (::close(out) != 0 && ok) {
        error = "cannot write " + *output_file + ": " + std::strerror(errno);
        ok = false;
      }
    }
  } else {
    ok = CopyTo(source, 1, error);
  }
  if (!ok) {
    Write(2, "ERROR: " + error + "\n");
    return 2;
  }
  return 0;
}

}  // namespace

bool VersionAtLeast(const std::string& bazel_version, const std::vector<int>& first) {
  const std::vector<int> version = VersionParts(bazel_version);
  if (version.empty()) return true;
  return !std::lexicographical_compare(version.begin(), version.end(), first.begin(), first.end());
}

bool QueryHasOutputFile(const std::string& bazel_version) { return VersionAtLeast(bazel_version, {8, 2, 0}); }

bool HasModCommand(const std::string& bazel_version) { return VersionAtLeast(bazel_version, {6, 3, 0}); }

bool HasDumpRepoMapping(const std::string& bazel_version) { return VersionAtLeast(bazel_version, {7, 1, 0}); }

bool HasShowRepoProto(const std::string& bazel_version) {
  return VersionAtLeast(bazel_version, {8, 6, 0}) && VersionParts(bazel_version) != std::vector<int>{9, 0, 0};
}

bool ExternalPackageAvailable(const Config& config) {
  return !(config.bzlmod && VersionAtLeast(config.bazel_version, {8, 0, 0}));
}

Config LoadConfig(const fs::path& dir) {
  const fs::path path = dir / "shim.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  nlohmann::json json;
  try {
    in >> json;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
  Config config;
  auto resolve = [&](const std::string& value) {
    const fs::path p(value);
    return p.is_absolute() ? p : (dir / p).lexically_normal();
  };
  config.output_base = resolve(json.value("output_base", std::string("output_base")));
  config.bazel_version = json.value("bazel_version", config.bazel_version);
  config.bzlmod = json.value("bzlmod", false);
  config.query_proto = resolve(json.value("query_proto", std::string("query.pb")));
  config.workspace_query_proto = json.value("workspace_query_proto", std::string());
  if (json.contains("repo_mapping")) {
    for (const auto& pair : json.at("repo_mapping")) {
      config.repo_mapping.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
    }
  }
  if (json.contains("repos_proto")) config.repos_proto = resolve(json.at("repos_proto").get<std::string>());
  return config;
}

int Run(const Config& config, const std::vector<std::string>& args) {
  std::size_t i = 0;
  std::optional<std::string> output_base;
  for (; i < args.size() && IsOption(args[i]); ++i) {
    if (args[i].rfind("--output_base=", 0) == 0) output_base = args[i].substr(14);
  }
  if (i == args.size()) return Unsupported(args, "no command");
  const std::string& command = args[i];
  if (command == "info") return Info(config, args, i + 1, output_base);
  if (command == "version") return Version(config);
  if (command == "mod") return Mod(config, args, i + 1);
  if (command == "query") return Query(config, args, i + 1);
  return Unsupported(args, "the shim replays info, version, mod and query only");
}

}  // namespace pe::shim

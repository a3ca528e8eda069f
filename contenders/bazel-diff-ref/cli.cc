#include "cli.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>
#include <set>
#include <sstream>

#include "bazel_client.h"
#include "bzlmod_repos.h"
#include "dep_edges.h"
#include "error.h"
#include "flat_hashes.h"
#include "hash_json.h"
#include "impacted.h"
#include "parallel.h"
#include "query_stream.h"
#include "serve.h"
#include "target_graph.h"
#include "target_hasher.h"
#include "temp_file.h"

namespace pe::refdiff {
namespace {

constexpr const char* kVersion = "0.1.0";

constexpr const char* kUsage =
    "usage: bazel-diff-ref --version\n"
    "       bazel-diff-ref generate-hashes -w WORKSPACE [-b BAZEL] [-so OPTS]\n"
    "                      [--[no-]excludeExternalTargets] [--[no-]includeTargetType]\n"
    "                      [-tt TYPES] [--threads N] [-d DEP_EDGES_OUT] [--perturb LABEL]\n"
    "                      [OUTPUT.json]\n"
    "       bazel-diff-ref get-impacted-targets -w WORKSPACE -sh START.json -fh FINAL.json\n"
    "                      [-b BAZEL] [-so OPTS] [--[no-]excludeExternalTargets] [-tt TYPES]\n"
    "                      [-d DEP_EDGES] [-o OUTPUT]\n"
    "       bazel-diff-ref serve -w REPO --cacheDir DIR [--port P] [-b BAZEL] [-so OPTS]\n"
    "                      [--gitPath GIT] [--[no-]trackDeps] [--no-initial-fetch]\n"
    "                      [--warmupRevision REV,...] [--threads N] [--host 127.0.0.1]\n"
    "                      [--port-file PATH]\n"
    "BAZEL defaults to `bazel` on PATH, OUTPUT to standard output, --port to 8080.\n";

// Walks the arguments after the subcommand; accepts "--name value" and "--name=value".
class ArgReader {
 public:
  ArgReader(const std::vector<std::string>& args, std::size_t start) : args_(args), next_(start) {}

  bool Done() const { return next_ >= args_.size(); }
  const std::string& Peek() const { return args_[next_]; }

  // True when the current argument is one of `names` (with or without "=value"), and consumes it.
  bool Flag(std::initializer_list<const char*> names) {
    for (const char* name : names) {
      if (Peek() == name) {
        current_ = name;
        inline_value_.reset();
        ++next_;
        return true;
      }
      std::string prefix = std::string(name) + "=";
      if (Peek().starts_with(prefix)) {
        current_ = name;
        inline_value_ = Peek().substr(prefix.size());
        ++next_;
        return true;
      }
    }
    return false;
  }

  std::string Value() {
    if (inline_value_) return *std::exchange(inline_value_, std::nullopt);
    if (Done()) throw RefDiffError("option " + current_ + " needs a value");
    return args_[next_++];
  }

  std::string Positional() { return args_[next_++]; }

  // A picocli negatable boolean: "--name" sets true, "--no-name" (its "--no-" form) false.
  bool Negatable(const char* name, std::optional<bool>& value) {
    std::string negated = std::string("--no-") + (name + 2);
    if (Peek() == name)
      value = true;
    else if (Peek() == negated)
      value = false;
    else
      return false;
    ++next_;
    return true;
  }

 private:
  const std::vector<std::string>& args_;
  std::size_t next_;
  std::string current_;
  std::optional<std::string> inline_value_;
};

int ParseThreads(const std::string& text) {
  try {
    std::size_t used = 0;
    int threads = std::stoi(text, &used);
    if (used == text.size() && threads >= 0) return threads;
  } catch (const std::exception&) {
  }
  throw RefDiffError("--threads wants a whole number (0 = all cores), not '" + text + "'");
}

// -so/--bazelStartupOptions as upstream's OptionsConverter splits it (OptionsConverter.kt:6-8,
// Tinder/bazel-diff 37.0.0): value.split(" ").dropLastWhile { it.isEmpty() }. On single spaces
// only, so "a  b" keeps an empty word between, a tab stays inside a word, and only trailing
// empty words go.
std::vector<std::string> SplitStartupOptions(const std::string& text) {
  std::vector<std::string> words;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t space = text.find(' ', begin);
    words.push_back(text.substr(begin, space == std::string::npos ? std::string::npos : space - begin));
    if (space == std::string::npos) break;
    begin = space + 1;
  }
  while (!words.empty() && words.back().empty()) words.pop_back();
  return words;
}

// Options every subcommand takes as upstream's picocli does: -v/--verbose (inherited from the
// top command; the reference has no verbose output) and -h/--help (mixinStandardHelpOptions:
// usage on stdout, exit 0). Returns true when the current argument was one of them and
// consumed it; sets `help`.
bool CommonOption(ArgReader& reader, bool& help) {
  if (reader.Peek() == "-v" || reader.Peek() == "--verbose") {
    reader.Positional();
    return true;
  }
  if (reader.Peek() == "-h" || reader.Peek() == "--help") {
    reader.Positional();
    help = true;
    return true;
  }
  return false;
}

[[noreturn]] void UnknownOption(const std::string& command, const std::string& arg) {
  throw RefDiffError("unknown option '" + arg + "' for " + command + " (see --help)");
}

// -tt/--targetType: "Rule,SourceFile" (picocli splits on commas; repeats add up).
void AddTargetTypes(const std::string& text, std::optional<std::set<std::string, std::less<>>>& types) {
  if (!types) types.emplace();
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t comma = text.find(',', begin);
    if (comma == std::string::npos) comma = text.size();
    if (comma > begin) types->insert(text.substr(begin, comma - begin));
    begin = comma + 1;
  }
}

void WriteOutput(const std::string& path, const std::string& bytes) {
  if (path.empty() || path == "-") {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0) {
      throw RefDiffError("cannot write to standard output");
    }
    return;
  }
  WriteFile(path, bytes);
}

int GenerateHashes(const std::vector<std::string>& args, const Flavour& flavour) {
  BazelOptions bazel;
  bazel.bazel = "bazel";
  HashJsonOptions json;
  std::optional<bool> exclude_external, include_type;
  std::optional<std::set<std::string, std::less<>>> target_types;
  int threads = flavour.default_threads;
  std::string output, dep_edges_output;
  bool has_output = false;
  ArgReader reader(args, 1);
  bool help = false;
  while (!reader.Done()) {
    if (CommonOption(reader, help)) continue;
    if (reader.Flag({"-w", "--workspacePath"}))
      bazel.workspace = reader.Value();
    else if (reader.Flag({"-b", "--bazelPath"}))
      bazel.bazel = reader.Value();
    else if (reader.Flag({"-so", "--bazelStartupOptions"}))
      bazel.startup_options = SplitStartupOptions(reader.Value());
    else if (reader.Negatable("--excludeExternalTargets", exclude_external))
      continue;
    else if (reader.Negatable("--includeTargetType", include_type))
      continue;
    else if (reader.Flag({"-tt", "--targetType"}))
      AddTargetTypes(reader.Value(), target_types);
    else if (reader.Flag({"--threads"}))
      threads = ParseThreads(reader.Value());
    else if (reader.Flag({"-d", "--depEdgesFile"}))
      dep_edges_output = reader.Value();
    else if (reader.Flag({"--perturb"}))
      json.perturb_label = reader.Value();
    else if (reader.Peek().starts_with("-") && reader.Peek() != "-")
      UnknownOption(args[0], reader.Peek());
    else if (!has_output)
      output = reader.Positional(), has_output = true;
    else
      throw RefDiffError("generate-hashes takes one output file, got '" + output + "' and '" + reader.Peek() + "'");
  }
  if (help) return std::fputs(kUsage, stdout) < 0 ? 1 : 0;
  if (bazel.workspace.empty()) throw RefDiffError("generate-hashes needs -w WORKSPACE");
  json.exclude_external_targets = exclude_external.value_or(false);
  json.include_target_type = include_type.value_or(false);
  json.target_types = target_types;
  bazel.exclude_external_targets = json.exclude_external_targets;
  // bazel runs with the workspace as its working directory: a relative path given on our
  // command line means relative to where we were started, as a user expects.
  bazel.bazel = ResolveProgram(bazel.bazel);

  QueryResult query = QueryAllTargets(bazel);
  json.module_graph_json = std::move(query.module_graph_json);
  HashOptions hashing{bazel.workspace, EffectiveThreads(threads)};
  TargetGraph graph(DecodeQueryResult(query, hashing.threads), hashing.threads);
  std::vector<HashedTarget> hashed = HashTargets(graph, hashing);
  WriteOutput(output, FormatHashesJson(hashed, json, hashing.threads));
  if (!dep_edges_output.empty()) {
    WriteFile(dep_edges_output, FormatDepEdgesJson(graph, json));
  }
  return 0;
}

int GetImpactedTargets(const std::vector<std::string>& args, const Flavour& flavour) {
  std::string start_path, final_path, dep_edges_path, output;
  BazelOptions bazel;
  bazel.bazel = "bazel";
  std::optional<bool> exclude_external, no_bazelrc;
  ImpactedOptions options;
  ArgReader reader(args, 1);
  bool help = false;
  while (!reader.Done()) {
    if (CommonOption(reader, help)) continue;
    if (reader.Flag({"-sh", "--startingHashes"}))
      start_path = reader.Value();
    else if (reader.Flag({"-fh", "--finalHashes"}))
      final_path = reader.Value();
    else if (reader.Flag({"-d", "--depEdgesFile"}))
      dep_edges_path = reader.Value();
    else if (reader.Flag({"-o", "--output"}))
      output = reader.Value();
    else if (reader.Flag({"-w", "--workspacePath"}))
      bazel.workspace = reader.Value();
    else if (reader.Flag({"-b", "--bazelPath"}))
      bazel.bazel = reader.Value();
    else if (reader.Flag({"-so", "--bazelStartupOptions"}))
      bazel.startup_options = SplitStartupOptions(reader.Value());
    else if (reader.Flag({"-tt", "--targetType"}))
      AddTargetTypes(reader.Value(), options.target_types);
    else if (reader.Negatable("--excludeExternalTargets", exclude_external))
      continue;
    else if (reader.Negatable("--noBazelrc", no_bazelrc))
      continue;  // parsed and passed nowhere, as upstream (GetImpactedTargetsCommand.kt:99-104, 130-147)
    else
      UnknownOption(args[0], reader.Peek());
  }
  if (help) return std::fputs(kUsage, stdout) < 0 ? 1 : 0;
  if (start_path.empty()) throw RefDiffError("get-impacted-targets needs -sh START.json");
  if (final_path.empty()) throw RefDiffError("get-impacted-targets needs -fh FINAL.json");
  // Upstream requires it since 17.0.1 (module change detection asks bazel in the workspace).
  if (bazel.workspace.empty()) throw RefDiffError("get-impacted-targets needs -w WORKSPACE");

  // Upstream builds its hasher module here too, which runs `bazel [-so] info output_base` in the
  // workspace whatever the options (GetImpactedTargetsCommand.kt:130-147, Modules.kt:66-82).
  // Unset --[no-]excludeExternalTargets: exclude //external:* exactly when the workspace is on
  // bzlmod, as upstream decides (GetImpactedTargetsCommand.kt:156-163).
  auto exclude_external_targets = [&] {
    bazel.bazel = ResolveProgram(bazel.bazel);
    AskOutputBase(bazel);
    if (exclude_external) return *exclude_external;
    return IsBzlmod(bazel);
  };
  auto diff = [&](const auto& start_file, const auto& final_file) {
    if (start_file.module_graph_json != final_file.module_graph_json) {
      std::fprintf(stderr,
                   "bazel-diff-ref: warning: the module graphs differ; targets are compared by hash only "
                   "(upstream also queries rdeps of the changed modules)\n");
    }
    if (dep_edges_path.empty()) {
      WriteOutput(output, FormatImpactedLines(ImpactedLabels(start_file.hashes, final_file.hashes, options)));
      return 0;
    }
    DepEdgeMap edges = ParseDepEdgesJson(ReadFile(dep_edges_path), dep_edges_path);
    std::vector<std::string> warnings;
    std::vector<ImpactedTarget> impacted =
        ImpactedWithDistances(start_file.hashes, final_file.hashes, edges, options, &warnings);
    for (const std::string& warning : warnings) std::fprintf(stderr, "bazel-diff-ref: warning: %s\n", warning.c_str());
    WriteOutput(output, FormatImpactedJson(impacted));
    return 0;
  };

  if (!flavour.flat_hash_files) {
    HashesFile start_file = ParseHashFile(ReadFile(start_path), start_path);
    HashesFile final_file = ParseHashFile(ReadFile(final_path), final_path);
    options.exclude_external_targets = exclude_external_targets();
    return diff(start_file, final_file);
  }
  // The three inputs are independent: the files are read and bazel asked on up to three
  // threads. Errors are reported in the order above (START, FINAL, bazel), whichever came first.
  std::optional<FlatHashesFile> start_file, final_file;
  std::exception_ptr errors[3];
  ParallelFor(3, 1, EffectiveThreads(flavour.default_threads), [&](std::size_t begin, std::size_t end) {
    for (std::size_t task = begin; task < end; ++task) {
      try {
        // bazel first: it mostly waits for a child process, so it goes first and a thread
        // that is done with it then reads a file.
        if (task == 0) options.exclude_external_targets = exclude_external_targets();
        if (task == 1) start_file = ParseFlatHashFile(ReadFile(start_path), start_path);
        if (task == 2) final_file = ParseFlatHashFile(ReadFile(final_path), final_path);
      } catch (...) {
        errors[task] = std::current_exception();
      }
    }
  });
  for (std::size_t task : {1, 2, 0}) {
    if (errors[task]) std::rethrow_exception(errors[task]);
  }
  return diff(*start_file, *final_file);
}

int ParsePort(const std::string& text) {
  try {
    std::size_t used = 0;
    int port = std::stoi(text, &used);
    if (used == text.size() && port >= 0 && port <= 65535) return port;
  } catch (const std::exception&) {
  }
  throw RefDiffError("--port wants a port number from 0 to 65535 (0 = any free port), not '" + text + "'");
}

// --warmupRevision A,B: comma-separated, blanks dropped, each name once (upstream's Set).
void AddWarmupRevisions(const std::string& text, std::vector<std::string>& revisions) {
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (!part.empty() && std::find(revisions.begin(), revisions.end(), part) == revisions.end()) {
      revisions.push_back(part);
    }
  }
}

int RunServe(const std::vector<std::string>& args, const Flavour& flavour) {
  ServeOptions options;
  options.threads = flavour.default_threads;
  std::optional<bool> track_deps;
  ArgReader reader(args, 1);
  bool help = false;
  while (!reader.Done()) {
    if (CommonOption(reader, help)) continue;
    if (reader.Negatable("--trackDeps", track_deps))
      continue;
    else if (reader.Peek() == "--no-initial-fetch")  // not negatable upstream: no --initial-fetch
      reader.Positional(), options.initial_fetch = false;
    else if (reader.Flag({"--warmupRevision"}))
      AddWarmupRevisions(reader.Value(), options.warmup_revisions);
    else if (reader.Flag({"--port"}))
      options.port = ParsePort(reader.Value());
    else if (reader.Flag({"-w", "--workspacePath"}))
      options.repo = reader.Value();
    else if (reader.Flag({"-b", "--bazelPath"}))
      options.bazel = reader.Value();
    else if (reader.Flag({"-so", "--bazelStartupOptions"}))
      options.startup_options = SplitStartupOptions(reader.Value());
    else if (reader.Flag({"--cacheDir"}))
      options.cache_dir = reader.Value();
    else if (reader.Flag({"--gitPath"}))
      options.git = reader.Value();
    else if (reader.Flag({"--threads"}))
      options.threads = ParseThreads(reader.Value());
    else if (reader.Flag({"--host"}))
      options.host = reader.Value();
    else if (reader.Flag({"--port-file"}))
      options.port_file = reader.Value();
    else
      UnknownOption(args[0], reader.Peek());
  }
  if (help) return std::fputs(kUsage, stdout) < 0 ? 1 : 0;
  if (options.repo.empty()) throw RefDiffError("serve needs -w REPO (the git repository)");
  if (options.cache_dir.empty()) throw RefDiffError("serve needs --cacheDir DIR (hashes kept per commit)");
  options.track_deps = track_deps.value_or(false);
  return Serve(options);
}

}  // namespace

int Run(const std::vector<std::string>& args, const Flavour& flavour) {
  try {
    if (args.empty()) throw RefDiffError("no command given (try --help)");
    if (args[0] == "-v" || args[0] == "--verbose") {  // upstream's top-level -v, before the subcommand
      return Run(std::vector<std::string>(args.begin() + 1, args.end()), flavour);
    }
    const std::string& command = args[0];
    if (command == "--version" || command == "-V") {
      std::printf("bazel-diff-ref %s %s\n", flavour.name.c_str(), kVersion);
      return 0;
    }
    if (command == "--help" || command == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (command == "generate-hashes") return GenerateHashes(args, flavour);
    if (command == "get-impacted-targets") return GetImpactedTargets(args, flavour);
    if (command == "serve") return RunServe(args, flavour);
    throw RefDiffError("unknown command '" + command + "' (expected generate-hashes, get-impacted-targets or serve)");
  } catch (const RefDiffError& error) {
    std::fprintf(stderr, "bazel-diff-ref: %s\n", error.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "bazel-diff-ref: out of memory\n");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bazel-diff-ref: internal error: %s\n", error.what());
  }
  return 1;
}

}  // namespace pe::refdiff

#include "cli.h"

#include <unistd.h>

#include <cstdio>
#include <optional>
#include <sstream>

#include "bazel_client.h"
#include "dep_edges.h"
#include "error.h"
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
    "       bazel-diff-ref generate-hashes -w WORKSPACE -b BAZEL [--bazelStartupOptions=OPTS]\n"
    "                      [--excludeExternalTargets] [--includeTargetType] [--threads N]\n"
    "                      [-d DEP_EDGES_OUT] [--perturb LABEL] OUTPUT.json\n"
    "       bazel-diff-ref get-impacted-targets -sh START.json -fh FINAL.json [-d DEP_EDGES]\n"
    "                      [-o OUTPUT]\n"
    "       bazel-diff-ref serve --port P -w REPO -b BAZEL [--threads N] [--host 127.0.0.1]\n"
    "                      [--port-file PATH]\n";

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

std::vector<std::string> SplitWords(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

[[noreturn]] void UnknownOption(const std::string& command, const std::string& arg) {
  throw RefDiffError("unknown option '" + arg + "' for " + command + " (see --help)");
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
  HashJsonOptions json;
  int threads = flavour.default_threads;
  std::string output, dep_edges_output;
  ArgReader reader(args, 1);
  while (!reader.Done()) {
    if (reader.Flag({"-w", "--workspacePath"})) bazel.workspace = reader.Value();
    else if (reader.Flag({"-b", "--bazelPath"})) bazel.bazel = reader.Value();
    else if (reader.Flag({"-so", "--bazelStartupOptions"})) bazel.startup_options = SplitWords(reader.Value());
    else if (reader.Flag({"--excludeExternalTargets"})) json.exclude_external_targets = true;
    else if (reader.Flag({"--includeTargetType"})) json.include_target_type = true;
    else if (reader.Flag({"--threads"})) threads = ParseThreads(reader.Value());
    else if (reader.Flag({"-d", "--depEdgesFile"})) dep_edges_output = reader.Value();
    else if (reader.Flag({"--perturb"})) json.perturb_label = reader.Value();
    else if (reader.Peek().starts_with("-") && reader.Peek() != "-") UnknownOption(args[0], reader.Peek());
    else if (output.empty()) output = reader.Positional();
    else throw RefDiffError("generate-hashes takes one output file, got '" + output + "' and '" + reader.Peek() + "'");
  }
  if (bazel.workspace.empty()) throw RefDiffError("generate-hashes needs -w WORKSPACE");
  if (bazel.bazel.empty()) throw RefDiffError("generate-hashes needs -b BAZEL");
  if (output.empty()) throw RefDiffError("generate-hashes needs an OUTPUT.json");
  bazel.exclude_external_targets = json.exclude_external_targets;
  // bazel runs with the workspace as its working directory: a relative path given on our
  // command line means relative to where we were started, as a user expects.
  if (bazel.bazel.has_parent_path() && bazel.bazel.is_relative()) bazel.bazel = std::filesystem::absolute(bazel.bazel);

  std::string stream = QueryAllTargets(bazel);
  HashOptions hashing{bazel.workspace, EffectiveThreads(threads)};
  TargetGraph graph(DecodeTargets(stream, hashing.threads), hashing.threads);
  stream = std::string();  // the decoded targets replace it; give the memory back
  std::vector<HashedTarget> hashed = HashTargets(graph, hashing);
  WriteOutput(output, FormatHashesJson(hashed, json, hashing.threads));
  if (!dep_edges_output.empty()) {
    WriteFile(dep_edges_output, FormatDepEdgesJson(graph, json.exclude_external_targets));
  }
  return 0;
}

int GetImpactedTargets(const std::vector<std::string>& args) {
  std::string start_path, final_path, dep_edges_path, output;
  ArgReader reader(args, 1);
  while (!reader.Done()) {
    if (reader.Flag({"-sh", "--startingHashes"})) start_path = reader.Value();
    else if (reader.Flag({"-fh", "--finalHashes"})) final_path = reader.Value();
    else if (reader.Flag({"-d", "--depEdgesFile"})) dep_edges_path = reader.Value();
    else if (reader.Flag({"-o", "--output"})) output = reader.Value();
    else UnknownOption(args[0], reader.Peek());
  }
  if (start_path.empty()) throw RefDiffError("get-impacted-targets needs -sh START.json");
  if (final_path.empty()) throw RefDiffError("get-impacted-targets needs -fh FINAL.json");

  HashEntries start_hashes = ParseHashesJson(ReadFile(start_path), start_path);
  HashEntries final_hashes = ParseHashesJson(ReadFile(final_path), final_path);
  if (dep_edges_path.empty()) {
    WriteOutput(output, FormatImpactedLines(ImpactedKeys(start_hashes, final_hashes)));
  } else {
    DepEdgeMap edges = ParseDepEdgesJson(ReadFile(dep_edges_path), dep_edges_path);
    WriteOutput(output, FormatImpactedJson(ImpactedWithDistances(start_hashes, final_hashes, edges)));
  }
  return 0;
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

int RunServe(const std::vector<std::string>& args, const Flavour& flavour) {
  ServeOptions options;
  options.threads = flavour.default_threads;
  ArgReader reader(args, 1);
  while (!reader.Done()) {
    if (reader.Flag({"-p", "--port"})) options.port = ParsePort(reader.Value());
    else if (reader.Flag({"-w", "--workspacePath"})) options.repo = reader.Value();
    else if (reader.Flag({"-b", "--bazelPath"})) options.bazel = reader.Value();
    else if (reader.Flag({"--threads"})) options.threads = ParseThreads(reader.Value());
    else if (reader.Flag({"--host"})) options.host = reader.Value();
    else if (reader.Flag({"--port-file"})) options.port_file = reader.Value();
    else UnknownOption(args[0], reader.Peek());
  }
  if (options.port < 0) throw RefDiffError("serve needs --port P");
  if (options.repo.empty()) throw RefDiffError("serve needs -w REPO (the git repository)");
  if (options.bazel.empty()) throw RefDiffError("serve needs -b BAZEL");
  return Serve(options);
}

}  // namespace

int Run(const std::vector<std::string>& args, const Flavour& flavour) {
  try {
    if (args.empty()) throw RefDiffError("no command given (try --help)");
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
    if (command == "get-impacted-targets") return GetImpactedTargets(args);
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

// bazel-diff-ref-replay-bazel: a stand-in `bazel` that answers the four commands bazel-diff runs
// by replaying a recorded query result, so tests and benchmarks need no Bazel installation.
//
//   info output_base   prints <dir>/output_base
//   version            prints "Build label: $REFDIFF_REPLAY_VERSION" (default 7.4.1)
//   mod graph          exits 0 when REFDIFF_REPLAY_BZLMOD=1 (with --output=json: a JSON graph,
//                      $REFDIFF_REPLAY_MODULE_GRAPH if set), else 2 (workspace not on bzlmod)
//   query ...          copies the stream to --output_file (either spelling) or to stdout;
//                      --output_file is refused as Bazel before 8.2.0 refuses it
//
// The stream is $REFDIFF_REPLAY_STREAM, else query.pb beside argv[0] (so a fixture can link
// itself a `bazel` next to its recording). Leading --options before the command are startup
// options and are ignored. REFDIFF_REPLAY_NO_EXTERNAL=1 makes a query that names //external fail
// as Bazel 8 fails it with WORKSPACE off (bzlmod only). REFDIFF_REPLAY_FAIL=<command> makes that command fail the way
// bazel does; REFDIFF_REPLAY_LOG=<file> appends "[cwd] argv..." per call, for tests that check the calls.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::string Env(const char* name, const std::string& fallback = "") {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

void Log(int argc, char** argv) {
  std::string log = Env("REFDIFF_REPLAY_LOG");
  if (log.empty()) return;
  std::ofstream out(log, std::ios::app);
  out << "[" << std::filesystem::current_path().string() << "]";
  for (int i = 1; i < argc; ++i) out << " " << argv[i];
  out << "\n";
}

std::string Version() { return Env("REFDIFF_REPLAY_VERSION", "7.4.1"); }

// --output_file exists from Bazel 8.2.0 on.
bool HasOutputFile() {
  int major = 0, minor = 0;
  if (std::sscanf(Version().c_str(), "%d.%d", &major, &minor) != 2) return true;
  return major > 8 || (major == 8 && minor >= 2);
}

int Query(const std::vector<std::string>& args, const std::filesystem::path& self_dir) {
  std::string output_file, query_file;
  bool streamed_proto = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--output" && i + 1 < args.size())
      streamed_proto = args[++i] == "streamed_proto";
    else if (args[i] == "--output=streamed_proto")
      streamed_proto = true;
    else if (args[i] == "--output_file" && i + 1 < args.size())
      output_file = args[++i];
    else if (args[i].starts_with("--output_file="))
      output_file = args[i].substr(14);
    if (args[i].starts_with("--output_file") && !HasOutputFile()) {
      std::cerr << "ERROR: Unrecognized option: " << args[i] << "\n";
      return 2;
    } else if (args[i] == "--query_file" && i + 1 < args.size())
      query_file = args[++i];
  }
  if (!streamed_proto) {
    std::cerr << "ERROR: replay bazel only answers --output streamed_proto\n";
    return 2;
  }
  if (query_file.empty() || !std::ifstream(query_file)) {
    std::cerr << "ERROR: query file '" << query_file << "' is missing\n";
    return 2;
  }
  if (Env("REFDIFF_REPLAY_NO_EXTERNAL") == "1") {
    std::ifstream query(query_file);
    std::string expression((std::istreambuf_iterator<char>(query)), std::istreambuf_iterator<char>());
    if (expression.find("//external") != std::string::npos) {
      // Bazel's NO_SUCH_PACKAGE message for //external once WORKSPACE is off (PackageFunction).
      std::cerr << "ERROR: no such package 'external': //external package is not available since the "
                   "WORKSPACE file is deprecated, please migrate to Bzlmod. See "
                   "https://bazel.build/external/migration#bind-targets.\n";
      return 7;
    }
  }
  std::string stream_path = Env("REFDIFF_REPLAY_STREAM", (self_dir / "query.pb").string());
  std::ifstream in(stream_path, std::ios::binary);
  if (!in) {
    std::cerr << "ERROR: no recorded query result at " << stream_path << "\n";
    return 2;
  }
  if (output_file.empty()) {
    std::cout << in.rdbuf();
    return std::cout ? 0 : 2;
  }
  std::ofstream out(output_file, std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
  return out ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  Log(argc, argv);
  std::filesystem::path self_dir = std::filesystem::absolute(argv[0]).parent_path();
  std::vector<std::string> args(argv + 1, argv + argc);
  std::size_t command = 0;
  while (command < args.size() && args[command].starts_with("--")) ++command;  // startup options
  if (command == args.size()) {
    std::cerr << "ERROR: no command\n";
    return 2;
  }
  std::string name = args[command];
  std::vector<std::string> rest(args.begin() + static_cast<long>(command) + 1, args.end());
  if (Env("REFDIFF_REPLAY_FAIL") == name) {
    std::cerr << "INFO: Invocation ID: 0\nERROR: " << name << " failed (REFDIFF_REPLAY_FAIL)\n";
    return 7;
  }
  if (name == "info" && !rest.empty() && rest[0] == "output_base") {
    std::cout << (self_dir / "output_base").string() << "\n";
    return 0;
  }
  if (name == "version") {
    std::cout << "Build label: " << Version() << "\nBuild target: replay\n";
    return 0;
  }
  if (name == "mod") {
    if (Env("REFDIFF_REPLAY_BZLMOD") == "1") {
      bool json = std::find(rest.begin(), rest.end(), "--output=json") != rest.end();
      if (json)
        std::cout << Env("REFDIFF_REPLAY_MODULE_GRAPH", "{\"key\": \"<root>\", \"dependencies\": []}") << "\n";
      else
        std::cout << "<root> (replay@_)\n";
      return 0;
    }
    std::cerr << "ERROR: mod command can only be used when bzlmod is enabled\n";
    return 2;
  }
  if (name == "query") return Query(rest, self_dir);
  std::cerr << "ERROR: replay bazel does not know '" << name << "'\n";
  return 2;
}

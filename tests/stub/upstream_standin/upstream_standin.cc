// bazel-diff-upstream-standin: upstream bazel-diff's argument rules (its picocli options, as in
// Tinder/bazel-diff 37.x cli/*Command.kt) in front of the reference contender. It refuses what
// upstream refuses - an unknown option, a missing required option, a stray argument - with
// picocli's message and exit status 2, and otherwise runs the reference build with the same
// arguments. Used in CI so that a spec argv the real bazel-diff would reject fails here too.
//
// `serve` also writes into its workspace as upstream does: `git fetch --all --prune` at start-up
// unless --no-initial-fetch (GitClient.kt:83-86, Tinder/bazel-diff 37.0.0) and
// `git -c gc.auto=0 checkout --force REV` (GitClient.kt:158-166). Upstream checks a revision
// out when a request misses its cache; the stand-in checks every tagged revision out once,
// before the reference serves: the same writes into -w (working tree and index), earlier. A
// spec that hands serve a read-only or guarded directory fails here as it would upstream.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace {

struct Option {
  std::vector<std::string> names;  // the first long name is the one picocli's messages show
  bool takes_value = true;
  bool negatable = false;       // picocli adds "--no-<name>"
  bool optional_value = false;  // arity 0..1 (fallbackValue), e.g. -k/--keep_going
  bool required = false;
  std::string param;  // picocli's <label> in "Missing required option: '--x=<label>'"
};

struct Command {
  std::vector<Option> options;
  int max_positionals = 0;
};

Option Value(std::vector<std::string> names) { return {std::move(names)}; }
Option Bool(std::vector<std::string> names, bool negatable = true) {
  Option option{std::move(names)};
  option.takes_value = false;
  option.negatable = negatable;
  return option;
}
Option Required(std::vector<std::string> names, std::string param) {
  Option option{std::move(names)};
  option.required = true;
  option.param = std::move(param);
  return option;
}

// Shared by every subcommand: -v/--verbose (inherited from the top command), --debug (hidden).
void AddCommon(Command& command, bool help_options) {
  command.options.push_back(Bool({"-v", "--verbose"}, false));
  command.options.push_back(Bool({"--debug"}, false));
  if (help_options) {
    command.options.push_back(Bool({"-h", "--help"}, false));
    command.options.push_back(Bool({"-V", "--version"}, false));
  }
}

Command GenerateHashes() {
  Command c;
  c.max_positionals = 1;  // the output file; stdout without it
  c.options = {Required({"-w", "--workspacePath"}, "workspacePath"),
               Value({"-b", "--bazelPath"}),
               Value({"--contentHashPath"}),
               Value({"-so", "--bazelStartupOptions"}),
               Value({"-co", "--bazelCommandOptions"}),
               Value({"--fineGrainedHashExternalRepos"}),
               Value({"--fineGrainedHashExternalReposFile"}),
               Bool({"--useCquery"}),
               Bool({"--includeTargetType"}),
               Value({"-tt", "--targetType"}),
               Value({"--cqueryCommandOptions"}),
               Value({"--cqueryExpression"}),
               Value({"-s", "--seed-filepaths"}),
               Value({"--ignoredRuleHashingAttributes"}),
               Value({"-d", "--depEdgesFile"}),
               Value({"-m", "--modified-filepaths"}),
               Bool({"--excludeExternalTargets"}),
               Value({"--excludeTargetsQuery"}),
               Value({"--alwaysAffectedTags"})};
  Option keep_going = Bool({"-k", "--keep_going"});
  keep_going.optional_value = true;
  c.options.push_back(keep_going);
  AddCommon(c, true);
  return c;
}

Command GetImpactedTargets() {
  Command c;
  c.options = {Required({"-sh", "--startingHashes"}, "startingHashesJSONPath"),
               Required({"-fh", "--finalHashes"}, "finalHashesJSONPath"),
               Value({"-d", "--depEdgesFile"}),
               Value({"-tt", "--targetType"}),
               Value({"-o", "--output"}),
               Required({"-w", "--workspacePath"}, "workspacePath"),
               Value({"-b", "--bazelPath"}),
               Value({"-so", "--bazelStartupOptions"}),
               Bool({"--noBazelrc"}),
               Bool({"--excludeExternalTargets"})};
  AddCommon(c, false);
  return c;
}

Command Serve() {
  Command c;
  c.options = {Required({"-w", "--workspacePath"}, "workspacePath"),
               Value({"-b", "--bazelPath"}),
               Value({"--gitPath"}),
               Value({"--port"}),
               Value({"--requestTimeout"}),
               Required({"--cacheDir"}, "cacheDir"),
               Value({"--cacheMaxAge"}),
               Value({"--cacheMaxEntries"}),
               Value({"--cacheMaxSize"}),
               Value({"--cachePruneInterval"}),
               Value({"--s3Bucket"}),
               Value({"--s3Prefix"}),
               Value({"--s3Region"}),
               Value({"--s3Endpoint"}),
               Bool({"--s3ForcePathStyle"}),
               Value({"--warmupRevision"}),
               Bool({"--no-initial-fetch"}, false),
               Value({"-so", "--bazelStartupOptions"}),
               Value({"-co", "--bazelCommandOptions"}),
               Value({"--cqueryCommandOptions"}),
               Bool({"--useCquery"}),
               Value({"--cqueryExpression"}),
               Value({"--fineGrainedHashExternalRepos"}),
               Value({"--fineGrainedHashExternalReposFile"}),
               Value({"--ignoredRuleHashingAttributes"}),
               Value({"-s", "--seed-filepaths"}),
               Bool({"--excludeExternalTargets"}),
               Value({"--excludeTargetsQuery"}),
               Bool({"--trackDeps"})};
  Option keep_going = Bool({"-k", "--keep_going"});
  keep_going.optional_value = true;
  c.options.push_back(keep_going);
  AddCommon(c, true);
  return c;
}

// Runs git (argv, no shell) in `dir`; its stdout when `out` is given. Returns its exit status.
int Git(const std::string& git, const std::string& dir, std::vector<std::string> args, std::string* out = nullptr) {
  args.insert(args.begin(), {git, "-C", dir});
  int pipe_fds[2] = {-1, -1};
  if (out != nullptr && ::pipe(pipe_fds) != 0) return 127;
  const pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    if (out != nullptr) {
      ::dup2(pipe_fds[1], 1);
      ::close(pipe_fds[0]);
      ::close(pipe_fds[1]);
    } else {
      ::dup2(2, 1);  // git's chatter must not reach the server's stdout
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  if (out != nullptr) {
    ::close(pipe_fds[1]);
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
      out->append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// The value of the first of `names` in `args`, or `fallback`.
std::string ValueOf(const std::vector<std::string>& args, const std::vector<std::string>& names,
                    const std::string& fallback) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const std::string& name : names) {
      if (args[i] == name && i + 1 < args.size()) return args[i + 1];
      if (args[i].starts_with(name + "=")) return args[i].substr(name.size() + 1);
    }
  }
  return fallback;
}

// Upstream serve's writes into its workspace (see the header). Returns 0, or 1 with git's
// failure reported on stderr, as upstream's GitClientException would fail the request.
int CheckOutAsUpstream(const std::vector<std::string>& args) {
  const std::string workspace = ValueOf(args, {"-w", "--workspacePath"}, "");
  const std::string git = ValueOf(args, {"--gitPath"}, "git");
  bool fetch = true;
  for (const std::string& a : args) fetch = fetch && a != "--no-initial-fetch";
  if (fetch && Git(git, workspace, {"fetch", "--all", "--prune"}) != 0) {
    std::fprintf(stderr, "bazel-diff (upstream stand-in): git fetch --all --prune failed in %s\n", workspace.c_str());
    return 1;
  }
  std::string tags;
  if (Git(git, workspace, {"tag", "--list"}, &tags) != 0) return 1;
  std::size_t start = 0;
  for (std::size_t end; (end = tags.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string tag = tags.substr(start, end - start);
    if (tag.empty()) continue;
    if (Git(git, workspace, {"-c", "gc.auto=0", "checkout", "--force", tag}) != 0) {
      std::fprintf(stderr, "bazel-diff (upstream stand-in): git -c gc.auto=0 checkout --force %s failed in %s\n",
                   tag.c_str(), workspace.c_str());
      return 1;
    }
  }
  return 0;
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "bazel-diff (upstream argument rules): %s\n", message.c_str());
  return 2;  // picocli's CommandLine.ExitCode.USAGE
}

// Empty when `args` (after the subcommand) satisfy `command`; else picocli's message.
std::string Check(const Command& command, const std::vector<std::string>& args) {
  std::set<const Option*> seen;
  int positionals = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      if (++positionals > command.max_positionals) {
        return "Unmatched argument at index " + std::to_string(i + 1) + ": '" + arg + "'";
      }
      continue;
    }
    std::string name = arg.substr(0, arg.find('='));
    bool has_inline = name.size() != arg.size();
    const Option* match = nullptr;
    for (const Option& option : command.options) {
      for (const std::string& n : option.names) {
        bool negated = option.negatable && n.starts_with("--") && name == "--no-" + n.substr(2);
        if (n == name || negated) match = &option;
      }
    }
    if (match == nullptr) return "Unknown option: '" + arg + "'";
    seen.insert(match);
    if (!match->takes_value || has_inline) continue;
    if (match->optional_value) {
      if (i + 1 < args.size() && (args[i + 1] == "true" || args[i + 1] == "false")) ++i;
      continue;
    }
    if (i + 1 >= args.size()) {
      return "Missing required parameter for option '" + match->names.back() + "' (<" +
             (match->param.empty() ? "value" : match->param) + ">)";
    }
    ++i;
  }
  std::vector<std::string> missing;
  for (const Option& option : command.options) {
    if (option.required && !seen.contains(&option))
      missing.push_back("'" + option.names.back() + "=<" + option.param + ">'");
  }
  if (missing.empty()) return {};
  std::string message = missing.size() == 1 ? "Missing required option: " : "Missing required options: ";
  for (std::size_t k = 0; k < missing.size(); ++k) message += (k == 0 ? "" : ", ") + missing[k];
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return Usage("Missing required subcommand");
  const std::string& sub = args[0];
  if (sub != "-V" && sub != "--version" && sub != "-h" && sub != "--help") {
    Command command;
    if (sub == "generate-hashes")
      command = GenerateHashes();
    else if (sub == "get-impacted-targets")
      command = GetImpactedTargets();
    else if (sub == "serve")
      command = Serve();
    else if (sub.starts_with("-"))
      return Usage("Unknown option: '" + sub + "'");
    else
      return Usage("Unmatched argument at index 0: '" + sub + "'");
    std::string error = Check(command, std::vector<std::string>(args.begin() + 1, args.end()));
    if (!error.empty()) return Usage(error);
    if (sub == "serve") {
      if (int status = CheckOutAsUpstream(args); status != 0) return status;
    }
  }
  // Accepted: the reference build does the work (it accepts a subset; the rest it names itself).
  const char* target = PE_STANDIN_TARGET;
  std::vector<char*> exec_argv;
  exec_argv.push_back(const_cast<char*>(target));
  for (int i = 1; i < argc; ++i) exec_argv.push_back(argv[i]);
  exec_argv.push_back(nullptr);
  ::execv(target, exec_argv.data());
  std::perror(target);
  return 127;
}

#include "engine/cli/cli_docs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "engine/report/reporter.h"

namespace pe::cli {
namespace {

// The commands a user is offered: hidden ones (an empty group, e.g. bisect-step) left out.
std::vector<const CLI::App*> Commands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) out.push_back(sub);
  }
  return out;
}

std::vector<const CLI::Option*> Flags(const CLI::App& command) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : command.get_options()) {
    if (!o->get_positional()) out.push_back(o);
  }
  return out;
}

std::vector<std::string> Names(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const auto& l : o.get_lnames()) names.push_back("--" + l);
  for (const auto& s : o.get_snames()) names.push_back("-" + s);
  return names;
}

bool TakesValue(const CLI::Option& o) { return o.get_type_size_max() > 0; }

// Options whose value is a file: complete file names after them.
bool TakesPath(const CLI::Option& o) {
  static const std::vector<std::string> kPaths = {"cache-dir", "history", "out", "state"};
  for (const auto& l : o.get_lnames()) {
    if (std::find(kPaths.begin(), kPaths.end(), l) != kPaths.end()) return true;
    if (const report::Format* f = report::FindFormat(l); f != nullptr && f->destination == report::Destination::kFile)
      return true;  // the report flags: the registry's file formats
  }
  return false;
}

// roff: a backslash and a leading dot or quote would be read as requests.
std::string Roff(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string ZshQuote(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else if (c == '[' || c == ']' || c == ':')
      out += std::string("\\") + c;
    else
      out += c;
  }
  return out;
}

// The man page's EXAMPLES: each one a command that works as written on a spec of that name.
struct Example {
  std::string_view command;
  std::string_view what;
};
constexpr Example kExamples[] = {
    {"perfengine run --quick 'gzip -c data.txt' 'zstd -c data.txt' --parity none",
     "Compare two commands without writing a spec (outputs differ by nature, so time only)."},
    {"perfengine run --quick 'zstd -{level} -c data.txt' 'gzip -{level} -c data.txt' -L level 1,3,9 --parity none",
     "The same at each value of a parameter, as hyperfine's -L: one workload per level."},
    {"perfengine init 'old-tool input' 'new-tool input' && perfengine run perfengine.toml",
     "Write a starting spec from two commands (checked before it is written), then run it."},
    {"perfengine validate spec.toml",
     "Check a spec without timing anything: every mistake at once, each at file:line:column."},
    {"perfengine run spec.toml --json results.json --markdown report.md",
     "Run a spec's gate, keeping the results file and a Markdown report; exit 0, 1, 2 or 3."},
    {"perfengine explain results.json", "Show the working behind a saved run's figures and verdict."},
    {"perfengine report results.json --html report.html", "Render a saved run again, in any report format."},
    {"perfengine generate spec.toml --out fixtures", "Write a spec's generated fixtures out (contenders optional)."},
    {"perfengine completion bash > ~/.local/share/bash-completion/completions/perfengine",
     "Install bash completion for the current user."},
};

}  // namespace

const std::vector<EnvironmentVariable>& EnvironmentVariables() {
  static const std::vector<EnvironmentVariable> kVariables = {
      {"PERFENGINE_ACCEPT_REGRESSION",
       "1, true, yes or on: accept a missed threshold (exit 0, reported as accepted), as --accept-regression does; "
       "0, false, no, off or empty: gate as usual; any other value is refused (exit 2)."},
      {"PERFENGINE_UNRESOLVED",
       "fail, pass or exit3: what an unresolved claim exits with when --unresolved is not given (default exit3)."},
      {"PERFENGINE_CACHE",
       "The fixture cache (default: $XDG_CACHE_HOME/perfengine, else ~/.cache/perfengine); --cache-dir overrides it."},
      {"PERFENGINE_HISTORY",
       "The history database of run --record and history (default: $XDG_DATA_HOME/perfengine/history.sqlite, else "
       "~/.local/share/perfengine/history.sqlite); --history overrides it."},
      {"PERFENGINE_SPAWNER", "The perfengine-spawner helper that starts contenders (default: beside perfengine)."},
      {"PERFENGINE_ALLOCCOUNT",
       "The allocation-counting library preloaded for [run] measure = [\"allocations\"] (default: beside perfengine, "
       "else lib/perfengine)."},
      {"PERFENGINE_SHIM", "The Bazel shim the bazel_* fixture generators install (default: beside perfengine)."},
      {"PERFENGINE_COUNTERS",
       "Set by perfengine for a contender on a workload with [counters]: the file it writes its counters to "
       "(docs/counters.md)."},
      {"PERFENGINE_PROFILE",
       "Set by perfengine when it profiles a regression: the file a contender may write 'function calls [cost]' lines "
       "to (docs/counters.md)."},
      {"PERFENGINE_ALLOC_OUT",
       "Set by perfengine for a contender whose allocations are counted: where the preloaded library writes them."},
      {"PERFENGINE_ALLOC_MARKS",
       "Set by perfengine when a worker's allocations are counted: where the preloaded library writes its running "
       "totals at each of the worker's markers (docs/workers.md, \"Markers\")."},
      {"PERFENGINE_WORKER_BENCHMARKS",
       "Set by perfengine for a worker contender: the benchmarks it will be asked for, comma-separated; a worker may "
       "set up only those (docs/workers.md)."},
      {"PERFENGINE_WORKER_DIGESTS",
       "Set by perfengine for a worker contender: \"first\", the worker may answer digest=- for a benchmark's "
       "batches after its first; \"none\" (counting workers), for any batch (docs/workers.md, \"Digests\")."},
      {"PERFENGINE_WORKER_SHIFT",
       "Set by perfengine for a round's worker: a seed, new for every round and contender, from which the worker "
       "libraries shift where their heap's data lies; empty for calibration and counting workers (docs/workers.md, "
       "\"Layout\")."},
      {"PERFENGINE_WORKER_FDS",
       "Set by perfengine for a worker contender: the descriptors of its request and reply channel, \"IN,OUT\" "
       "(docs/workers.md)."},
      {"TMPDIR",
       "Where the run's scratch directory (perfengine-XXXXXX) is made (default /tmp). A sandboxed contender, hook "
       "or normaliser gets its {workdir} as TMPDIR unless the spec sets one (docs/threat-model.md)."},
      {"NO_COLOR", "Set and not empty: no colour on a terminal."},
  };
  return kVariables;
}

std::string BashCompletion(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* c : Commands(app)) names.push_back(c->get_name());
  std::string out = "# bash completion for perfengine (generated by `perfengine completion bash`)\n";
  out += "_perfengine() {\n";
  out += "  local cur prev command\n";
  out += "  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n  prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n";
  out += "  command=\"${COMP_WORDS[1]}\"\n";
  out += fmt::format(
      "  if [[ $COMP_CWORD -eq 1 ]]; then\n    COMPREPLY=($(compgen -W \"{} --help --version\" -- \"$cur\"))\n"
      "    return\n  fi\n",
      fmt::join(names, " "));
  out += "  case \"$command\" in\n";
  for (const CLI::App* c : Commands(app)) {
    std::vector<std::string> flags, paths;
    for (const CLI::Option* o : Flags(*c)) {
      for (const auto& n : Names(*o)) {
        flags.push_back(n);
        if (TakesPath(*o)) paths.push_back(n);
      }
    }
    out += fmt::format("    {})\n", c->get_name());
    if (!paths.empty()) {
      out += fmt::format("      case \"$prev\" in {}) COMPREPLY=($(compgen -f -- \"$cur\")); return;; esac\n",
                         fmt::join(paths, "|"));
    }
    out += fmt::format(
        "      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); "
        "else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n      ;;\n",
        fmt::join(flags, " "));
  }
  out += "  esac\n}\ncomplete -o filenames -F _perfengine perfengine\n";
  return out;
}

std::string ZshCompletion(const CLI::App& app) {
  std::string out = "#compdef perfengine\n# zsh completion for perfengine (generated by `perfengine completion zsh`)\n";
  out += "_perfengine() {\n  local -a commands\n  commands=(\n";
  for (const CLI::App* c : Commands(app)) {
    out += fmt::format("    '{}:{}'\n", c->get_name(), ZshQuote(c->get_description()));
  }
  out += "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' commands\n    return\n  fi\n";
  out += "  case $words[2] in\n";
  for (const CLI::App* c : Commands(app)) {
    out += fmt::format("    {})\n      _arguments \\\n", c->get_name());
    for (const CLI::Option* o : Flags(*c)) {
      const std::string action = !TakesValue(*o) ? "" : TakesPath(*o) ? ":file:_files" : ":value: ";
      for (const auto& n : Names(*o)) {
        out += fmt::format("        '{}[{}]{}' \\\n", n, ZshQuote(o->get_description()), action);
      }
    }
    out += "        '*:file:_files'\n      ;;\n";
  }
  out += "  esac\n}\n_perfengine \"$@\"\n";
  return out;
}

std::string ManPage(const CLI::App& app, const std::string& version) {
  std::string out = fmt::format(".TH PERFENGINE 1 \"\" \"perfengine {}\" \"User Commands\"\n", version);
  out += ".SH NAME\nperfengine \\- declarative performance gates\n";
  out += ".SH SYNOPSIS\n.B perfengine\n.I command\n[\\fIoptions\\fR]\n";
  out += ".SH DESCRIPTION\n";
  for (const std::string& line : CLI::detail::split(app.get_description(), '\n')) out += Roff(line) + "\n.br\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App* c : Commands(app)) {
    std::vector<std::string> positionals;
    for (const CLI::Option* o : c->get_options()) {
      if (o->get_positional()) positionals.push_back(fmt::format("\\fI{}\\fR", Roff(o->get_name())));
    }
    out += fmt::format(".SS \"perfengine {} {}\"\n{}\n", c->get_name(), fmt::join(positionals, " "),
                       Roff(c->get_description()));
    for (const CLI::Option* o : c->get_options()) {
      if (o->get_name() == "--help" || o->get_name() == "-h,--help") continue;
      std::vector<std::string> names = o->get_positional() ? std::vector<std::string>{o->get_name()} : Names(*o);
      if (std::find(names.begin(), names.end(), "--help") != names.end()) continue;
      for (auto& n : names) n = Roff(n);
      out += fmt::format(
          ".TP\n.B {}{}\n{}\n", fmt::join(names, ", "),
          TakesValue(*o) && !o->get_positional() ? fmt::format(" \\fI{}\\fR", Roff(o->get_type_name())) : "",
          Roff(o->get_description()));
    }
  }
  out +=
      ".SH EXIT STATUS\n0 pass; 1 a threshold missed; 2 the run failed or bad input; 3 a claim unresolved "
      "(see \\-\\-unresolved); 130 interrupted.\n";
  out += ".SH ENVIRONMENT\n";
  for (const EnvironmentVariable& v : EnvironmentVariables()) {
    out += fmt::format(".TP\n.B {}\n{}\n", Roff(std::string(v.name)), Roff(std::string(v.meaning)));
  }
  out += ".SH EXAMPLES\n";
  for (const Example& e : kExamples) {
    out += fmt::format(".TP\n.B {}\n{}\n", Roff(std::string(e.command)), Roff(std::string(e.what)));
  }
  out += ".SH FILES\nThe documentation (docs/*.md) is installed in share/doc/perfengine.\n";
  out += ".SH SEE ALSO\n.BR hyperfine (1)\n";
  return out;
}

}  // namespace pe::cli

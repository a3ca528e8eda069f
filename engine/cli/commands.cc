#include "engine/cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "engine/cli/output_paths.h"
#include "engine/cli/validate_checks.h"
#include "engine/gate/unresolved.h"
#include "engine/model/atomic_file.h"
#include "engine/report/csv_reporter.h"
#include "engine/report/html_reporter.h"
#include "engine/report/json_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "engine/report/terminal_reporter.h"
#include "engine/report/text.h"
#include "engine/run/experiment.h"
#include "engine/run/path_component.h"
#include "engine/run/thread_axis.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/programs.h"
#include "engine/spec/rounds_reach.h"
#include "engine/spec/spec.h"
#include "engine/units/units.h"
#include "generators/fixture_cache.h"
#include "generators/generator.h"

namespace pe::cli {

using model::ExitCode;
using model::RunResult;
using model::Settings;
using model::WriteFileAtomically;
using report::OneLine;
using runner::MakeSystemProcessRunner;
using units::FormatCount;

namespace fs = std::filesystem;

namespace {

// A directory parses as an empty spec ("no contenders"); say what it is instead.
spec::Spec ParseSpecAt(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw spec::UsageError(fmt::format("{}: is a directory; give a spec file (TOML)", path));
  return spec::ParseSpecFile(path);
}

spec::Spec LoadSpec(const CommonOptions& common) {
  spec::Spec spec = ParseSpecAt(common.spec);
  for (const std::string& assignment : common.contenders) spec::ApplyContenderOverride(spec, assignment);
  spec::CheckPrograms(spec);
  return spec;
}

run::Options RunOptions(const CommonOptions& common) {
  run::Options o;
  o.workloads = common.workloads;
  o.scale = common.scale;
  o.cache_root = common.cache_dir;
  return o;
}

std::string ParamText(const gen::ParamValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          return fmt::format("\"{}\"", v);
        else if constexpr (std::is_same_v<T, bool>)
          return v ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::vector<std::string>>)
          return fmt::format("[{}]", fmt::join(v, ", "));
        else
          return fmt::format("{}", v);
      },
      value);
}

std::uintmax_t DirectorySize(const fs::path& dir, std::size_t* files) {
  std::uintmax_t bytes = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      bytes += it->file_size(ec);
      ++*files;
    }
  }
  return bytes;
}

std::string Size(std::uintmax_t bytes) {
  if (bytes >= (1u << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= (1u << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / (1 << 10));
  return fmt::format("{} B", bytes);
}

// --rounds and --max-rounds may not leave a check unable to resolve; the spec's own
// rounds were checked when it was parsed.
void CheckRoundsOverride(const spec::Spec& spec, const RunFlags& flags) {
  if (!flags.rounds && !flags.max_rounds) return;
  const int rounds = flags.rounds.value_or(spec.settings.rounds);
  const int reach = std::max(rounds, flags.max_rounds.value_or(spec.settings.max_rounds));
  for (const spec::Workload& w : spec.workloads) {
    if (w.startup || !w.gate) continue;
    if (auto shortfall = spec::FindRoundsShortfall(spec::EffectiveThresholds(spec, w), reach)) {
      throw spec::UsageError(fmt::format("{}: {}", flags.rounds ? "--rounds" : "--max-rounds", shortfall->message));
    }
  }
}

}  // namespace

std::string AcceptedBy(bool flag) {
  // CI sets the variable from a pull-request label; a person passes the flag. A label
  // expression yields "false" when the label is absent, so only an explicit yes accepts, and a
  // value that is neither is refused rather than guessed at (even beside the flag).
  const char* accept_env = std::getenv("PERFENGINE_ACCEPT_REGRESSION");
  bool env_accepts = false;
  if (accept_env != nullptr) {
    std::string value = accept_env;
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
    const auto is_one_of = [&](std::initializer_list<std::string_view> words) {
      return std::find(words.begin(), words.end(), value) != words.end();
    };
    env_accepts = is_one_of({"1", "true", "yes", "on"});
    if (!env_accepts && !is_one_of({"", "0", "false", "no", "off"})) {
      throw spec::UsageError(fmt::format(
          "PERFENGINE_ACCEPT_REGRESSION is '{}': set it to 1, true, yes or on to accept a missed threshold, or to 0, "
          "false, no, off or nothing to gate as usual",
          accept_env));
    }
  }
  if (flag) return "--accept-regression";
  return env_accepts ? "PERFENGINE_ACCEPT_REGRESSION" : "";
}

void ApplyUnresolved(model::Verdict& verdict, const std::string& flag) {
  std::string by = "--unresolved=" + flag;
  std::string text = flag;
  if (flag.empty()) {
    const char* env = std::getenv("PERFENGINE_UNRESOLVED");
    if (env == nullptr || *env == '\0') return;
    text = env;
    by = fmt::format("PERFENGINE_UNRESOLVED={}", text);
  }
  const std::optional<gate::UnresolvedPolicy> policy = gate::ParseUnresolvedPolicy(text);
  if (!policy) {
    throw spec::UsageError(
        fmt::format("{} is '{}': set it to fail (exit 1, as a missed threshold), pass (exit 0) or exit3 (the default)",
                    flag.empty() ? "PERFENGINE_UNRESOLVED" : "--unresolved", text));
  }
  gate::ApplyUnresolvedPolicy(verdict, *policy, by);
}

void WriteReports(const RunResult& result, const ReportFiles& files, bool color) {
  // Files first: an interrupted or failed run still leaves its evidence behind.
  if (!files.json.empty()) report::WriteJsonReport(result, files.json);
  if (!files.markdown.empty()) WriteFileAtomically(files.markdown, report::MarkdownReport(result));
  if (!files.html.empty()) report::WriteHtmlReport(result, files.html);
  report::WriteTerminalReport(result, std::cout, color);
}

ExitCode RunCommand(const CommonOptions& given, const RunFlags& flags, bool color) {
  CommonOptions common = given;
  std::optional<QuickSpec> quick;
  if (!flags.quick.empty()) {
    if (!common.spec.empty())
      throw spec::UsageError("--quick: give either a SPEC or --quick 'CMD A' 'CMD B', not both");
    quick.emplace(InitFlags{flags.quick, "", flags.parity.empty() ? "exact" : flags.parity, false});
    common.spec = quick->path().string();
  } else if (!flags.parity.empty()) {
    throw spec::UsageError("--parity: only with --quick; a spec sets parity per workload");
  } else if (common.spec.empty()) {
    throw spec::UsageError("run: give a SPEC file, or --quick 'CMD A' 'CMD B' (perfengine init writes a spec to keep)");
  }
  const spec::Spec spec = LoadSpec(common);
  run::Options options = RunOptions(common);
  options.rounds = flags.rounds;
  options.max_rounds = flags.max_rounds;
  options.warmup_rounds = flags.warmup_rounds;
  CheckRoundsOverride(spec, flags);
  options.skip_serve = flags.skip_serve;
  options.serve_requests = flags.serve_requests;
  options.serve_concurrency = flags.serve_concurrency;
  if (!flags.shard.empty()) options.shard = run::ParseShard(flags.shard);
  options.progress_style = run::ChooseProgressStyle(flags.quiet, ::isatty(STDERR_FILENO));
  if (options.progress_style != run::ProgressStyle::kOff) options.progress = &std::cerr;
  options.accepted_by = AcceptedBy(flags.accept_regression);
  model::Verdict probe;
  ApplyUnresolved(probe, flags.unresolved);  // a bad PERFENGINE_UNRESOLVED is exit 2 before the run
  run::SelectWorkloads(spec, options);  // unknown --workload names fail before any work
  for (const std::string& warning :
       run::ThreadAxisWarnings(spec, static_cast<int>(std::thread::hardware_concurrency()))) {
    std::cerr << "perfengine: warning: " << OneLine(warning) << "\n";
  }
  CheckOutputPaths(
      common.spec,
      {{"--json", flags.json}, {"--markdown", flags.markdown}, {"--html", flags.html}, {"--csv", flags.csv}});
  if (flags.record) CheckRecordable(flags.history);
  auto runner = MakeSystemProcessRunner();
  RunResult result = run::RunExperiment(spec, options, *runner);
  ApplyUnresolved(result.verdict, flags.unresolved);
  // Files first: an interrupted or failed run still leaves its evidence behind. One file that
  // cannot be written (the disk filled during the run) costs neither the others nor the table.
  // What the run was asked for and did not deliver fails it: the Markdown (written last of the
  // files) and the table then say so, not PASS beside an exit of 2.
  std::vector<std::string> missing;
  auto attempt = [&](const std::string& what, const auto& writer) {
    try {
      writer();
    } catch (const std::exception& e) {
      missing.push_back(fmt::format("{}: {}", what, e.what()));
    }
  };
  if (flags.record) attempt("--record", [&] { RecordRun(result, common.spec, flags.history, flags.quiet); });
  if (!flags.json.empty()) attempt("--json not written", [&] { report::WriteJsonReport(result, flags.json); });
  if (!flags.html.empty()) attempt("--html not written", [&] { report::WriteHtmlReport(result, flags.html); });
  if (!flags.csv.empty()) {
    attempt("--csv not written", [&] { WriteFileAtomically(flags.csv, report::CsvReport(result)); });
  }
  // The result as the Markdown and the table show it. An interrupted run stays 130; stderr
  // still names what is missing.
  auto shown_now = [&] {
    RunResult shown = result;
    if (!missing.empty() && result.verdict.exit != ExitCode::kInterrupted) {
      shown.verdict.exit = ExitCode::kRunFailed;
      shown.verdict.lines.insert(shown.verdict.lines.end(), missing.begin(), missing.end());
    }
    return shown;
  };
  if (!flags.markdown.empty()) {
    attempt("--markdown not written",
            [&] { WriteFileAtomically(flags.markdown, report::MarkdownReport(shown_now())); });
  }
  const RunResult shown = shown_now();
  report::WriteTerminalReport(shown, std::cout, color);
  std::cout << std::flush;
  for (const std::string& line : missing) std::cerr << "perfengine: " << line << "\n";
  return shown.verdict.exit;
}

ExitCode ValidateCommand(const CommonOptions& common, bool strict) {
  // Every mistake at once: the parse's (thrown together), then the programs', the git
  // revisions' and the startup commands'.
  spec::Spec spec = ParseSpecAt(common.spec);
  for (const std::string& assignment : common.contenders) spec::ApplyContenderOverride(spec, assignment);
  std::vector<spec::SpecError> errors;
  try {
    spec::CheckPrograms(spec);
  } catch (const spec::SpecError& e) {
    errors.push_back(e);
  }
  auto runner = MakeSystemProcessRunner();
  for (spec::SpecError& e : CheckByRunning(spec, *runner)) errors.push_back(std::move(e));
  if (!errors.empty()) throw spec::SpecError::Several(std::move(errors));
  run::SelectWorkloads(spec, RunOptions(common));
  for (const std::string& warning :
       run::ThreadAxisWarnings(spec, static_cast<int>(std::thread::hardware_concurrency()))) {
    std::cerr << "perfengine: warning: " << OneLine(warning) << "\n";
  }
  if (const auto nothing = GatesNothingWarning(spec)) {
    std::cerr << "perfengine: warning: " << OneLine(*nothing) << "\n";
    if (strict) {
      std::cerr << "perfengine: validate --strict: a warning fails the spec\n";
      return ExitCode::kRunFailed;
    }
  }
  std::cout << fmt::format("{}: ok ({}, {}; baseline '{}', candidate '{}')\n", OneLine(common.spec),
                           FormatCount(static_cast<long long>(spec.contenders.size()), "contender"),
                           FormatCount(static_cast<long long>(spec.workloads.size()), "workload"), spec.baseline,
                           spec.candidate);
  return ExitCode::kPass;
}

ExitCode ListCommand(const CommonOptions& common) {
  const spec::Spec spec = LoadSpec(common);
  const run::Options options = RunOptions(common);
  const fs::path cache = options.cache_root;
  for (const spec::Workload* w : run::SelectWorkloads(spec, options)) {
    std::cout << w->name << (w->gate ? "" : " (not gated)") << "\n";
    // Spec text, printed as the reports print it: no control sequence reaches the terminal.
    if (!w->description.empty()) std::cout << "    " << OneLine(w->description) << "\n";
    switch (w->fixture.kind) {
      case spec::Fixture::Kind::kNone:
        break;
      case spec::Fixture::Kind::kDirectory: {
        std::size_t files = 0;
        const auto bytes = DirectorySize(w->fixture.directory, &files);
        std::cout << fmt::format("    fixture: directory {} ({}, {})\n", OneLine(w->fixture.directory.string()),
                                 FormatCount(static_cast<long long>(files), "file"), Size(bytes));
        break;
      }
      case spec::Fixture::Kind::kGenerator: {
        std::vector<std::string> params;
        for (const auto& [k, v] : w->fixture.params) params.push_back(fmt::format("{} = {}", k, ParamText(v)));
        std::cout << fmt::format("    fixture: generator {}{}\n", w->fixture.generator,
                                 params.empty() ? "" : OneLine(fmt::format(" ({})", fmt::join(params, ", "))));
        auto generator = gen::BuiltinRegistry().Create(w->fixture.generator);
        gen::Context ctx;
        ctx.scale = options.scale.value_or(spec.settings.scale) * w->scale_factor;
        ctx.seed = spec.settings.seed;
        const fs::path dir =
            gen::FixtureDirectory(*generator, w->fixture.params, ctx, cache.empty() ? gen::DefaultCacheRoot() : cache);
        if (gen::IsCached(dir)) {
          std::size_t files = 0;
          const auto bytes = DirectorySize(dir, &files);
          std::cout << fmt::format("    cached: {}, {} in {}\n", FormatCount(static_cast<long long>(files), "file"),
                                   Size(bytes), OneLine(dir.string()));
        } else {
          std::cout << "    not generated yet (perfengine generate SPEC --out DIR writes it for inspection)\n";
        }
        break;
      }
    }
  }
  return ExitCode::kPass;
}

ExitCode GenerateCommand(const CommonOptions& common, const std::string& out_dir) {
  const spec::Spec spec = LoadSpec(common);
  const run::Options options = RunOptions(common);
  Settings settings = spec.settings;
  if (options.scale) settings.scale = *options.scale;
  for (const spec::Workload* w : run::SelectWorkloads(spec, options)) {
    if (w->fixture.kind != spec::Fixture::Kind::kGenerator) continue;
    const fs::path dir = fs::path(out_dir) / run::PathComponent(w->name);
    if (fs::exists(dir) && !fs::is_empty(dir)) {
      throw spec::UsageError(fmt::format("--out: {} exists and is not empty", dir.string()));
    }
    fs::create_directories(dir);
    auto generator = gen::BuiltinRegistry().Create(w->fixture.generator);
    gen::Context ctx;
    ctx.scale = settings.scale * w->scale_factor;
    ctx.seed = settings.seed;
    ctx.out_dir = dir;
    generator->Generate(w->fixture.params, ctx);
    std::size_t files = 0;
    const auto bytes = DirectorySize(dir, &files);
    std::cout << fmt::format("{}: {}, {} in {}\n", w->name, FormatCount(static_cast<long long>(files), "file"),
                             Size(bytes), dir.string());
  }
  return ExitCode::kPass;
}

}  // namespace pe::cli

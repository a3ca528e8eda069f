#include "engine/cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "engine/cli/output_paths.h"
#include "engine/cli/validate_checks.h"
#include "engine/model/atomic_file.h"
#include "engine/report/csv_reporter.h"
#include "engine/report/html_reporter.h"
#include "engine/report/json_reporter.h"
#include "engine/report/markdown_reporter.h"
#include "engine/report/terminal_reporter.h"
#include "engine/run/experiment.h"
#include "engine/run/path_component.h"
#include "engine/run/thread_axis.h"
#include "engine/runner/process_runner.h"
#include "engine/spec/programs.h"
#include "engine/spec/rounds_reach.h"
#include "engine/spec/spec.h"
#include "generators/fixture_cache.h"
#include "generators/generator.h"

namespace pe::cli {

using model::ExitCode;
using model::RunResult;
using model::Settings;
using model::WriteFileAtomically;
using runner::MakeSystemProcessRunner;

namespace fs = std::filesystem;

namespace {

spec::Spec LoadSpec(const CommonOptions& common) {
  spec::Spec spec = spec::ParseSpecFile(common.spec);
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
  // CI sets the variable from a pull-request label; a person passes the flag.
  const char* accept_env = std::getenv("PERFENGINE_ACCEPT_REGRESSION");
  if (flag) return "--accept-regression";
  if (accept_env != nullptr && *accept_env != '\0' && std::string(accept_env) != "0") {
    return "PERFENGINE_ACCEPT_REGRESSION";
  }
  return "";
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
  run::SelectWorkloads(spec, options);  // unknown --workload names fail before any work
  for (const std::string& warning :
       run::ThreadAxisWarnings(spec, static_cast<int>(std::thread::hardware_concurrency()))) {
    std::cerr << "perfengine: warning: " << warning << "\n";
  }
  CheckOutputPaths(
      common.spec,
      {{"--json", flags.json}, {"--markdown", flags.markdown}, {"--html", flags.html}, {"--csv", flags.csv}});
  auto runner = MakeSystemProcessRunner();
  const RunResult result = run::RunExperiment(spec, options, *runner);
  // Files first: an interrupted or failed run still leaves its evidence behind. One file that
  // cannot be written (the disk filled during the run) costs neither the others nor the table.
  std::vector<std::string> unwritten;
  auto write = [&](const char* flag, const std::string& path, const auto& writer) {
    if (path.empty()) return;
    try {
      writer();
    } catch (const std::exception& e) {
      unwritten.push_back(fmt::format("perfengine: {} not written: {}", flag, e.what()));
    }
  };
  write("--json", flags.json, [&] { report::WriteJsonReport(result, flags.json); });
  write("--markdown", flags.markdown, [&] { WriteFileAtomically(flags.markdown, report::MarkdownReport(result)); });
  write("--html", flags.html, [&] { report::WriteHtmlReport(result, flags.html); });
  write("--csv", flags.csv, [&] { WriteFileAtomically(flags.csv, report::CsvReport(result)); });
  report::WriteTerminalReport(result, std::cout, color);
  std::cout << std::flush;
  for (const std::string& line : unwritten) std::cerr << line << "\n";
  // A report CI asked for and did not get is a failed run, whatever the verdict said.
  if (!unwritten.empty() && result.verdict.exit != ExitCode::kInterrupted) return ExitCode::kRunFailed;
  if (flags.record) {
    try {
      RecordRun(result, common.spec, flags.history);
    } catch (const std::exception& e) {
      // The run stands; its record is missing, which a CI job must notice.
      std::cerr << "perfengine: --record: " << e.what() << "\n";
      return ExitCode::kRunFailed;
    }
  }
  return result.verdict.exit;
}

ExitCode ValidateCommand(const CommonOptions& common) {
  // Every mistake at once: the parse's (thrown together), then the programs', the git
  // revisions' and the startup commands'.
  spec::Spec spec = spec::ParseSpecFile(common.spec);
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
    std::cerr << "perfengine: warning: " << warning << "\n";
  }
  std::cout << fmt::format("{}: ok ({} contenders, {} workloads; baseline '{}', candidate '{}')\n", common.spec,
                           spec.contenders.size(), spec.workloads.size(), spec.baseline, spec.candidate);
  return ExitCode::kPass;
}

ExitCode ListCommand(const CommonOptions& common) {
  const spec::Spec spec = LoadSpec(common);
  const run::Options options = RunOptions(common);
  const fs::path cache = options.cache_root;
  for (const spec::Workload* w : run::SelectWorkloads(spec, options)) {
    std::cout << w->name << (w->gate ? "" : " (not gated)") << "\n";
    if (!w->description.empty()) std::cout << "    " << w->description << "\n";
    switch (w->fixture.kind) {
      case spec::Fixture::Kind::kNone:
        break;
      case spec::Fixture::Kind::kDirectory: {
        std::size_t files = 0;
        const auto bytes = DirectorySize(w->fixture.directory, &files);
        std::cout << fmt::format("    fixture: directory {} ({} files, {})\n", w->fixture.directory.string(), files,
                                 Size(bytes));
        break;
      }
      case spec::Fixture::Kind::kGenerator: {
        std::vector<std::string> params;
        for (const auto& [k, v] : w->fixture.params) params.push_back(fmt::format("{} = {}", k, ParamText(v)));
        std::cout << fmt::format("    fixture: generator {}{}\n", w->fixture.generator,
                                 params.empty() ? "" : fmt::format(" ({})", fmt::join(params, ", ")));
        auto generator = gen::BuiltinRegistry().Create(w->fixture.generator);
        gen::Context ctx;
        ctx.scale = options.scale.value_or(spec.settings.scale) * w->scale_factor;
        ctx.seed = spec.settings.seed;
        const fs::path dir =
            gen::FixtureDirectory(*generator, w->fixture.params, ctx, cache.empty() ? gen::DefaultCacheRoot() : cache);
        if (gen::IsCached(dir)) {
          std::size_t files = 0;
          const auto bytes = DirectorySize(dir, &files);
          std::cout << fmt::format("    cached: {} files, {} in {}\n", files, Size(bytes), dir.string());
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
    std::cout << fmt::format("{}: {} files, {} in {}\n", w->name, files, Size(bytes), dir.string());
  }
  return ExitCode::kPass;
}

}  // namespace pe::cli

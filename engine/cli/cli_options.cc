#include "engine/cli/cli_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "engine/report/reporter.h"
#include "engine/spec/spec.h"

namespace pe::cli {

bool UseColor() {
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
}

CLI::Validator WholeNumber(long long min, long long max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        std::size_t used = 0;
        long long n = 0;
        try {
          n = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || n < min || n > max) {
          return fmt::format("must be a whole number from {} to {}, not '{}'", min, max, text);
        }
        return {};
      },
      fmt::format("{}..{}", min, max), "WholeNumber");
}

CLI::Validator PositiveUpTo(double max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        std::size_t used = 0;
        double x = 0;
        try {
          x = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || !(x > 0) || !(x <= max)) {
          return fmt::format("must be a number greater than 0 and at most {}, not '{}'", max, text);
        }
        return {};
      },
      fmt::format("(0..{}]", max), "PositiveUpTo");
}

void AddSpecOptions(CLI::App* cmd, CommonOptions& o, bool spec_required) {
  CLI::Option* spec = cmd->add_option("spec", o.spec, "The spec file (TOML)");
  if (spec_required) spec->required();
  cmd->add_option("--contender", o.contenders,
                  "Replace a contender's program (NAME=PROGRAM) or its git revision (NAME=git:REV) (repeatable)");
  cmd->add_option("--workload", o.workloads, "Only this workload (repeatable); startup always runs");
  cmd->add_option("--scale", o.scale, "Multiply fixture sizes by this factor")
      ->check(PositiveUpTo(spec::limits::kMaxScale));
  cmd->add_option("--cache-dir", o.cache_dir, "Fixture cache (default: $PERFENGINE_CACHE or ~/.cache/perfengine)");
}

void AddReportOptions(CLI::App* cmd, ReportPaths& paths) {
  for (const report::Format& f : report::Formats()) {
    if (f.destination != report::Destination::kFile) continue;
    cmd->add_option(std::string(f.flag), paths[std::string(f.name)], std::string(f.help));
  }
}

void AddUnresolvedOption(CLI::App* cmd, std::string& policy) {
  cmd->add_option("--unresolved", policy,
                  "What a claim left unresolved exits with: exit3 (default: 3), fail (1) or pass (0); also "
                  "PERFENGINE_UNRESOLVED")
      ->check(CLI::IsMember({"exit3", "fail", "pass"}));
}

}  // namespace pe::cli

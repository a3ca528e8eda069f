// What several subcommands share: who accepted a regression, and writing the reports asked for.
#include "engine/cli/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>

#include "engine/gate/unresolved.h"
#include "engine/model/atomic_file.h"
#include "engine/report/reporter.h"
#include "engine/spec/spec_error.h"

namespace pe::cli {

using model::RunResult;
using model::WriteFileAtomically;

std::string PathFor(const ReportPaths& paths, std::string_view format) {
  const auto it = paths.find(format);
  return it == paths.end() ? std::string() : it->second;
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

void WriteReports(const RunResult& result, const ReportPaths& files, bool color) {
  // Files first: an interrupted or failed run still leaves its evidence behind.
  for (const report::Format& f : report::Formats()) {
    if (f.destination != report::Destination::kFile) continue;
    if (const std::string path = PathFor(files, f.name); !path.empty()) {
      WriteFileAtomically(path, f.reporter->Render(result, {}));
    }
  }
  for (const report::Format& f : report::Formats()) {
    if (f.destination == report::Destination::kStdout) std::cout << f.reporter->Render(result, {color});
  }
}

}  // namespace pe::cli

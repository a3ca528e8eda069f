#include "engine/spec/programs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "engine/runner/program_lookup.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/suggest.h"

namespace pe::spec {

using runner::ResolvedProgram;

namespace {

constexpr std::string_view kGitPrefix = "git:";

std::filesystem::path SpecDir(const Spec& spec) {
  return spec.path.parent_path().empty() ? std::filesystem::path(".") : spec.path.parent_path();
}

}  // namespace

std::optional<std::filesystem::path> ResolveProgram(const std::string& program, const std::filesystem::path& base,
                                                    std::string* why) {
  // The runner's lookup, so the spec check and the spawn agree on what a program is; the
  // messages here name the spec's terms.
  const char* path_env = std::getenv("PATH");
  const ResolvedProgram found = pe::runner::ResolveProgram(program, base, path_env ? path_env : "/usr/bin:/bin");
  if (found.error.empty()) return found.path.lexically_normal();
  // Where the program was looked for, resolved: a relative path is relative to the spec's
  // folder, which is rarely where the user stands.
  std::filesystem::path p(program);
  if (p.is_relative()) p = base / p;
  std::error_code ec;
  if (std::filesystem::path absolute = std::filesystem::absolute(p, ec); !ec) p = absolute;
  if (found.error.rfind("not executable", 0) == 0) {
    *why = fmt::format("program '{}' is not an executable file ({})", program, p.lexically_normal().string());
  } else if (program.find('/') == std::string::npos) {
    *why = fmt::format("program '{}' not found on PATH", program);
  } else {
    *why = fmt::format("program '{}' not found (looked for {})", program, p.lexically_normal().string());
  }
  return std::nullopt;
}

void CheckPrograms(Spec& spec) {
  const std::map<std::string, std::string> placeholders = {{"spec_dir", SpecDir(spec).string()}};
  std::vector<SpecError> errors;  // every contender's, not only the first
  for (Contender& c : spec.contenders) {
    if (!c.git.empty()) continue;  // its programs exist only once its revision is built
    for (std::vector<Located>* argv : {&c.argv, &c.startup_argv, &c.worker}) {
      if (argv->empty()) continue;  // no worker
      Located& program = argv->front();
      std::string why;
      const std::string expanded = Expand(program.value, placeholders);
      auto resolved = ResolveProgram(expanded, SpecDir(spec), &why);
      if (!resolved) errors.emplace_back(program.pos, fmt::format("contender '{}': {}", c.name, why));
    }
  }
  // The hooks' programs (engine/run/hooks.cc), unless one is made per execution ({workdir}/tool).
  auto check_hook = [&](const Hooks& hooks, const std::string& whose) {
    for (const std::vector<Located>* argv : {&hooks.prepare, &hooks.cleanup}) {
      if (argv->empty()) continue;
      const Located& program = argv->front();
      std::string unused;
      const std::vector<std::string> names = PlaceholdersIn(program.value, &unused);
      if (std::any_of(names.begin(), names.end(), [](const std::string& n) { return n != "spec_dir"; })) continue;
      std::string why;
      if (!ResolveProgram(Expand(program.value, placeholders), SpecDir(spec), &why)) {
        errors.emplace_back(program.pos,
                            fmt::format("{}: {}: {}", whose, argv == &hooks.prepare ? "prepare" : "cleanup", why));
      }
    }
  };
  for (const Contender& c : spec.contenders) {
    if (c.git.empty()) check_hook(c.hooks, fmt::format("contender '{}'", c.name));
  }
  for (const Workload& w : spec.workloads)
    check_hook(w.hooks, fmt::format("workload '{}'", w.sweep.empty() ? w.name : w.sweep));
  if (!errors.empty()) throw SpecError::Several(std::move(errors));
}

void ApplyContenderOverride(Spec& spec, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size()) {
    throw UsageError(fmt::format("--contender expects NAME=PROGRAM or NAME=git:REVISION, got '{}'", assignment));
  }
  const std::string name = assignment.substr(0, eq);
  const std::string program = assignment.substr(eq + 1);
  Contender* contender = nullptr;
  for (Contender& c : spec.contenders) {
    if (c.name == name) contender = &c;
  }
  if (contender == nullptr) {
    throw UsageError(fmt::format("--contender: '{}' is not a contender of {}{}", name, spec.path.string(),
                                 DidYouMean(name, spec.ContenderNames())));
  }
  // NAME=git:REV: the same contender (its repository, build and argv) built from another
  // revision. A program whose name starts with "git:" is still reachable as ./git:...
  if (program.rfind(kGitPrefix, 0) == 0) {
    const std::string revision = program.substr(kGitPrefix.size());
    if (revision.empty()) {
      throw UsageError(fmt::format("--contender {}: 'git:' names no revision, e.g. {}=git:main", name, name));
    }
    if (contender->git.empty()) {
      throw UsageError(fmt::format(
          "--contender {}: contender '{}' of {} is not built from git (it has no 'git' key): no revision to replace; "
          "{}=PROGRAM replaces its program",
          assignment, name, spec.path.string(), name));
    }
    contender->git = revision;
    contender->git_pos = {fmt::format("--contender {}", assignment), 0, 0};
    return;
  }
  // The user typed the path relative to where they stand, not to the spec.
  std::filesystem::path p(program);
  const std::string resolved = program.find('/') != std::string::npos && p.is_relative()
                                   ? std::filesystem::absolute(p).lexically_normal().string()
                                   : program;
  std::string why;
  if (!ResolveProgram(resolved, ".", &why)) throw UsageError(fmt::format("--contender {}: {}", name, why));
  const SourcePos pos{"--contender", 0, 0};
  const bool startup_follows = contender->startup_argv.size() == 2 &&
                               contender->startup_argv[0].value == contender->argv[0].value &&
                               contender->startup_argv[1].value == "--version";
  // A worker contender's program is its worker's (a spec's worker alone has argv copied from it).
  if (!contender->worker.empty() &&
      (!contender->argv_declared || contender->worker[0].value == contender->argv[0].value))
    contender->worker[0] = {resolved, pos};
  contender->argv[0] = {resolved, pos};
  if (startup_follows) contender->startup_argv[0] = {resolved, pos};
}

}  // namespace pe::spec

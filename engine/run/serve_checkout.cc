#include "engine/run/serve_checkout.h"

#include <fmt/format.h>

#include <stdexcept>

#include "engine/gitbuild/git.h"
#include "engine/spec/placeholders.h"

namespace pe::run {

namespace fs = std::filesystem;

namespace {

bool Names(const std::string& text) {
  std::string error;
  for (const std::string& name : spec::PlaceholdersIn(text, &error)) {
    if (name == "checkout") return true;
  }
  return false;
}

}  // namespace

bool UsesCheckout(const spec::Workload& w) {
  for (const auto& a : w.args) {
    if (Names(a.value)) return true;
  }
  for (const auto& [k, v] : w.env) {
    if (Names(v)) return true;
  }
  return false;
}

fs::path FixtureRepository(const fs::path& fixture) {
  std::error_code ec;
  if (fs::exists(fixture / ".git", ec)) return fixture;
  if (fs::exists(fixture / "repo" / ".git", ec)) return fixture / "repo";
  throw std::runtime_error(
      fmt::format("{{checkout}} needs a git repository in the fixture, but neither {} nor {} is one", fixture.string(),
                  (fixture / "repo").string()));
}

void MakeCheckout(runner::ProcessRunner& runner, const fs::path& fixture, const fs::path& dest, const fs::path& scratch,
                  double timeout_s) {
  const fs::path repo = FixtureRepository(fixture);
  // --shared: objects are read through alternates from the fixture, nothing is copied or
  // hard-linked, so nothing the server does in its clone can reach the fixture's files.
  const gitbuild::GitResult cloned = gitbuild::RunGit(
      runner, dest.parent_path(),
      {"-c", "advice.detachedHead=false", "clone", "--quiet", "--shared", fs::absolute(repo).string(), dest.string()},
      scratch, timeout_s);
  if (!cloned.outcome.ok()) {
    throw std::runtime_error(fmt::format("cloning {} for {{checkout}} failed: {}", repo.string(),
                                         cloned.err.empty() ? "git exited abnormally" : cloned.err));
  }
}

}  // namespace pe::run

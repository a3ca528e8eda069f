// Isolation between contenders (issue 26, M4), end to end: a candidate that looks for the
// baseline's answer everywhere a process of the same user can look, instead of computing it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

std::string Quoted(const std::string& text) { return nlohmann::json(text).dump(); }

// Prints (and writes to {out}) the first thing it finds that holds the baseline's answer: at
// the paths the engine once used, anywhere under $TMPDIR (which holds the run's scratch), in
// the open files of its ancestors (the engine among them) and in their memory.
constexpr const char* kCheat = R"PY(
import os, re, sys
workdir, out = sys.argv[1], sys.argv[2]
pattern = re.compile(rb"baseline-answer-[0-9]+")
found = []
def look(data):
    m = pattern.search(data or b"")
    if m and not found: found.append(m.group(0))
def read(path):
    try:
        with open(path, "rb") as f: look(f.read(1 << 22))
    except OSError: pass
for rel in ["../../c0/stdout", "../../../.parity-baseline-output", "../../.parity-baseline-output",
            "../c0/stdout", "../../c0/out"]:
    read(os.path.join(workdir, rel))
for dirpath, dirs, files in os.walk(os.environ["TMPDIR"]):
    for name in files: read(os.path.join(dirpath, name))
pid = os.getppid()
while pid > 1:
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            path = f"/proc/{pid}/fd/{fd}"
            if os.path.isfile(path): read(path)
    except OSError: pass
    try:
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb") as mem:
            for line in maps:
                start, end = (int(x, 16) for x in line.split()[0].split("-"))
                if "r" not in line.split()[1] or end - start > (1 << 28): continue
                try:
                    mem.seek(start); look(mem.read(end - start))
                except (OSError, ValueError, OverflowError): pass
    except OSError: pass
    with open(f"/proc/{pid}/stat") as stat: pid = int(stat.read().rsplit(")", 1)[1].split()[1])
answer = (found[0] if found else b"no answer found") + b"\n"
sys.stdout.buffer.write(answer)
with open(out, "wb") as f: f.write(answer)
)PY";

// TMPDIR for the engine under test, so the cheat can search all of it quickly.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const fs::path& dir) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    fs::create_directories(dir);
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (old_) {
      ::setenv("TMPDIR", old_->c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }

 private:
  std::optional<std::string> old_;
};

// perfengine as a user other than root when the test runs as root: root reads every process's
// memory whatever the engine does, so what is tested is the guarantee for everyone else.
Finished RunAsUser(const std::vector<std::string>& args, const fs::path& dir) {
  if (::geteuid() != 0) return RunPerfengine(args, dir);
  fs::permissions(dir, fs::perms::all);
  std::string command = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " PERFENGINE_BINARY;
  for (const std::string& a : args) command += " '" + a + "'";
  command +=
      " < /dev/null > '" + (dir / "perfengine.out").string() + "' 2> '" + (dir / "perfengine.err").string() + "'";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadAll(dir / "perfengine.out"),
          ReadAll(dir / "perfengine.err")};
}

TEST(IsolationE2E, ACandidateThatCopiesTheBaselinesAnswerFailsParity) {
  TempDir dir;
  const std::string answer = "baseline-answer-" + std::to_string(::getpid());
  std::ofstream(dir.path() / "cheat.py") << kCheat;
  for (const std::string output : {"stdout", "{out}"}) {
    SCOPED_TRACE(output);
    std::ofstream(dir.path() / "spec.toml")
        << "[run]\nrounds = 1\nwarmup_rounds = 0\n\n"
        << "[contenders.baseline]\nargv = [" << Quoted(STUB_CONTENDER) << ", \"--print\", " << Quoted(answer)
        << ", \"--write\", \"{out}\", " << Quoted(answer) << "]\nstartup = [\"/bin/true\"]\n\n"
        << "[contenders.candidate]\nargv = [\"/usr/bin/python3\", " << Quoted((dir.path() / "cheat.py").string())
        << ", \"{workdir}\", \"{out}\"]\nstartup = [\"/bin/true\"]\n\n"
        << "[workloads.work]\noutput = " << Quoted(output) << "\n";
    const ScopedTmpdir tmpdir(dir.path() / "tmp");
    fs::permissions(dir.path() / "tmp", fs::perms::all);
    const Finished f = RunAsUser({"run", (dir.path() / "spec.toml").string()}, dir.path());
    EXPECT_EQ(f.exit, 2) << f.out << f.err;
    EXPECT_NE(f.out.find("work: contender 'candidate' output differs from baseline's (parity: exact); no timing is "
                         "reported over different work"),
              std::string::npos)
        << f.out << f.err;
    EXPECT_NE(f.out.find("candidate: no answer found"), std::string::npos) << f.out << f.err;
  }
}

fs::path WriteNormaliseWritesFixtureSpec(const TempDir& dir) {
  const fs::path spec = dir.path() / "spec.toml";
  std::ofstream(spec) << "[run]\nrounds = 1\nwarmup_rounds = 0\n"
                      << "[contenders.baseline]\nargv = [\"/bin/echo\", \"same\"]\nstartup = [\"/bin/true\"]\n"
                      << "[contenders.candidate]\nargv = [\"/bin/echo\", \"same\"]\nstartup = [\"/bin/true\"]\n"
                      << "[workloads.work]\nfixture = { generator = \"hash_pair\", targets = 60 }\n"
                      << "normalise = [\"/bin/sh\", \"-c\", \"chmod -R u+w {fixture}; echo x > {fixture}/planted; cat "
                         "{output}\"]\n";
  return spec;
}

// In its sandbox a normalise command cannot write into the fixture at all (docs/threat-model.md).
TEST(IsolationE2E, ANormaliseCommandCannotWriteIntoTheFixture) {
  if (std::system("unshare --user --mount true 2>/dev/null") != 0) GTEST_SKIP() << "this kernel refuses namespaces";
  TempDir dir;
  const fs::path cache = dir.path() / "cache";
  const fs::path spec = WriteNormaliseWritesFixtureSpec(dir);
  const Finished f = RunPerfengine({"run", spec.string(), "--cache-dir", cache.string()}, dir.path());
  EXPECT_EQ(f.exit, 0) << f.out << f.err;
  for (const auto& entry : fs::recursive_directory_iterator(cache)) {
    EXPECT_NE(entry.path().filename(), "planted") << entry.path();
  }
}

// Where the kernel refuses the sandbox, a normalise command that wrote into the fixture was once
// blamed on the next contender to run.
TEST(IsolationE2E, ANormaliseCommandThatWritesIntoTheFixtureIsBlamedForIt) {
  TempDir dir;
  const fs::path cache = dir.path() / "cache";
  const fs::path spec = WriteNormaliseWritesFixtureSpec(dir);
  const std::optional<Finished> unsandboxed =
      RunPerfengineUnsandboxed({"run", spec.string(), "--cache-dir", cache.string()}, dir.path());
  if (!unsandboxed) GTEST_SKIP() << "this machine cannot refuse the sandbox for a test";
  const Finished& f = *unsandboxed;
  EXPECT_EQ(f.exit, 2) << f.out << f.err;
  EXPECT_NE(f.out.find("work: the normalise command /bin/sh, run on the output of contender 'baseline', wrote into "
                       "the fixture "),
            std::string::npos)
      << f.out << f.err;
  EXPECT_NE(f.out.find(": created 'planted'. Fixtures are read-only to it as well"), std::string::npos) << f.out;
  EXPECT_EQ(f.out.find("contender 'candidate'"), std::string::npos) << f.out;
}

}  // namespace
}  // namespace pe::e2e

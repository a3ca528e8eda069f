// Command::record_maps: the spawner traces the command and every process it starts and reads
// each one's /proc/PID/maps as it exits (spawner_protocol.h, kSpawnTraceMaps). The judge is
// the kernel's own view: the programs a shell ran and the libraries they load, by pid.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <set>

#include "engine/runner/interrupt.h"
#include "engine/runner/process_runner.h"
#include "engine/runner/spawn.h"
#include "tests/unit/runner/process_table.h"
#include "tests/unit/runner/temp_dir.h"

namespace pe::runner {
namespace {

namespace fs = std::filesystem;
using Status = Outcome::Status;

class MappedFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { interrupt::ResetForTesting(); }
  void TearDown() override { EXPECT_EQ(testing::CountLeftOver(), 0); }

  Command Shell(const std::string& script) {
    Command command;
    command.argv = {"/bin/sh", "-c", script};
    command.stdout_path = dir_.path() / "stdout";
    command.stderr_path = dir_.path() / "stderr";
    command.timeout_s = 60;  // a safety net only
    command.record_maps = true;
    return command;
  }

  // The pids that had a file whose name is `name` (the last component) mapped.
  static std::set<int> PidsMapping(const Outcome& outcome, const std::string& name) {
    std::set<int> pids;
    for (const MappedFile& file : outcome.mapped) {
      if (fs::path(file.path).filename() == name) pids.insert(file.pid);
    }
    return pids;
  }

  std::unique_ptr<ProcessRunner> runner_ = MakeSystemProcessRunner();
  testing::TempDir dir_;
};

TEST_F(MappedFilesTest, EveryProcessOfTheCommandIsSeenWithItsOwnLibraries) {
  // The shell forks twice; each child execs a program of its own.
  const fs::path sh = fs::canonical("/bin/sh");
  const Outcome outcome = runner_->Run(Shell("/bin/true; /bin/cat /dev/null; exit 0"));
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  const std::set<int> shells = PidsMapping(outcome, sh.filename());
  const std::set<int> trues = PidsMapping(outcome, fs::canonical("/bin/true").filename());
  const std::set<int> cats = PidsMapping(outcome, fs::canonical("/bin/cat").filename());
  ASSERT_EQ(shells.size(), 1u) << ::testing::PrintToString(outcome.mapped);
  ASSERT_EQ(trues.size(), 1u) << ::testing::PrintToString(outcome.mapped);
  ASSERT_EQ(cats.size(), 1u) << ::testing::PrintToString(outcome.mapped);
  EXPECT_NE(*trues.begin(), *shells.begin());
  EXPECT_NE(*cats.begin(), *trues.begin());
  // Each of the three loaded the C library, and each process lists a file once.
  const std::set<int> libc = PidsMapping(outcome, "libc.so.6");
  EXPECT_EQ(libc, (std::set<int>{*shells.begin(), *trues.begin(), *cats.begin()}));
  std::set<std::pair<int, std::string>> unique;
  for (const MappedFile& f : outcome.mapped) EXPECT_TRUE(unique.insert({f.pid, f.path}).second) << f.path;
  // Only files, each an absolute path: no [vdso], [heap] or anonymous mappings.
  for (const MappedFile& f : outcome.mapped) EXPECT_EQ(f.path.front(), '/') << f.path;
}

TEST_F(MappedFilesTest, NothingIsRecordedUnlessAsked) {
  Command command = Shell("/bin/true");
  command.record_maps = false;
  const Outcome outcome = runner_->Run(command);
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_TRUE(outcome.mapped.empty());
}

TEST_F(MappedFilesTest, TracingKeepsSignalsExitCodesAndTimeouts) {
  // A signal the program sends itself still kills it, and its maps are still read.
  const Outcome killed = runner_->Run(Shell("kill -TERM $$"));
  EXPECT_EQ(killed.status, Status::kSignalled);
  EXPECT_EQ(killed.signal, SIGTERM);
  EXPECT_FALSE(PidsMapping(killed, "libc.so.6").empty());
  // A trapped signal reaches the handler: delivered, not swallowed by the tracer.
  const Outcome trapped = runner_->Run(Shell("trap 'exit 7' USR1; kill -USR1 $$; sleep 30"));
  EXPECT_EQ(trapped.status, Status::kExited);
  EXPECT_EQ(trapped.exit_code, 7);
  // A traced command that outlives its timeout is killed with all it started.
  Command slow = Shell("/bin/sleep 30 & /bin/sleep 30; wait");
  slow.timeout_s = 0.5;
  const Outcome timed_out = runner_->Run(slow);
  EXPECT_EQ(timed_out.status, Status::kTimedOut);
}

TEST_F(MappedFilesTest, ACommandThatCannotStartSaysSo) {
  Command missing = Shell("");
  missing.argv = {(dir_.path() / "no-such-program").string()};
  const Outcome outcome = runner_->Run(missing);
  EXPECT_EQ(outcome.status, Status::kSpawnFailed);
  EXPECT_TRUE(outcome.mapped.empty());
}

TEST(ParseMappedFiles, EachPathOncePerProcessInTheOrderSeen) {
  const std::vector<MappedFile> files = ParseMappedFiles(
      "12 /usr/bin/ruby3.1\n12 /lib/libc.so.6\n12 /usr/bin/ruby3.1\n13 /lib/libc.so.6\n"
      "bad line\n 14 /x\n15\n16 /a dir/with space.so\n");
  const std::vector<MappedFile> expected = {
      {12, "/usr/bin/ruby3.1"}, {12, "/lib/libc.so.6"}, {13, "/lib/libc.so.6"}, {16, "/a dir/with space.so"}};
  EXPECT_EQ(files, expected);
}

}  // namespace
}  // namespace pe::runner

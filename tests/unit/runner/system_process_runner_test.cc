// The real runner against the real stub contender (tests/stub/) and a few coreutils.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/runner/interrupt.h"
#include "engine/runner/process_runner.h"
#include "engine/runner/spawn.h"
#include "engine/runner/wait_for_exit.h"
#include "tests/unit/runner/process_table.h"
#include "tests/unit/runner/temp_dir.h"

namespace pe::runner {
namespace {

namespace fs = std::filesystem;
using Status = Outcome::Status;
using testing::CountChildrenOf;
using testing::CountInGroup;
using testing::CountLeftOver;
using testing::Gone;
using testing::TempDir;

const std::string kStub = STUB_CONTENDER;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

pid_t ReadPid(const fs::path& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

class SystemProcessRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { interrupt::ResetForTesting(); }
  void TearDown() override {
    interrupt::ResetForTesting();
    // Whatever a test ran, nothing of it may survive, not even a zombie.
    EXPECT_EQ(CountLeftOver(), 0);
  }

  Command Stub(std::vector<std::string> args) {
    Command command;
    command.argv = {kStub};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.stdout_path = dir_ / "stdout";
    command.stderr_path = dir_ / "stderr";
    command.timeout_s = 30;  // a safety net only; tests that time out set their own
    return command;
  }

  std::unique_ptr<ProcessRunner> runner_ = MakeSystemProcessRunner();
  TempDir dir_;
};

TEST_F(SystemProcessRunnerTest, ExitZeroAndStdoutCaptured) {
  Outcome outcome = runner_->Run(Stub({"--print", "hello", "--print", "world"}));
  EXPECT_EQ(outcome.status, Status::kExited);
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_TRUE(outcome.ok());
  EXPECT_EQ(outcome.error, "");
  EXPECT_EQ(ReadAll(dir_ / "stdout"), "hello\nworld\n");
  EXPECT_EQ(ReadAll(dir_ / "stderr"), "");
  EXPECT_GT(outcome.wall_s, 0);
  EXPECT_GT(outcome.max_rss_kib, 0);
}

// Command::cpu (duet rounds): the kernel's own view of the child's affinity is that one CPU,
// and a CPU outside the engine's set is a spawn failure that leaves nothing behind.
TEST_F(SystemProcessRunnerTest, APinnedChildMayRunOnlyOnItsCpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int last = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) last = cpu;
  }
  Command command;
  command.argv = {"/bin/grep", "Cpus_allowed_list", "/proc/self/status"};
  command.stdout_path = dir_ / "stdout";
  command.cpu = last;
  const Outcome outcome = runner_->Run(command);
  EXPECT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_EQ(ReadAll(dir_ / "stdout"), "Cpus_allowed_list:\t" + std::to_string(last) + "\n");
  command.cpu = CPU_SETSIZE - 1;
  const Outcome refused = runner_->Run(command);
  EXPECT_EQ(refused.status, Status::kSpawnFailed);
  EXPECT_EQ(refused.error, "cannot pin /bin/grep to CPU " + std::to_string(CPU_SETSIZE - 1) + ": Invalid argument");
}

TEST_F(SystemProcessRunnerTest, NonZeroExit) {
  Outcome outcome = runner_->Run(Stub({"--print", "partial", "--exit", "3"}));
  EXPECT_EQ(outcome.status, Status::kExited);
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error, "exited with status 3");
  EXPECT_EQ(ReadAll(dir_ / "stdout"), "partial\n");
}

TEST_F(SystemProcessRunnerTest, KilledBySignal) {
  Outcome outcome = runner_->Run(Stub({"--signal", "SEGV"}));
  EXPECT_EQ(outcome.status, Status::kSignalled);
  EXPECT_EQ(outcome.signal, SIGSEGV);
  EXPECT_EQ(outcome.error, "killed by SIGSEGV");
  EXPECT_FALSE(outcome.ok());
}

TEST_F(SystemProcessRunnerTest, StubRejectsUnknownFlags) {
  Outcome outcome = runner_->Run(Stub({"--print", "never", "--frobnicate"}));
  EXPECT_EQ(outcome.exit_code, 64);
  EXPECT_EQ(ReadAll(dir_ / "stdout"), "");
  EXPECT_EQ(ReadAll(dir_ / "stderr"), "stub-contender: unknown flag '--frobnicate'\n");
}

TEST_F(SystemProcessRunnerTest, StderrCapturedAndOutputFilesTruncated) {
  std::ofstream(dir_ / "stdout") << "stale output from an earlier, longer run\n";
  std::ofstream(dir_ / "stderr") << "stale errors from an earlier, longer run\n";
  Outcome outcome = runner_->Run(Stub({"--print", "new", "--stderr", "warning"}));
  EXPECT_TRUE(outcome.ok());
  EXPECT_EQ(ReadAll(dir_ / "stdout"), "new\n");
  EXPECT_EQ(ReadAll(dir_ / "stderr"), "warning\n");
}

TEST_F(SystemProcessRunnerTest, StdinIsEmpty) {
  Command command = Stub({});
  command.argv = {"cat"};  // would block forever on an inherited terminal
  command.timeout_s = 5;
  Outcome outcome = runner_->Run(command);
  EXPECT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_EQ(ReadAll(dir_ / "stdout"), "");
}

TEST_F(SystemProcessRunnerTest, ArgvIsPassedAsGivenIncludingArgvZero) {
  Command command = Stub({});
  command.argv = {"cat", "/proc/self/cmdline"};
  Outcome outcome = runner_->Run(command);
  EXPECT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_EQ(ReadAll(dir_ / "stdout"), std::string("cat\0/proc/self/cmdline\0", 23));
}

TEST_F(SystemProcessRunnerTest, ArgumentsAreNeverSplitOrExpanded) {
  Outcome outcome = runner_->Run(Stub({"--print", "two words; $HOME * \"q\""}));
  EXPECT_TRUE(outcome.ok());
  EXPECT_EQ(ReadAll(dir_ / "stdout"), "two words; $HOME * \"q\"\n");
}

TEST_F(SystemProcessRunnerTest, EnvironmentAddsAndOverrides) {
  ::setenv("PE_RUNNER_TEST_INHERITED", "from-engine", 1);
  ::setenv("PE_RUNNER_TEST_REPLACED", "old", 1);
  Command command = Stub({});
  command.argv = {"env"};
  command.env = {{"PE_RUNNER_TEST_ADDED", "added value"}, {"PE_RUNNER_TEST_REPLACED", "new"}};
  Outcome outcome = runner_->Run(command);
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  std::string env = ReadAll(dir_ / "stdout");
  EXPECT_NE(env.find("\nPE_RUNNER_TEST_INHERITED=from-engine\n"), std::string::npos) << env;
  EXPECT_NE(env.find("\nPE_RUNNER_TEST_ADDED=added value\n"), std::string::npos) << env;
  EXPECT_NE(env.find("\nPE_RUNNER_TEST_REPLACED=new\n"), std::string::npos) << env;
  EXPECT_EQ(env.find("PE_RUNNER_TEST_REPLACED=old"), std::string::npos) << env;
  // The spawner's own environment (it runs without restartable sequences) is not the child's.
  if (std::getenv("GLIBC_TUNABLES") == nullptr) {
    EXPECT_EQ(env.find("GLIBC_TUNABLES"), std::string::npos) << env;
  }
}

TEST_F(SystemProcessRunnerTest, WorkingDirectoryApplied) {
  fs::create_directory(dir_ / "work");
  Command command = Stub({"--write", "relative.txt", "here"});
  command.cwd = dir_ / "work";
  Outcome outcome = runner_->Run(command);
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_EQ(ReadAll(dir_ / "work" / "relative.txt"), "here\n");
  EXPECT_FALSE(fs::exists(fs::current_path() / "relative.txt"));
}

TEST_F(SystemProcessRunnerTest, ProgramNotFound) {
  Command command = Stub({});
  command.argv = {"pe-no-such-program"};
  Outcome outcome = runner_->Run(command);
  EXPECT_EQ(outcome.status, Status::kSpawnFailed);
  EXPECT_EQ(outcome.error, "program not found: pe-no-such-program");
  EXPECT_FALSE(fs::exists(dir_ / "stdout"));  // nothing was started, nothing was opened
}

TEST_F(SystemProcessRunnerTest, ProgramPathNotFound) {
  Command command = Stub({});
  command.argv = {"/nonexistent/stub"};
  EXPECT_EQ(runner_->Run(command).error, "program not found: /nonexistent/stub");
}

TEST_F(SystemProcessRunnerTest, ProgramNotExecutable) {
  std::ofstream(dir_ / "script") << "echo hi\n";
  fs::permissions(dir_ / "script", fs::perms::owner_read | fs::perms::owner_write);
  Command command = Stub({});
  command.argv = {(dir_ / "script").string()};
  Outcome outcome = runner_->Run(command);
  EXPECT_EQ(outcome.status, Status::kSpawnFailed);
  EXPECT_EQ(outcome.error, "not executable: " + (dir_ / "script").string());
}

TEST_F(SystemProcessRunnerTest, ExecFailureIsReportedAndReaped) {
  // Executable bit, but no format the kernel can run and no #! line: execve fails in the child.
  std::ofstream(dir_ / "garbage") << "\x7f\x01\x02\x03 not a program";
  fs::permissions(dir_ / "garbage", fs::perms::owner_all);
  Command command = Stub({});
  command.argv = {(dir_ / "garbage").string()};
  Outcome outcome = runner_->Run(command);
  EXPECT_EQ(outcome.status, Status::kSpawnFailed);
  EXPECT_EQ(outcome.error, "cannot start " + (dir_ / "garbage").string() + ": Exec format error");
}

TEST_F(SystemProcessRunnerTest, MissingWorkingDirectory) {
  Command command = Stub({"--print", "x"});
  command.cwd = dir_ / "absent";
  Outcome outcome = runner_->Run(command);
  EXPECT_EQ(outcome.status, Status::kSpawnFailed);
  EXPECT_EQ(outcome.error, "working directory not found: " + (dir_ / "absent").string());
}

TEST_F(SystemProcessRunnerTest, UnwritableOutputFile) {
  Command command = Stub({"--print", "x"});
  command.stdout_path = dir_ / "absent" / "stdout";
  Outcome outcome = runner_->Run(command);
  EXPECT_EQ(outcome.status, Status::kSpawnFailed);
  EXPECT_EQ(outcome.error,
            "cannot open stdout file " + (dir_ / "absent" / "stdout").string() + ": No such file or directory");
}

TEST_F(SystemProcessRunnerTest, UserTimeComesFromTheChild) {
  Outcome outcome = runner_->Run(Stub({"--busy-ms", "200"}));
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_GE(outcome.user_s, 0.15);
  EXPECT_LT(outcome.sys_s, 0.1);
  EXPECT_GE(outcome.wall_s, outcome.user_s * 0.9);
}

TEST_F(SystemProcessRunnerTest, SleepCountsAsWallNotCpu) {
  Outcome outcome = runner_->Run(Stub({"--sleep-ms", "150"}));
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_GE(outcome.wall_s, 0.15);
  EXPECT_LT(outcome.user_s + outcome.sys_s, 0.1);
}

TEST_F(SystemProcessRunnerTest, PeakRssIsThisChildsNotTheHighWaterMark) {
  Outcome big = runner_->Run(Stub({"--alloc-mb", "128"}));
  ASSERT_TRUE(big.ok()) << big.error;
  EXPECT_GE(big.max_rss_kib, 128 * 1024);
  // RUSAGE_CHILDREN would still say 128 MiB here: its ru_maxrss is the largest child so far.
  // The margin leaves room for a sanitizer build's larger baseline.
  Outcome small = runner_->Run(Stub({"--print", "x"}));
  ASSERT_TRUE(small.ok()) << small.error;
  EXPECT_GT(small.max_rss_kib, 0);
  EXPECT_LT(small.max_rss_kib, big.max_rss_kib - 64 * 1024);
}

// Linux carries the high-water RSS of the memory a process had before exec into its
// ru_maxrss; started by fork, vfork or posix_spawn from the engine, a contender's peak RSS
// would be at least the engine's. The stub reports its own VmHWM from /proc/self/status.
TEST_F(SystemProcessRunnerTest, PeakRssMatchesTheContendersOwnVmHwmWhateverTheEngineHolds) {
  auto measure = [this](const char* alloc_mb) {
    Outcome outcome = runner_->Run(Stub({"--alloc-mb", alloc_mb, "--vmhwm", (dir_ / "hwm").string()}));
    EXPECT_TRUE(outcome.ok()) << outcome.error;
    const double own = std::stod(ReadAll(dir_ / "hwm"));
    return std::pair<double, double>(static_cast<double>(outcome.max_rss_kib), own);
  };
  // The kernel's RSS counters are per-CPU and summed approximately for ru_maxrss, so a few
  // hundred KiB either way is the kernel's precision, not ours: 5% for a contender of some
  // size, an absolute margin for a tiny one.
  auto check = [&](const char* engine_holds) {
    for (const char* alloc_mb : {"16", "48"}) {
      auto [measured, own] = measure(alloc_mb);
      EXPECT_NEAR(measured, own, own * 0.05) << engine_holds << ", stub --alloc-mb " << alloc_mb;
    }
    auto [measured, own] = measure("0");
    EXPECT_NEAR(measured, own, 512) << engine_holds << ", stub allocating nothing";
  };
  check("engine holding nothing");
  // 200 MB of output held in the engine's memory, every page touched.
  std::vector<char> held(200u << 20, 'x');
  check("engine holding 200 MB");
  EXPECT_EQ(held[held.size() - 1], 'x');
}

// Many children at once, each with an argument long enough to span pages of its request, must
// each get exactly their own argv and output, and a tiny child started afterwards must still
// report its own peak RSS. A spawner whose minders share one request buffer fails here, and so
// does one whose minders share memory and touch every page of it (commit 9fb0ea5's minders
// shared memory; with its slots value-initialised, this test failed).
TEST_F(SystemProcessRunnerTest, ManyChildrenAtOnceEachGetTheirOwnRequest) {
  constexpr int kThreads = 12, kEach = 4;
  std::vector<std::thread> threads;
  std::vector<std::string> failures(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string token = std::to_string(t) + "." + std::to_string(i) + std::string(6000 + 97 * t, 'a' + t);
        Command command = Stub({"--print", token, "--sleep-ms", "20"});
        command.stdout_path = dir_ / ("out." + std::to_string(t));
        command.stderr_path = dir_ / ("err." + std::to_string(t));
        const Outcome outcome = runner_->Run(command);
        if (!outcome.ok()) failures[t] += outcome.error + "; ";
        if (ReadAll(command.stdout_path) != token + "\n")
          failures[t] += "wrong output for " + token.substr(0, 8) + "; ";
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  Outcome outcome = runner_->Run(Stub({"--vmhwm", (dir_ / "hwm").string()}));
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  const double own = std::stod(ReadAll(dir_ / "hwm"));
  EXPECT_NEAR(static_cast<double>(outcome.max_rss_kib), own, 512);
}

TEST_F(SystemProcessRunnerTest, ChildRunsInItsOwnProcessGroup) {
  Command command = Stub({});
  command.argv = {"cat", "/proc/self/stat"};
  ASSERT_TRUE(runner_->Run(command).ok());
  std::string stat = ReadAll(dir_ / "stdout");
  std::istringstream fields(stat.substr(stat.rfind(')') + 1));
  std::string state;
  pid_t ppid = 0, pgrp = 0;
  fields >> state >> ppid >> pgrp;
  pid_t pid = std::stoi(stat);
  EXPECT_EQ(pgrp, pid);
  EXPECT_NE(pgrp, ::getpgrp());
  // Its parent is the spawner's minder for this child, not the engine.
  EXPECT_NE(ppid, ::getpid());
  EXPECT_GT(SpawnerPid(), 0);
}

TEST_F(SystemProcessRunnerTest, DaemonThatEscapedWithSetsidIsKilled) {
  Outcome outcome = runner_->Run(Stub({"--spawn-setsid-hang", (dir_ / "daemon.pids").string()}));
  EXPECT_TRUE(outcome.ok()) << outcome.error;
  std::istringstream pids(ReadAll(dir_ / "daemon.pids"));
  pid_t child = 0, grandchild = 0;
  pids >> child >> grandchild;
  ASSERT_GT(child, 0);
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(Gone(child));
  EXPECT_TRUE(Gone(grandchild));
}

TEST_F(SystemProcessRunnerTest, DaemonThatEscapedWithSetsidIsKilledOnTimeout) {
  Command command = Stub({"--spawn-setsid-hang", (dir_ / "daemon.pids").string(), "--hang"});
  command.timeout_s = 0.3;
  EXPECT_EQ(runner_->Run(command).status, Status::kTimedOut);
  std::istringstream pids(ReadAll(dir_ / "daemon.pids"));
  pid_t child = 0, grandchild = 0;
  pids >> child >> grandchild;
  ASSERT_GT(child, 0);
  EXPECT_TRUE(Gone(child));
  EXPECT_TRUE(Gone(grandchild));
}

std::pair<pid_t, pid_t> ReadPair(const fs::path& path) {
  for (int i = 0; i < 1000 && ReadAll(path).find(' ') == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::istringstream pids(ReadAll(path));
  pid_t child = 0, grandchild = 0;
  pids >> child >> grandchild;
  return {child, grandchild};
}

// Children started side by side each have a minder: what a child leaves behind is killed when
// that child exits, and nothing of the others.
TEST_F(SystemProcessRunnerTest, ChildrenStartedSideBySideLoseOnlyWhatTheyThemselvesLeft) {
  const fs::path a_pids = dir_ / "a.pids", b_pids = dir_ / "b.pids";
  // A: a server whose daemon escapes with setsid.
  Command a = Stub({"--spawn-setsid-hang", a_pids.string(), "--hang"});
  a.stdout_path = dir_ / "a.stdout";
  StartedServer server_a = runner_->StartServer(a);
  ASSERT_NE(server_a.server, nullptr) << server_a.error;
  const auto [a_child, a_grandchild] = ReadPair(a_pids);
  ASSERT_GT(a_grandchild, 0);

  // B, while A runs: exits leaving a daemon of its own.
  Outcome b = runner_->Run(Stub({"--spawn-setsid-hang", b_pids.string()}));
  EXPECT_TRUE(b.ok()) << b.error;
  const auto [b_child, b_grandchild] = ReadPair(b_pids);
  ASSERT_GT(b_grandchild, 0);
  EXPECT_TRUE(Gone(b_child));
  EXPECT_TRUE(Gone(b_grandchild));
  EXPECT_TRUE(server_a.server->Running());
  EXPECT_FALSE(Gone(a_child));
  EXPECT_FALSE(Gone(a_grandchild));

  // C, while A runs. When A stops, A's daemon goes; C stays.
  Command c = Stub({"--hang"});
  c.stdout_path = dir_ / "c.stdout";
  StartedServer server_c = runner_->StartServer(c);
  ASSERT_NE(server_c.server, nullptr) << server_c.error;
  const Outcome a_end = server_a.server->Stop(5);
  EXPECT_EQ(a_end.status, Status::kSignalled) << a_end.error;
  EXPECT_TRUE(Gone(a_child));
  EXPECT_TRUE(Gone(a_grandchild));
  EXPECT_TRUE(server_c.server->Running());

  // A child started and ended while C runs leaves C unharmed.
  EXPECT_TRUE(runner_->Run(Stub({})).ok());
  EXPECT_TRUE(server_c.server->Running());
  EXPECT_EQ(server_c.server->Stop(5).status, Status::kSignalled);
}

// PR_SET_PDEATHSIG and the spawner's end-of-file check: an engine killed with SIGKILL has no
// chance to clean up, yet nothing it started survives it.
TEST_F(SystemProcessRunnerTest, SigkilledEngineLeavesNoContenderBehind) {
  const fs::path pidfile = dir_ / "daemon.pids";
  const fs::path log = dir_ / "log";
  const pid_t engine = ::fork();
  ASSERT_GE(engine, 0);
  if (engine == 0) {
    auto runner = MakeSystemProcessRunner();
    Command command = Stub({"--log", log.string(), "started", "--spawn-setsid-hang", pidfile.string(), "--hang"});
    runner->Run(command);
    ::_exit(0);
  }
  for (int i = 0; i < 1000 && !fs::exists(pidfile); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(fs::exists(pidfile));
  ::kill(engine, SIGKILL);
  ::waitpid(engine, nullptr, 0);
  std::istringstream pids(ReadAll(pidfile));
  pid_t child = 0, grandchild = 0;
  pids >> child >> grandchild;
  std::istringstream started(ReadAll(log));
  std::string tag;
  pid_t stub = 0;
  started >> tag >> stub;
  ASSERT_GT(stub, 0);
  bool all_gone = false;
  for (int i = 0; i < 200 && !all_gone; ++i) {
    all_gone = Gone(stub) && Gone(child) && Gone(grandchild);
    if (!all_gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(Gone(stub));
  EXPECT_TRUE(Gone(child));
  EXPECT_TRUE(Gone(grandchild));
}

TEST_F(SystemProcessRunnerTest, HangupInterruptsLikeSigterm) {
  Command command = Stub({"--log", (dir_ / "log").string(), "started", "--hang"});
  std::thread hangup([this] {
    // Up to 60 s for the child to start: a fixed second could end before it, on a loaded machine.
    for (int i = 0; i < 30000 && !fs::exists(dir_ / "log"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ::kill(::getpid(), SIGHUP);
  });
  Outcome outcome = runner_->Run(command);
  hangup.join();
  EXPECT_EQ(outcome.status, Status::kInterrupted);
  EXPECT_EQ(outcome.error, "interrupted by SIGHUP; its process group was killed");
  EXPECT_EQ(interrupt::Signal(), SIGHUP);
}

TEST_F(SystemProcessRunnerTest, ResourceLimitsApplyToTheChildOnly) {
  UniqueFd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  UniqueFd out(::open((dir_ / "limits").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  StartRequest request;
  request.program = "/bin/cat";
  request.argv = {"cat", "/proc/self/limits"};
  request.env = ChildEnvironment({});
  request.stdin_fd = in.get();
  request.stdout_fd = out.get();
  request.stderr_fd = out.get();
  request.limits.push_back({RLIMIT_NOFILE, 123, 456});
  Spawned spawned = StartProcess(request);
  ASSERT_EQ(spawned.error, "");
  EXPECT_TRUE(ReapChild(spawned).ok());
  EXPECT_NE(ReadAll(dir_ / "limits").find("Max open files            123                  456"), std::string::npos)
      << ReadAll(dir_ / "limits");
}

// A quiet start tells the engine nothing until the child's end: the pid, when asked for, is the
// running child's group, while the result pipe stays empty; the end brings the SpawnStarted and
// the SpawnDone together, so ReapChild reads the outcome as after any other start.
TEST_F(SystemProcessRunnerTest, AQuietStartSaysNothingUntilTheEnd) {
  int stdin_pipe[2];
  ASSERT_EQ(::pipe2(stdin_pipe, O_CLOEXEC), 0);
  UniqueFd in(stdin_pipe[0]), release(stdin_pipe[1]);
  UniqueFd out(::open((dir_ / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  StartRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", "read line; echo \"got $line\"; exit 4"};
  request.env = ChildEnvironment({});
  request.stdin_fd = in.get();
  request.stdout_fd = out.get();
  request.stderr_fd = out.get();
  request.quiet_start = true;
  Spawned spawned = StartProcess(request);
  ASSERT_EQ(spawned.error, "");
  const pid_t pid = KnownPid(spawned);  // waits until the child was created
  ASSERT_GT(pid, 0);
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_EQ(KnownPid(spawned), pid);
  // The child waits on its stdin, so it is still running: nothing may have come back.
  EXPECT_FALSE(IsDone(spawned.done.get()));
  ASSERT_EQ(::write(release.get(), "go\n", 3), 3);
  const Outcome outcome = ReapChild(spawned);
  EXPECT_EQ(outcome.status, Status::kExited);
  EXPECT_EQ(outcome.exit_code, 4);
  EXPECT_EQ(ReadAll(dir_ / "out"), "got go\n");
  EXPECT_TRUE(Gone(pid));
}

TEST_F(SystemProcessRunnerTest, TimeoutKillsTheChildAndItsGrandchild) {
  Command command = Stub({"--spawn-child-hang", (dir_ / "grandchild.pid").string(), "--hang"});
  command.timeout_s = 0.3;
  Outcome outcome = runner_->Run(command);
  EXPECT_EQ(outcome.status, Status::kTimedOut);
  EXPECT_EQ(outcome.error, "timed out after 0.3 s; its process group was killed");
  EXPECT_GE(outcome.wall_s, 0.3);
  EXPECT_LT(outcome.wall_s, 30.0);  // it hangs forever: killed at its timeout, however loaded the machine
  pid_t grandchild = ReadPid(dir_ / "grandchild.pid");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(Gone(grandchild));
}

TEST_F(SystemProcessRunnerTest, GrandchildLeftBehindByACleanExitIsKilled) {
  Outcome outcome = runner_->Run(Stub({"--spawn-child-hang", (dir_ / "grandchild.pid").string()}));
  EXPECT_TRUE(outcome.ok()) << outcome.error;
  pid_t grandchild = ReadPid(dir_ / "grandchild.pid");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(Gone(grandchild));
}

TEST_F(SystemProcessRunnerTest, NoProcessLeftInTheGroupAfterTimeout) {
  // The stub's pid is its group id; the grandchild pid file lets us find that group.
  Command command = Stub({"--log", (dir_ / "log").string(), "started", "--spawn-child-hang",
                          (dir_ / "grandchild.pid").string(), "--hang"});
  command.timeout_s = 0.3;
  EXPECT_EQ(runner_->Run(command).status, Status::kTimedOut);
  std::istringstream log(ReadAll(dir_ / "log"));
  std::string tag;
  pid_t stub_pid = 0;
  log >> tag >> stub_pid;
  ASSERT_EQ(tag, "started");
  ASSERT_GT(stub_pid, 0);
  EXPECT_EQ(CountInGroup(stub_pid), 0);
  EXPECT_TRUE(Gone(stub_pid));
}

TEST_F(SystemProcessRunnerTest, FinishingBeforeTheTimeoutIsANormalExit) {
  Command command = Stub({"--sleep-ms", "20", "--print", "done"});
  command.timeout_s = 60;  // far beyond 20 ms, however loaded the machine
  Outcome outcome = runner_->Run(command);
  EXPECT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_LT(outcome.wall_s, 60);
}

TEST_F(SystemProcessRunnerTest, InterruptKillsTheGroupQuickly) {
  Command command = Stub({"--log", (dir_ / "log").string(), "started", "--spawn-child-hang",
                          (dir_ / "grandchild.pid").string(), "--hang"});
  command.timeout_s = 300;
  std::thread ctrl_c([this] {
    // Wait until the grandchild exists, so the interrupt lands mid-run (on a loaded machine
    // that can take seconds; a fixed wait could land before the child exists).
    for (int i = 0; i < 30000 && !fs::exists(dir_ / "grandchild.pid"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ::kill(::getpid(), SIGINT);
  });
  auto start = std::chrono::steady_clock::now();
  Outcome outcome = runner_->Run(command);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctrl_c.join();
  EXPECT_EQ(outcome.status, Status::kInterrupted);
  EXPECT_EQ(outcome.error, "interrupted by SIGINT; its process group was killed");
  EXPECT_LT(elapsed, 60.0);  // ended by the interrupt, not the 300 s timeout
  EXPECT_TRUE(interrupt::Interrupted());
  std::istringstream log(ReadAll(dir_ / "log"));
  std::string tag;
  pid_t stub_pid = 0;
  log >> tag >> stub_pid;
  ASSERT_GT(stub_pid, 0);
  EXPECT_EQ(CountInGroup(stub_pid), 0);
  pid_t grandchild = ReadPid(dir_ / "grandchild.pid");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(Gone(grandchild));
}

TEST_F(SystemProcessRunnerTest, NothingStartsAfterAnInterrupt) {
  ::raise(SIGTERM);
  Outcome outcome = runner_->Run(Stub({"--write", (dir_ / "ran").string(), "yes"}));
  EXPECT_EQ(outcome.status, Status::kInterrupted);
  EXPECT_EQ(outcome.error, "interrupted before start");
  EXPECT_FALSE(fs::exists(dir_ / "ran"));
}

TEST_F(SystemProcessRunnerTest, StubLogsOneLinePerRunInOrder) {
  Command first = Stub({"--log", (dir_ / "log").string(), "A"});
  Command second = Stub({"--log", (dir_ / "log").string(), "B"});
  ASSERT_TRUE(runner_->Run(first).ok());
  ASSERT_TRUE(runner_->Run(second).ok());
  std::istringstream log(ReadAll(dir_ / "log"));
  std::string tag_a, tag_b;
  long long pid_a = 0, ns_a = 0, pid_b = 0, ns_b = 0;
  log >> tag_a >> pid_a >> ns_a >> tag_b >> pid_b >> ns_b;
  EXPECT_EQ(tag_a, "A");
  EXPECT_EQ(tag_b, "B");
  EXPECT_NE(pid_a, pid_b);
  EXPECT_LT(ns_a, ns_b);
}

TEST_F(SystemProcessRunnerTest, StubVersionAndCopy) {
  std::ofstream(dir_ / "fixture") << "fixture bytes\n";
  Outcome copied = runner_->Run(
      Stub({"--copy", (dir_ / "fixture").string(), (dir_ / "copy").string(), "--version", "--print", "unreached"}));
  ASSERT_TRUE(copied.ok()) << copied.error;
  EXPECT_EQ(ReadAll(dir_ / "copy"), "fixture bytes\n");
  EXPECT_EQ(ReadAll(dir_ / "stdout"), "stub-contender 1.0\n");
}

}  // namespace
}  // namespace pe::runner

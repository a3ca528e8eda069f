// The seam between the engine and the operating system: run one command, measure it; or start
// a server and hold it until stopped. SystemProcessRunner spawns real children; tests use a fake
// that returns scripted outcomes and scripted servers (tests/support/fake_process_runner.h), so
// gate, stats, report and serve-round tests are exact and instant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/process/sandbox.h"

namespace pe::runner {

// What a command may reach: engine/process/sandbox.h.
using Sandbox = process::Sandbox;

struct Command {
  std::vector<std::string> argv;           // argv[0] is a path or a name looked up on PATH; never a shell
  std::map<std::string, std::string> env;  // added to (or replacing in) the engine's environment
  std::filesystem::path cwd;               // empty: the engine's working directory
  std::filesystem::path stdout_path;       // child's stdout goes here (truncated); empty: /dev/null
  std::filesystem::path stderr_path;       // child's stderr goes here (truncated); empty: /dev/null
  double timeout_s = 0;                    // 0: none; on expiry the whole process group is killed
  int cpu = -1;  // >= 0: pinned to this CPU before exec (sched_setaffinity), with all it starts
  // Run only: record the files every process of the command maps executable (its program and
  // shared objects), read from /proc/PID/maps as each process exits (spawner_protocol.h,
  // kSpawnTraceMaps). Slows the command down: never for a timed execution.
  bool record_maps = false;
  Sandbox sandbox;
  // Exec with the kernel's address-space randomization off (spawner_protocol.h, kSpawnNoAslr):
  // a round's worker under [run] randomize_addresses = false. Workers only.
  bool no_aslr = false;
};

// One file a process of a command had mapped executable when it exited (Command::record_maps).
struct MappedFile {
  int pid = 0;
  std::string path;  // as /proc/PID/maps shows it (absolute; " (deleted)" when it was removed)
  bool operator==(const MappedFile&) const = default;
};

struct Outcome {
  enum class Status {
    kExited,       // exit_code holds the status
    kSignalled,    // signal holds the signal number
    kTimedOut,     // killed by us after timeout_s
    kSpawnFailed,  // error says why (program not found, not executable, ...)
    kInterrupted,  // the engine got SIGINT/SIGTERM; the child's group was killed
  };
  Status status = Status::kExited;
  int exit_code = 0;
  int signal = 0;
  double wall_s = 0;  // monotonic clock from spawn to reap
  double user_s = 0;  // from wait4() on this child (its own rusage, not RUSAGE_CHILDREN)
  double sys_s = 0;
  std::int64_t max_rss_kib = 0;
  std::string error;
  std::vector<MappedFile> mapped;  // with Command::record_maps: per process, each file once
  // Command::sandbox asked for, but the kernel refused namespaces, so the command ran without
  // one: why ("unshare: Operation not permitted"). Empty when sandboxed or not asked.
  std::string sandbox_refused;

  bool ok() const { return status == Status::kExited && exit_code == 0; }
};

// A server started by ProcessRunner::StartServer: it runs until stopped or until it dies by
// itself. Destroying one that was not stopped or waited for kills and reaps it.
class RunningServer {
 public:
  virtual ~RunningServer() = default;
  // True until the server exits. Does not reap, so Stop and Wait still collect its status and
  // its usage.
  virtual bool Running() const = 0;
  // Waits up to `seconds` for the server to exit by itself, without signalling or reaping it.
  // True when it has exited.
  virtual bool ExitsWithin(double seconds) = 0;
  // Asks the server to stop (SIGTERM to its group, SIGKILL after `grace_s`) and collects how
  // it ended and its CPU time and peak RSS. Calling it again returns the same Outcome.
  virtual Outcome Stop(double grace_s) = 0;
  // For a server that died by itself: waits for it to exit and collects the same Outcome.
  virtual Outcome Wait() = 0;
};

struct StartedServer {
  std::unique_ptr<RunningServer> server;  // null when it could not be started
  std::string error;                      // why not: "program not found: X", "interrupted before start", ...
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Runs `command` to its end and measures it.
  virtual Outcome Run(const Command& command) = 0;
  // Starts `command` as a server and returns without waiting; command.timeout_s is ignored.
  virtual StartedServer StartServer(const Command& command) = 0;
  // Runs `command` as Run does, but holds the child between fork and exec and calls
  // `attach(pid)` there (a perf counter opened then counts the program from its first
  // instruction). When `attach` returns false the child is killed before exec and the outcome
  // is kSpawnFailed. The system runner's is held_child.h; measure's perf counter runs through
  // this, so a fake runner can script it too.
  virtual Outcome RunHeld(const Command& command, const std::function<bool(int pid)>& attach) = 0;
};

// Starts each command through perfengine-spawner (spawn.h) from an argv, in a new process
// group, stdin from /dev/null; installs the SIGINT/SIGTERM/SIGHUP handlers (interrupt.h).
// Whatever a contender leaves behind, in its group or in a session of its own (setsid), is
// killed and reaped when its run ends (normally, on timeout or on interrupt), and nothing
// outlives the engine, even a SIGKILLed one (PR_SET_PDEATHSIG, the spawner's socket).
// Servers are ServerProcesses (server_process.h).
std::unique_ptr<ProcessRunner> MakeSystemProcessRunner();

}  // namespace pe::runner

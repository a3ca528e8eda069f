// One worker (docs/workers.md): a long-lived contender process that runs named benchmarks in
// batches when asked, over the line protocol of protocol.h. Started through perfengine-spawner
// like every child (its own process group, killed with it on timeout or Ctrl-C, leftovers killed
// when it exits), with its channel as a socket on its stdin.
//
// Every way a worker can go wrong (issue 41, item 7) ends the same way: its process group is
// killed and reaped, and the call returns one line naming the worker, the benchmark and the tail
// of its stderr. Failures are data: nothing here throws or exits.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "engine/runner/process_runner.h"
#include "engine/runner/spawn.h"
#include "engine/worker/protocol.h"

namespace pe::worker {

struct WorkerSettings {
  double start_timeout_s = 60;    // from the spawn to its hello: a runtime's start, a suite's loading
  double request_timeout_s = 60;  // from a request to its reply
  double quit_grace_s = 5;        // from 'quit' to its exit, then it is killed
};

struct BatchResult {
  Batch batch;        // when error is empty
  std::string error;  // one line; empty when the batch was measured
  bool ok() const { return error.empty(); }
};

class WorkerProcess {
 public:
  // `name` names the worker in every error (the contender's name: "baseline").
  explicit WorkerProcess(std::string name);
  // Kills and reaps a worker that was started and not yet reaped.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Spawns `command` (argv, env, cwd, stdout and stderr files, sandbox and cpu as a Command
  // says; timeout_s and record_maps are not looked at) with PERFENGINE_WORKER_FDS=0,0 and its
  // stdin a socket of the channel, and reads its hello. "" when the worker is ready, else the
  // error (and nothing is left running). Starts at most once.
  std::string Start(const runner::Command& command, const WorkerSettings& settings);
  // Start in two halves, so several workers start side by side (a round's, each contender's):
  // Spawn returns once the worker runs ("" or the error), AwaitHello waits for its hello, at most
  // start_timeout_s from the spawn.
  std::string Spawn(const runner::Command& command, const WorkerSettings& settings);
  std::string AwaitHello();

  // The worker's greeting, after a successful Start.
  const Hello& hello() const { return hello_; }
  // Its pid, also its process group id; -1 before Start.
  pid_t pid() const { return spawned_.pid; }
  // True from a successful Start until an error or Quit ended it.
  bool alive() const { return alive_; }

  // Asks for one batch and waits for its reply, at most request_timeout_s. On any error but a
  // benchmark the worker does not offer or a `failed` reply, the worker is killed and reaped,
  // and every later call returns that same error.
  BatchResult Run(const std::string& benchmark, std::int64_t iterations);
  // Run in two halves, so several workers run a batch side by side (callgrind's, each
  // contender's, on cores of their own): Ask sends the request ("" or the error, as Run's),
  // Answer waits for its reply, at most request_timeout_s from the Ask.
  std::string Ask(const std::string& benchmark, std::int64_t iterations);
  BatchResult Answer();

  // Says 'quit' and waits quit_grace_s for the worker to exit (then kills its group). "" when
  // it exited with status 0, else the error.
  std::string Quit();

  // How the worker ended (its CPU time, peak RSS), once it has.
  const runner::Outcome& outcome() const { return outcome_; }

 private:
  enum class Read { kLine, kEnded, kTimedOut, kInterrupted, kTooLong };
  Read ReadLine(std::chrono::steady_clock::time_point deadline, std::string* line);
  bool Send(const std::string& text);
  // Reads, without waiting, whatever the worker wrote that nobody read yet.
  void DrainChannel();
  // Kills the group (when still running) and reaps the worker; fills outcome_.
  void KillAndReap();
  // Waits until `deadline` for the worker to exit by itself, then kills it; reaps it.
  void ReapBy(std::chrono::steady_clock::time_point deadline);
  // The one-line error for `where` ("benchmark 'x'", "at start"): records it as the worker's
  // last word and returns it.
  std::string Fail(const std::string& where, const std::string& what);
  // The error for a read that found no line while awaiting a "hello" or a "reply": the worker
  // ended (it is reaped, waiting until `deadline` for its status), timed out, was interrupted,
  // or wrote an over-long line (it is killed).
  std::string ReadFailure(Read read, std::chrono::steady_clock::time_point deadline, const std::string& where,
                          const std::string& awaited, double timeout_s);
  // Why the worker ended, for a read that found it gone: "killed by SIGSEGV", "exited with status 3".
  std::string Ending() const;
  std::string StderrTail() const;

  std::string name_;
  WorkerSettings settings_;
  runner::Spawned spawned_;
  runner::UniqueFd channel_;
  std::string stderr_path_;
  std::chrono::steady_clock::time_point hello_deadline_;  // start_timeout_s after the spawn
  RunRequest asked_;                                      // the request Answer awaits
  bool sent_ = false;                                     // it reached the channel
  std::chrono::steady_clock::time_point answer_deadline_;
  std::string buffer_;  // bytes read past the last line
  Hello hello_;
  bool started_ = false;
  bool alive_ = false;
  bool reaped_ = false;
  std::string error_;  // the error that ended it, returned again by later calls
  runner::Outcome outcome_;
};

}  // namespace pe::worker

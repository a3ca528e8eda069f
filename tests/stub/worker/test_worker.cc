// test-worker: a worker (docs/workers.md) built from include/perfengine/worker.h alone, whose
// misbehaviour the tests choose from argv, one flag per bad case of issue 41, item 7:
//   --crash-on NAME        SIGSEGV when asked to run NAME
//   --exit-on NAME         exit 0 without replying
//   --hang-on NAME         never reply (with --hang-child PATH, a child of its own sleeps too,
//                          its pid written to PATH)
//   --garbage-on NAME      reply "garbage"
//   --wrong-name-on NAME   reply for benchmark "sum2" instead
//   --long-line-on NAME    write 70000 bytes with no newline
//   --extra-line-on NAME   reply twice, in one write (asked for 1 iteration)
//   --fail-on NAME         reply "failed" (a benchmark that could not run)
//   --hello LINE           greet with LINE instead (a wrong version, garbage)
//   --hang-before-hello    never greet
//   --ignore-quit          sleep on after 'quit'
//   --stderr TEXT          write TEXT and a newline to stderr first
// and what the engine's tests measure, to plant differences of a known size:
//   --extra-work PERCENT   "sum" does PERCENT% more arithmetic an iteration
//   --digest-salt TEXT     every digest differs from a worker without it (a parity failure)
//   --calls-per-iteration K  counter "calls" grows K an iteration (default 1)
//   --mallocs-per-iteration K  "sum" allocates (and frees) K blocks an iteration
//   --scaled               also offers "scaled:1", "scaled:2" and "scaled:4": "sum"'s work times
//                          the number (a benchmark with a parameter, for sweeps)
//   --require-dir DIR      exit 4 at start unless DIR is a directory with a file in it (a fixture)
//   --extra-work-when-shared PERCENT  as --extra-work, but only in a worker started for more than
//                          one benchmark ($PERFENGINE_WORKER_BENCHMARKS): what other benchmarks'
//                          set-ups leave in a shared worker's heap, simulated
//   --extra-work-in-counts PERCENT  as --extra-work, in the first K counting workers
//                          ($PERFENGINE_WORKER_DIGESTS "none") to start, K from
//                          --counts-with-extra K, each start a line appended to --count-log PATH:
//                          a count that moves from one process to the next, simulated
//   --digest-as-allowed    "-" where perfengine's PERFENGINE_WORKER_DIGESTS allows it: every
//                          batch of a benchmark after the process's first ("first"), every
//                          batch ("none")
//   --later-digest-salt TEXT  as --digest-salt, on every batch of a benchmark after the
//                          process's first (a result that changes once warm)
//   --log-requests PATH    append each request's benchmark name, a line each, to PATH
//   --log-cpus PATH        append "SHIFT CPUS" to PATH at start: $PERFENGINE_WORKER_SHIFT ("unset", or
//                          "-" when empty) and the CPUs it may run on ("0,1"; sched_getaffinity)
//   --log-shift PATH       append $PERFENGINE_WORKER_SHIFT (or "unset") to PATH, a line at start,
//                          then a space and "no-aslr" when its address randomization is off
//   --slow-odd-batches     the 2nd, 4th, ... request of "sum" does 4 times the work and its
//                          counter "calls" grows twice as fast: which batch of a round was
//                          taken shows in its time and counter
// Benchmarks: "sum" (arithmetic; its digest is its result's), "sleep" (1 ms an iteration) and
// "stdin" (reads stdin: the channel must not be there). Counter "calls": one per iteration.
#include <perfengine/worker.h>
#include <sched.h>
#include <signal.h>
#include <sys/personality.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace {

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool takes_value = flag != "--hang-before-hello" && flag != "--ignore-quit" && flag != "--scaled" &&
                             flag != "--slow-odd-batches" && flag != "--digest-as-allowed";
    flags[flag] = takes_value && i + 1 < argc ? argv[++i] : "";
  }
  return flags;
}

bool On(const std::map<std::string, std::string>& flags, const char* flag, const char* name) {
  const auto it = flags.find(flag);
  return it != flags.end() && it->second == name;
}

void SleepForever() {
  while (true) ::pause();
}

struct Plant {
  std::uint64_t sum_terms = 1000;  // --extra-work makes more
  int mallocs = 0;
};

// The benchmark's result, the same for any iteration count, so both contenders' digests agree.
std::uint64_t Run(const pe_request& request, const Plant& plant) {
  std::uint64_t result = 0;
  for (std::int64_t i = 0; i < request.iterations; ++i) {
    if (std::strcmp(request.name, "sleep") == 0) {
      ::usleep(1000);
      result = 1;
    } else if (std::strcmp(request.name, "stdin") == 0) {
      char byte;
      result = static_cast<std::uint64_t>(::read(0, &byte, 1));  // 0: /dev/null, as promised
    } else {
      // "scaled:K" does K times the work of "sum" (the same answer for any K's digest to differ by K).
      const std::uint64_t times =
          std::strncmp(request.name, "scaled:", 7) == 0 ? std::strtoull(request.name + 7, nullptr, 10) : 1;
      volatile std::uint64_t sum = 0;
      for (std::uint64_t pass = 0; pass < times; ++pass) {
        for (std::uint64_t k = 1; k <= 1000; ++k) sum = sum + k * k;
      }
      volatile std::uint64_t extra = 0;  // --extra-work: the same answer, more arithmetic
      for (std::uint64_t k = 1001; k <= plant.sum_terms; ++k) extra = extra + k * k;
      for (int m = 0; m < plant.mallocs; ++m) {
        void* volatile block = std::malloc(64);
        std::free(block);
      }
      result = sum;
    }
  }
  return result;
}

int Write(pe_worker& worker, const std::string& text) { return pe_worker_write_(&worker, text.data(), text.size()); }

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::string> flags = ParseFlags(argc, argv);
  Plant plant;
  if (flags.contains("--extra-work")) plant.sum_terms = 1000 + 10 * std::stoull(flags.at("--extra-work"));
  if (const char* asked = std::getenv("PERFENGINE_WORKER_BENCHMARKS");
      flags.contains("--extra-work-when-shared") && asked != nullptr && std::strchr(asked, ',') != nullptr) {
    plant.sum_terms = 1000 + 10 * std::stoull(flags.at("--extra-work-when-shared"));
  }
  if (const char* digests = std::getenv("PERFENGINE_WORKER_DIGESTS");
      flags.contains("--extra-work-in-counts") && digests != nullptr && std::strcmp(digests, "none") == 0) {
    const std::string log = flags.at("--count-log");
    int before = 0;
    if (std::FILE* in = std::fopen(log.c_str(), "r")) {
      for (int ch; (ch = std::fgetc(in)) != EOF;) before += ch == '\n';
      std::fclose(in);
    }
    if (std::FILE* out = std::fopen(log.c_str(), "a")) {
      std::fputs("count\n", out);
      std::fclose(out);
    }
    if (before < std::stoi(flags.at("--counts-with-extra"))) {
      plant.sum_terms = 1000 + 10 * std::stoull(flags.at("--extra-work-in-counts"));
    }
  }
  if (flags.contains("--mallocs-per-iteration")) plant.mallocs = std::stoi(flags.at("--mallocs-per-iteration"));
  const std::int64_t calls =
      flags.contains("--calls-per-iteration") ? std::stoll(flags.at("--calls-per-iteration")) : 1;
  const std::string salt = flags.contains("--digest-salt") ? flags.at("--digest-salt") : "";
  if (flags.contains("--stderr")) std::fprintf(stderr, "%s\n", flags.at("--stderr").c_str());
  if (flags.contains("--require-dir")) {
    const std::string dir = flags.at("--require-dir");
    bool has_file = false;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) has_file |= entry.is_regular_file();
    if (!has_file) {
      std::fprintf(stderr, "test-worker: no fixture in '%s'\n", dir.c_str());
      return 4;
    }
  }
  if (flags.contains("--log-shift")) {
    if (FILE* log = std::fopen(flags.at("--log-shift").c_str(), "a")) {
      const char* shift = std::getenv("PERFENGINE_WORKER_SHIFT");
      const int persona = personality(0xffffffff);
      std::fprintf(log, "%s%s\n", shift == nullptr ? "unset" : shift,
                   persona != -1 && (persona & ADDR_NO_RANDOMIZE) != 0 ? " no-aslr" : "");
      std::fclose(log);
    }
  }
  if (flags.contains("--log-cpus")) {
    if (FILE* log = std::fopen(flags.at("--log-cpus").c_str(), "a")) {
      const char* shift = std::getenv("PERFENGINE_WORKER_SHIFT");
      std::string cpus;
      cpu_set_t set;
      CPU_ZERO(&set);
      if (::sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
          if (CPU_ISSET(cpu, &set)) cpus += (cpus.empty() ? "" : ",") + std::to_string(cpu);
        }
      }
      std::fprintf(log, "%s %s\n", shift == nullptr ? "unset" : *shift == '\0' ? "-" : shift, cpus.c_str());
      std::fclose(log);
    }
  }
  pe_worker worker;
  if (pe_worker_open(&worker) != 0) {
    std::perror("test-worker: PERFENGINE_WORKER_FDS");
    return 2;
  }
  if (flags.contains("--hang-before-hello")) SleepForever();
  if (flags.contains("--hello")) {
    Write(worker, flags.at("--hello") + "\n");
  } else {
    pe_worker_hello(&worker,
                    flags.contains("--scaled") ? "sum,sleep,stdin,scaled:1,scaled:2,scaled:4" : "sum,sleep,stdin",
                    "calls");
  }
  pe_request request;
  int next;
  int sum_requests = 0;
  std::set<std::string> answered;  // benchmarks this process has answered
  const char* digests = std::getenv("PERFENGINE_WORKER_DIGESTS");
  const bool as_allowed = flags.contains("--digest-as-allowed") && digests != nullptr;
  const bool omit_first = as_allowed && std::strcmp(digests, "none") == 0;
  const bool omit_later = omit_first || (as_allowed && std::strcmp(digests, "first") == 0);
  while ((next = pe_worker_next(&worker, &request)) == 1) {
    const char* name = request.name;
    if (flags.contains("--log-requests")) {
      if (FILE* log = std::fopen(flags.at("--log-requests").c_str(), "a")) {
        std::fprintf(log, "%s\n", name);
        std::fclose(log);
      }
    }
    const bool slow = flags.contains("--slow-odd-batches") && std::strcmp(name, "sum") == 0 && sum_requests++ % 2 == 1;
    if (On(flags, "--crash-on", name)) ::raise(SIGSEGV);
    if (On(flags, "--exit-on", name)) return 0;
    if (On(flags, "--hang-on", name)) {
      if (flags.contains("--hang-child")) {
        const pid_t child = ::fork();
        if (child == 0) SleepForever();
        if (FILE* file = std::fopen(flags.at("--hang-child").c_str(), "w")) {
          std::fprintf(file, "%d\n", static_cast<int>(child));
          std::fclose(file);
        }
      }
      SleepForever();
    }
    if (On(flags, "--garbage-on", name)) {
      Write(worker, "garbage\n");
      continue;
    }
    if (On(flags, "--long-line-on", name)) {
      Write(worker, std::string(70000, 'x'));
      SleepForever();
    }
    if (On(flags, "--extra-line-on", name)) {
      // Two replies in one write, so the engine surely has the second when it next asks.
      const std::string line = std::string("done name=") + name +
                               " iterations=1 thread_cpu_ns=1 process_cpu_ns=1 wall_ns=1 digest=- counter.calls=1\n";
      Write(worker, line + line);
      continue;
    }
    if (On(flags, "--fail-on", name)) {
      pe_worker_failed(&worker, name, "fixture missing: data.json");
      continue;
    }
    pe_timer timer;
    pe_batch batch;
    pe_timer_start(&timer);
    Plant this_batch = plant;
    if (slow) this_batch.sum_terms = 4000;
    const std::uint64_t result = Run(request, this_batch);
    pe_timer_stop(&timer, &batch);
    const bool later = !answered.insert(name).second;
    const std::string& this_salt =
        later && flags.contains("--later-digest-salt") ? flags.at("--later-digest-salt") : salt;
    char digest[17];
    const std::uint64_t hash = pe_worker_fnv1a(PE_WORKER_FNV_OFFSET, &result, sizeof result);
    std::snprintf(digest, sizeof digest, "%016llx",
                  static_cast<unsigned long long>(pe_worker_fnv1a(hash, this_salt.data(), this_salt.size())));
    if (later ? omit_later : omit_first) std::strcpy(digest, "-");
    const char* counter_names[] = {"calls"};
    const std::int64_t growth[] = {request.iterations * calls * (slow ? 2 : 1)};
    if (On(flags, "--wrong-name-on", name)) std::strcpy(request.name, "sum2");
    pe_worker_done(&worker, &request, &batch, digest, counter_names, growth, 1);
  }
  if (next < 0) {
    std::perror("test-worker: request");
    return 3;
  }
  if (flags.contains("--ignore-quit")) SleepForever();
  return 0;
}

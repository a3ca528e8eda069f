// A stand-in for a google/benchmark binary of version 1.8.0 or later, whose
// --benchmark_min_time takes an iteration count ("1000x"), which Debian 12's 1.7.1 cannot be
// built to do: it answers the flags perfengine-gbench-worker passes with a fixed JSON, so the
// adapter's exact-count path is tested with exact figures (tests/unit/gbench/).
//   BM_exact  runs the count asked for, 1 us of CPU and 2 us of real time per iteration;
//   BM_short  reports one iteration fewer than asked for.
// A --benchmark_min_time without an 'x' is refused as 1.7.1 refuses one with it, so a run in
// seconds cannot pass unnoticed.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
  bool list = false;
  std::string filter, min_time, out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const std::string& flag, std::string* into) {
      if (arg.rfind(flag + "=", 0) != 0) return false;
      *into = arg.substr(flag.size() + 1);
      return true;
    };
    std::string ignored;
    if (arg == "--benchmark_list_tests=true") {
      list = true;
    } else if (value("--benchmark_filter", &filter) || value("--benchmark_min_time", &min_time) ||
               value("--benchmark_out", &out) || value("--benchmark_repetitions", &ignored) ||
               value("--benchmark_out_format", &ignored) || value("--benchmark_color", &ignored)) {
    } else {
      std::fprintf(stderr, "%s: error: unrecognized command-line flag: %s\n", argv[0], arg.c_str());
      return 1;
    }
  }
  if (!min_time.empty() && min_time.back() != 'x') {
    std::fprintf(stderr, "%s: error: unrecognized command-line flag: --benchmark_min_time=%s\n", argv[0],
                 min_time.c_str());
    return 1;
  }
  if (list) {
    std::printf("BM_exact\nBM_short\n");
    return 0;
  }
  const std::string name = filter.size() > 2 ? filter.substr(1, filter.size() - 2) : "";  // ^NAME$
  long long iterations = std::atoll(min_time.c_str());
  if (name == "BM_short") --iterations;
  std::ofstream json(out);
  json << R"({"context": {}, "benchmarks": [{"name": ")" << name << R"(", "run_type": "iteration", "threads": 1, )"
       << R"("iterations": )" << iterations << R"(, "real_time": 2.0, "cpu_time": 1.0, "time_unit": "us"}]})"
       << "\n";
  return json ? 0 : 1;
}

// Generating the dense fixture, against the disk's own limit measured in the same run.
//
//   bench_generators [--dir DIR] [--targets N] [--fan_in K] [--repeat R] [--workspace]
//
// Writes the dense streamed_proto (192,000 targets, fan-in 12 by default) R times and a plain
// loop that write()s the same number of bytes in the same 8 MiB chunks R times, and prints the
// median MB/s of each. Phases (graph building, serialising to memory) show what bounds the
// generator. Neither side calls fsync: both measure what a run sees, the page cache.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "generators/bazel_graph.h"
#include "generators/file_io.h"
#include "generators/generator.h"
#include "generators/query_proto.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double PlainWrite(const fs::path& path, std::size_t bytes) {
  std::string chunk(pe::gen::OutputFile::kFlushBytes, 'x');
  const auto start = Clock::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::perror("open");
    std::exit(2);
  }
  std::size_t left = bytes;
  while (left > 0) {
    const std::size_t n = std::min(left, chunk.size());
    const ssize_t wrote = ::write(fd, chunk.data(), n);
    if (wrote <= 0) {
      std::perror("write");
      std::exit(2);
    }
    left -= static_cast<std::size_t>(wrote);
  }
  ::close(fd);
  return Seconds(start);
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = fs::temp_directory_path() / fmt::format("pe-bench-gen-{}", ::getpid());
  std::int64_t targets = 192000;
  std::int64_t fan_in = 12;
  int repeat = 3;
  bool workspace = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (arg == "--dir")
      dir = value();
    else if (arg == "--targets")
      targets = std::stoll(value());
    else if (arg == "--fan_in")
      fan_in = std::stoll(value());
    else if (arg == "--repeat")
      repeat = std::max(1, std::stoi(value()));
    else if (arg == "--workspace")
      workspace = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--dir DIR] [--targets N] [--fan_in K] [--repeat R] "
                   "[--workspace]\n",
                   argv[0]);
      return 2;
    }
  }
  fs::create_directories(dir);

  pe::gen::GraphOptions options;
  options.targets = targets;
  options.fan_in = fan_in;

  std::vector<double> graph_s, memory_s, generate_s, plain_s;
  std::size_t bytes = 0;
  for (int r = 0; r < repeat; ++r) {
    auto start = Clock::now();
    const pe::gen::BazelGraph graph = pe::gen::BuildGraph(options, 1);
    graph_s.push_back(Seconds(start));

    // Serialising alone: the same writer into a file on /dev/null's side of the page cache.
    start = Clock::now();
    pe::gen::WriteQueryProto(graph, "/dev/null");
    memory_s.push_back(Seconds(start));

    // The whole generator, as a run invokes it: graph, serialise, write.
    start = Clock::now();
    auto generator = pe::gen::BuiltinRegistry().Create("streamed_proto");
    pe::gen::Context ctx;
    ctx.seed = 1;
    ctx.out_dir = dir;
    generator->Generate({{"targets", targets}, {"fan_in", fan_in}}, ctx);
    generate_s.push_back(Seconds(start));
    bytes = fs::file_size(dir / "query.pb");

    plain_s.push_back(PlainWrite(dir / "plain.bin", bytes));
  }

  const double mb = static_cast<double>(bytes) / 1e6;
  const double generate_rate = mb / Median(generate_s);
  const double plain_rate = mb / Median(plain_s);
  fmt::print("dense streamed_proto: {} targets, fan_in {}, {:.1f} MB, median of {}\n", targets, fan_in, mb, repeat);
  fmt::print("  build graph        {:8.3f} s\n", Median(graph_s));
  fmt::print("  serialise to null  {:8.3f} s  {:8.1f} MB/s\n", Median(memory_s), mb / Median(memory_s));
  fmt::print("  generate (all)     {:8.3f} s  {:8.1f} MB/s\n", Median(generate_s), generate_rate);
  fmt::print("  plain write loop   {:8.3f} s  {:8.1f} MB/s  (the limit on this disk)\n", Median(plain_s), plain_rate);
  fmt::print("  ratio              {:.2f} of the limit (goal: at least 0.25)\n", generate_rate / plain_rate);

  if (workspace) {
    const fs::path ws = dir / "bazel_workspace";
    fs::remove_all(ws);
    fs::create_directories(ws);
    auto start = Clock::now();
    auto generator = pe::gen::BuiltinRegistry().Create("bazel_workspace");
    pe::gen::Context ctx;
    ctx.seed = 1;
    ctx.out_dir = ws;
    generator->Generate({{"targets", targets}, {"fan_in", fan_in}}, ctx);
    const double seconds = Seconds(start);
    std::uintmax_t total = 0;
    std::size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(ws)) {
      if (entry.is_regular_file()) {
        total += entry.file_size();
        ++files;
      }
    }
    fmt::print(
        "dense bazel_workspace: {} files, {:.1f} MB in {:.3f} s ({:.1f} MB/s, {:.0f} "
        "files/s)\n",
        files, static_cast<double>(total) / 1e6, seconds, static_cast<double>(total) / 1e6 / seconds,
        static_cast<double>(files) / seconds);
  }
  fs::remove_all(dir);
  return 0;
}

// The Bazel fixture generators against the disk's own limit, measured in the same run.
//
//   bench_generators [--dir DIR] [--case dense|large|all] [--shape uniform|calibrated|all]
//                    [--targets N --fan_in K] [--repeat R] [--workspace] [--summary]
//
// For each case (dense: 192,000 targets, fan-in 12; large: 24,000, fan-in 4; each in the uniform
// and the calibrated shape) it times, R times each, interleaved:
//
//   build graph        BuildGraph alone
//   serialise to null  the streamed_proto writer into /dev/null (encoding and write calls, no page cache)
//   streamed_proto     the whole generator as a run invokes it (graph, writer, query.pb)
//   plain write loop   write() of the same number of bytes in the same 8 MiB chunks: the limit
//
// and with --workspace:
//
//   workspace writer   WriteSourceTree of a built graph (the files of the workspace fixture)
//   plain file loop    the same directories and files (names, sizes) created with no rendering:
//                      mkdir each, then per file openat, one write, close, on two threads as
//                      the writer does: the limit of file creation on this disk
//   bazel_workspace    the whole generator (graph, stream, tree, shim)
//
// It prints medians, MB/s (10^6 bytes) and each rate as a ratio of its plain loop, and the load
// average before and after. Nothing calls fsync: both sides measure the page cache a run sees.
// --summary adds one `RESULT` line per case for bench/generators/interleave.py.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "generators/bazel_graph.h"
#include "generators/file_io.h"
#include "generators/generator.h"
#include "generators/params.h"
#include "generators/query_proto.h"
#include "generators/source_tree.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return fmt::format("{} {} {}", one, five, fifteen);
}

[[noreturn]] void Die(const std::string& what) {
  std::perror(what.c_str());
  std::exit(2);
}

double PlainWrite(const fs::path& path, std::size_t bytes) {
  std::string chunk(pe::gen::OutputFile::kFlushBytes, 'x');
  const auto start = Clock::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die("open");
  std::size_t left = bytes;
  while (left > 0) {
    const std::size_t n = std::min(left, chunk.size());
    const ssize_t wrote = ::write(fd, chunk.data(), n);
    if (wrote <= 0) Die("write");
    left -= static_cast<std::size_t>(wrote);
  }
  ::close(fd);
  return Seconds(start);
}

// A tree's layout: its directories (parents first) and, per directory, its files' names and sizes.
struct Layout {
  std::vector<std::string> dirs;                                        // relative to the root
  std::vector<std::vector<std::pair<std::string, std::size_t>>> files;  // by dirs' index
  std::size_t file_count = 0;
  std::uintmax_t bytes = 0;
};

Layout ReadLayout(const fs::path& root) {
  Layout layout;
  std::map<std::string, std::size_t> index;
  layout.dirs.push_back("");
  layout.files.emplace_back();
  index[""] = 0;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());  // parents before children
  for (const fs::path& dir : dirs) {
    const std::string relative = fs::relative(dir, root).string();
    index[relative] = layout.dirs.size();
    layout.dirs.push_back(relative);
    layout.files.emplace_back();
  }
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string parent = fs::relative(entry.path().parent_path(), root).string();
    const std::size_t at = index.at(parent == "." ? "" : parent);
    layout.files[at].emplace_back(entry.path().filename().string(), entry.file_size());
    ++layout.file_count;
    layout.bytes += entry.file_size();
  }
  return layout;
}

// The layout's directories and files created with bytes that cost nothing to make: the limit of
// file creation for the workspace writer (same syscalls per file, same two threads).
double PlainFiles(const fs::path& root, const Layout& layout) {
  std::size_t largest = 0;
  for (const auto& files : layout.files) {
    for (const auto& [name, size] : files) largest = std::max(largest, size);
  }
  const std::string content(largest, 'x');
  const auto start = Clock::now();
  fs::create_directories(root);
  for (std::size_t d = 1; d < layout.dirs.size(); ++d) {
    if (::mkdir((root / layout.dirs[d]).c_str(), 0777) != 0) Die("mkdir");
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (;;) {
      const std::size_t d = next.fetch_add(1);
      if (d >= layout.dirs.size()) return;
      const int dir = ::open((root / layout.dirs[d]).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir < 0) Die("open dir");
      for (const auto& [name, size] : layout.files[d]) {
        const int fd = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) Die("openat");
        if (size > 0 && ::write(fd, content.data(), size) != static_cast<ssize_t>(size)) Die("write");
        ::close(fd);
      }
      ::close(dir);
    }
  };
  std::thread helper(work);
  work();
  helper.join();
  return Seconds(start);
}

struct Case {
  std::string name;
  std::int64_t targets;
  std::int64_t fan_in;
  std::string shape;
};

struct Rates {
  std::vector<double> graph_s, null_s, stream_s, plain_s, tree_s, files_s, workspace_s;
  std::size_t stream_bytes = 0;
  Layout layout;
};

void RunCase(const Case& c, const fs::path& dir, int repeat, bool workspace, bool summary) {
  const pe::gen::Params params = {{"targets", c.targets}, {"fan_in", c.fan_in}, {"shape", c.shape}};
  pe::gen::ParamReader reader("bench", params);
  const pe::gen::GraphOptions graph_options = pe::gen::ReadGraphOptions(reader, 1);
  const pe::gen::SourceTreeOptions tree_options =
      pe::gen::ReadSourceTreeOptions(reader, graph_options.shape.source_bytes);
  const auto& registry = pe::gen::BuiltinRegistry();
  pe::gen::Context ctx;
  ctx.seed = 1;

  Rates rates;
  for (int r = 0; r < repeat; ++r) {
    auto start = Clock::now();
    const pe::gen::BazelGraph graph = pe::gen::BuildGraph(graph_options, 1);
    rates.graph_s.push_back(Seconds(start));

    start = Clock::now();
    pe::gen::WriteQueryProto(graph, "/dev/null");
    rates.null_s.push_back(Seconds(start));

    const fs::path stream_dir = dir / "stream";
    fs::remove_all(stream_dir);
    fs::create_directories(stream_dir);
    ctx.out_dir = stream_dir;
    start = Clock::now();
    registry.Create("streamed_proto")->Generate(params, ctx);
    rates.stream_s.push_back(Seconds(start));
    rates.stream_bytes = fs::file_size(stream_dir / "query.pb");
    rates.plain_s.push_back(PlainWrite(dir / "plain.bin", rates.stream_bytes));
    fs::remove(dir / "plain.bin");

    if (!workspace) continue;
    const fs::path tree = dir / "tree";
    fs::remove_all(tree);
    start = Clock::now();
    pe::gen::WriteSourceTree(graph, tree_options, tree);
    rates.tree_s.push_back(Seconds(start));
    if (r == 0) rates.layout = ReadLayout(tree);
    fs::remove_all(tree);
    const fs::path plain = dir / "plain-tree";
    rates.files_s.push_back(PlainFiles(plain, rates.layout));
    fs::remove_all(plain);

    const fs::path whole = dir / "bazel_workspace";
    fs::remove_all(whole);
    fs::create_directories(whole);
    ctx.out_dir = whole;
    start = Clock::now();
    registry.Create("bazel_workspace")->Generate(params, ctx);
    rates.workspace_s.push_back(Seconds(start));
    fs::remove_all(whole);
  }

  const double mb = static_cast<double>(rates.stream_bytes) / 1e6;
  const double plain_rate = mb / Median(rates.plain_s);
  fmt::print("{}: {} targets, fan_in {}, shape {}, median of {}\n", c.name, c.targets, c.fan_in, c.shape, repeat);
  fmt::print("  build graph          {:8.3f} s\n", Median(rates.graph_s));
  fmt::print("  serialise to null    {:8.3f} s  {:8.1f} MB/s\n", Median(rates.null_s), mb / Median(rates.null_s));
  fmt::print("  streamed_proto       {:8.3f} s  {:8.1f} MB/s  {:.2f}x the plain loop ({:.1f} MB)\n",
             Median(rates.stream_s), mb / Median(rates.stream_s), mb / Median(rates.stream_s) / plain_rate, mb);
  fmt::print("  plain write loop     {:8.3f} s  {:8.1f} MB/s\n", Median(rates.plain_s), plain_rate);
  double tree_rate = 0, files_rate = 0;
  if (workspace) {
    const double tree_mb = static_cast<double>(rates.layout.bytes) / 1e6;
    tree_rate = tree_mb / Median(rates.tree_s);
    files_rate = tree_mb / Median(rates.files_s);
    fmt::print("  workspace writer     {:8.3f} s  {:8.1f} MB/s  {:.2f}x the plain file loop ({} files, {:.1f} MB)\n",
               Median(rates.tree_s), tree_rate, tree_rate / files_rate, rates.layout.file_count, tree_mb);
    fmt::print("  plain file loop      {:8.3f} s  {:8.1f} MB/s  ({:.0f} files/s)\n", Median(rates.files_s), files_rate,
               static_cast<double>(rates.layout.file_count) / Median(rates.files_s));
    fmt::print("  bazel_workspace      {:8.3f} s  {:8.1f} MB/s  (graph, stream, tree and shim: {:.1f} MB)\n",
               Median(rates.workspace_s), (mb + tree_mb) / Median(rates.workspace_s), mb + tree_mb);
  }
  if (summary) {
    fmt::print("RESULT {} graph_s={:.4f} null_mbps={:.1f} stream_mbps={:.1f} plain_mbps={:.1f}", c.name,
               Median(rates.graph_s), mb / Median(rates.null_s), mb / Median(rates.stream_s), plain_rate);
    if (workspace) {
      fmt::print(" tree_mbps={:.1f} files_mbps={:.1f} workspace_s={:.3f} tree_files={} tree_files_per_s={:.0f}",
                 tree_rate, files_rate, Median(rates.workspace_s), rates.layout.file_count,
                 static_cast<double>(rates.layout.file_count) / Median(rates.tree_s));
    }
    fmt::print("\n");
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = fs::temp_directory_path() / fmt::format("pe-bench-gen-{}", ::getpid());
  std::string which = "all", shape = "all";
  std::int64_t targets = 0, fan_in = 12;
  int repeat = 3;
  bool workspace = false, summary = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (arg == "--dir") {
      dir = value();
    } else if (arg == "--case") {
      which = value();
    } else if (arg == "--shape") {
      shape = value();
    } else if (arg == "--targets") {
      targets = std::stoll(value());
    } else if (arg == "--fan_in") {
      fan_in = std::stoll(value());
    } else if (arg == "--repeat") {
      repeat = std::max(1, std::stoi(value()));
    } else if (arg == "--workspace") {
      workspace = true;
    } else if (arg == "--summary") {
      summary = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--dir DIR] [--case dense|large|all] [--shape uniform|calibrated|all] "
                   "[--targets N --fan_in K] [--repeat R] [--workspace] [--summary]\n",
                   argv[0]);
      return 2;
    }
  }
  std::vector<Case> cases;
  for (const std::string s : {"uniform", "calibrated"}) {
    if (shape != "all" && shape != s) continue;
    if (targets > 0) {
      cases.push_back({fmt::format("custom-{}", s), targets, fan_in, s});
      continue;
    }
    if (which == "all" || which == "dense") cases.push_back({fmt::format("dense-{}", s), 192000, 12, s});
    if (which == "all" || which == "large") cases.push_back({fmt::format("large-{}", s), 24000, 4, s});
  }
  if (cases.empty()) {
    std::fprintf(stderr, "%s: no case matches --case %s --shape %s\n", argv[0], which.c_str(), shape.c_str());
    return 2;
  }
  fs::create_directories(dir);
  fmt::print("load average before: {}\n", LoadAverage());
  for (const Case& c : cases) RunCase(c, dir, repeat, workspace, summary);
  fmt::print("load average after: {}\n", LoadAverage());
  fs::remove_all(dir);
  return 0;
}

#include "workers/gbench/gbench_adapter.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace pe::gbench {
namespace {

bool InNameGrammar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == ':' || c == '/' || c == '+' || c == '-';
}

// Nanoseconds in one google/benchmark time unit, 0 for a unit it does not have.
double NanosecondsPer(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return 0;
}

}  // namespace

std::string ProtocolName(std::string_view gbench_name) {
  std::string name(gbench_name);
  for (char& c : name) {
    if (!InNameGrammar(c)) c = '_';
  }
  return name;
}

Listing MapListing(std::string_view list_output) {
  Listing listing;
  std::map<std::string, std::string> by_name;  // protocol name -> the gbench name it came from
  std::size_t start = 0;
  while (start < list_output.size()) {
    std::size_t end = list_output.find('\n', start);
    if (end == std::string_view::npos) end = list_output.size();
    std::string_view line = list_output.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    Benchmark benchmark{ProtocolName(line), std::string(line)};
    if (benchmark.name.size() > kMaxNameBytes) {
      listing.error = "benchmark '" + OneLine(line, 200) + "' has a name longer than the protocol's " +
                      std::to_string(kMaxNameBytes) + " bytes; leave it out with --benchmark_filter";
      return listing;
    }
    auto [it, inserted] = by_name.emplace(benchmark.name, benchmark.gbench_name);
    if (!inserted) {
      listing.error = "benchmarks '" + it->second + "' and '" + benchmark.gbench_name + "' both map to '" +
                      benchmark.name + "' (each byte outside A-Z a-z 0-9 _ . : / + - becomes '_'); leave one out " +
                      "with --benchmark_filter";
      return listing;
    }
    listing.benchmarks.push_back(std::move(benchmark));
  }
  if (listing.benchmarks.empty()) {
    listing.error = "the binary lists no benchmark (is its --benchmark_filter too narrow?)";
  } else if (listing.benchmarks.size() > kMaxBenchmarks) {
    listing.error = "the binary lists " + std::to_string(listing.benchmarks.size()) + " benchmarks, more than the " +
                    std::to_string(kMaxBenchmarks) + " a worker may offer; choose some with --benchmark_filter";
  }
  return listing;
}

std::string ExactFilter(std::string_view gbench_name) {
  std::string filter = "^";
  for (char c : gbench_name) {
    if (std::string_view("\\.[](){}*+?^$|").find(c) != std::string_view::npos) filter += '\\';
    filter += c;
  }
  return filter + "$";
}

RunFigures ParseRunJson(std::string_view json, std::string_view gbench_name) {
  RunFigures figures;
  const nlohmann::json document = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object() || !document.contains("benchmarks") ||
      !document["benchmarks"].is_array()) {
    figures.error = "its JSON output is not google/benchmark's (no \"benchmarks\" list)";
    return figures;
  }
  double real_ns = 0;
  double cpu_ns = 0;
  int runs = 0;
  for (const nlohmann::json& run : document["benchmarks"]) {
    if (!run.is_object() || run.value("name", "") != gbench_name) continue;
    if (run.value("run_type", "iteration") != "iteration") continue;  // mean, median, stddev of repetitions
    if (run.value("error_occurred", false)) {
      figures.error = run.value("error_message", "an error without a message");
      if (figures.error.empty()) figures.error = "an error without a message";
      return figures;
    }
    const auto iterations = run.find("iterations");
    const auto real_time = run.find("real_time");
    const auto cpu_time = run.find("cpu_time");
    const double unit = NanosecondsPer(run.value("time_unit", ""));
    if (iterations == run.end() || !iterations->is_number_integer() || real_time == run.end() ||
        !real_time->is_number() || cpu_time == run.end() || !cpu_time->is_number() || unit == 0) {
      figures.error = "its JSON run of '" + std::string(gbench_name) +
                      "' lacks iterations, real_time, cpu_time or a time_unit of ns, us, ms or s";
      return figures;
    }
    const std::int64_t count = iterations->get<std::int64_t>();
    const double real = real_time->get<double>() * unit;
    const double cpu = cpu_time->get<double>() * unit;
    if (count <= 0 || !std::isfinite(real) || !std::isfinite(cpu) || real < 0 || cpu < 0) {
      figures.error = "its JSON run of '" + std::string(gbench_name) + "' has " + std::to_string(count) +
                      " iterations or a time that is negative or not finite";
      return figures;
    }
    // Per-iteration times weighted by their runs' iterations: the pooled per-iteration time.
    figures.iterations += count;
    real_ns += real * static_cast<double>(count);
    cpu_ns += cpu * static_cast<double>(count);
    figures.threads = run.value("threads", std::int64_t{1});
    ++runs;
  }
  if (runs == 0) {
    figures.error = "google/benchmark reported no run of '" + std::string(gbench_name) + "'";
    return figures;
  }
  figures.real_ns_per_iteration = real_ns / static_cast<double>(figures.iterations);
  figures.cpu_ns_per_iteration = cpu_ns / static_cast<double>(figures.iterations);
  return figures;
}

std::string OneLine(std::string_view text, std::size_t max_bytes) {
  std::string line;
  for (char c : text) line += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  const std::size_t first = line.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  line = line.substr(first, line.find_last_not_of(' ') - first + 1);
  if (line.size() > max_bytes) line = line.substr(0, max_bytes) + "...";
  return line;
}

std::string Tail(std::string_view text, int lines) {
  std::vector<std::string> kept;
  std::size_t end = text.size();
  while (end > 0 && static_cast<int>(kept.size()) < lines) {
    const std::size_t newline = text.rfind('\n', end - 1);
    const std::size_t start = newline == std::string_view::npos ? 0 : newline + 1;
    const std::string line = OneLine(text.substr(start, end - start));
    if (!line.empty()) kept.insert(kept.begin(), line);
    if (newline == std::string_view::npos) break;
    end = newline;
  }
  std::string joined;
  for (const std::string& line : kept) joined += (joined.empty() ? "" : " | ") + line;
  if (joined.size() > 400) joined = "..." + joined.substr(joined.size() - 400);
  return joined;
}

}  // namespace pe::gbench

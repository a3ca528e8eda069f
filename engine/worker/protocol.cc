#include "engine/worker/protocol.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace pe::worker {
namespace {

// Splits on every `separator`; empty pieces (two spaces, a leading comma) are kept so they fail
// as fields or names rather than being silently skipped.
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    pieces.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return pieces;
    start = at + 1;
  }
}

// The line-level checks every message shares: its length and no control bytes (a stray \r
// from a worker that writes CRLF is named, not taken as part of a number).
std::string LineError(std::string_view line) {
  if (line.size() > kMaxLineBytes) return fmt::format("line longer than {} bytes", kMaxLineBytes);
  for (const char c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return fmt::format("control byte in line {}", Quote(line));
    }
  }
  return "";
}

// A count: decimal digits only, no sign, within int64.
std::string ParseCount(std::string_view key, std::string_view text, std::int64_t* out) {
  const bool digits =
      !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) {
    const bool negative = text.size() > 1 && text[0] == '-' &&
                          std::all_of(text.begin() + 1, text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (negative) return fmt::format("field '{}' is negative: {}", key, Quote(text));
    return fmt::format("field '{}' is not a decimal integer: {}", key, Quote(text));
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (error != std::errc() || end != text.data() + text.size()) {
    return fmt::format("field '{}' is out of range: {}", key, Quote(text));
  }
  return "";
}

bool IsDigestByte(char c) { return c > 0x20 && c < 0x7f; }

// key=value fields after the verb, each key once. `accept` says whether a key is known.
template <typename Accept>
std::string ParseFields(const std::vector<std::string_view>& tokens, std::string_view what, Accept accept,
                        std::map<std::string, std::string, std::less<>>* fields) {
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    const std::string_view token = tokens[i];
    const std::size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0) return fmt::format("not a key=value field: {}", Quote(token));
    const std::string_view key = token.substr(0, eq);
    if (!accept(key)) return fmt::format("unknown key {} in {}", Quote(key), what);
    if (!fields->emplace(std::string(key), std::string(token.substr(eq + 1))).second) {
      return fmt::format("field {} given twice", Quote(key));
    }
  }
  return "";
}

std::string MissingField(std::string_view key) { return fmt::format("missing field '{}'", key); }

// A comma list of names, each valid and once; `kind` names them in errors.
std::string ParseNames(std::string_view list, std::string_view kind, std::size_t max, std::vector<std::string>* out) {
  std::set<std::string_view> seen;
  for (const std::string_view name : list.empty() ? std::vector<std::string_view>() : Split(list, ',')) {
    if (!IsValidName(name)) return fmt::format("invalid {} name {}", kind, Quote(name));
    if (!seen.insert(name).second) return fmt::format("{} {} named twice", kind, Quote(name));
    out->emplace_back(name);
  }
  if (out->size() > max) return fmt::format("more than {} {}s", max, kind);
  return "";
}

Parsed<Reply> ParseFailed(std::string_view line, const RunRequest& asked) {
  // "failed name=X reason=TEXT": the reason is free text, spaces included, to the line's end.
  Parsed<Reply> parsed;
  constexpr std::string_view kName = "failed name=";
  const std::size_t reason_at = line.find(" reason=");
  if (!line.starts_with(kName) || reason_at == std::string_view::npos) {
    parsed.error = "'failed' takes name=NAME reason=TEXT";
    return parsed;
  }
  const std::string_view name = line.substr(kName.size(), reason_at - kName.size());
  if (name != asked.name) {
    parsed.error = fmt::format("reply for benchmark {}, asked for '{}'", Quote(name), asked.name);
    return parsed;
  }
  parsed.value = Failed{std::string(name), std::string(line.substr(reason_at + 8))};
  return parsed;
}

}  // namespace

bool IsValidName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '/' || c == '+' || c == '-';
  });
}

std::string Quote(std::string_view line) {
  constexpr std::size_t kShown = 80;
  std::string quoted = "'";
  for (std::size_t i = 0; i < line.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c < 0x20 || c >= 0x7f || c == '\\' || c == '\'') {
      quoted += fmt::format("\\x{:02x}", c);
    } else {
      quoted += static_cast<char>(c);
    }
  }
  quoted += line.size() > kShown ? "'..." : "'";
  return quoted;
}

Parsed<Hello> ParseHello(std::string_view line) {
  Parsed<Hello> parsed;
  if (parsed.error = LineError(line); !parsed.ok()) return parsed;
  const std::vector<std::string_view> tokens = Split(line, ' ');
  if (tokens[0] != "hello") {
    parsed.error = fmt::format("expected 'hello', got {}", Quote(line));
    return parsed;
  }
  std::map<std::string, std::string, std::less<>> fields;
  const auto known = [](std::string_view key) { return key == "version" || key == "benchmarks" || key == "counters"; };
  if (parsed.error = ParseFields(tokens, "hello", known, &fields); !parsed.ok()) return parsed;
  for (const char* key : {"version", "benchmarks"}) {
    if (!fields.contains(key)) {
      parsed.error = MissingField(key);
      return parsed;
    }
  }
  std::int64_t version = 0;
  if (parsed.error = ParseCount("version", fields["version"], &version); !parsed.ok()) return parsed;
  if (version != kProtocolVersion) {
    parsed.error =
        fmt::format("protocol version {} is not supported (this engine speaks version {})", version, kProtocolVersion);
    return parsed;
  }
  Hello& hello = parsed.value;
  hello.version = kProtocolVersion;
  parsed.error = ParseNames(fields["benchmarks"], "benchmark", kMaxBenchmarks, &hello.benchmarks);
  if (parsed.ok() && hello.benchmarks.empty()) parsed.error = "the hello names no benchmark";
  if (parsed.ok()) parsed.error = ParseNames(fields["counters"], "counter", kMaxCounters, &hello.counters);
  return parsed;
}

Parsed<Request> ParseRequest(std::string_view line) {
  Parsed<Request> parsed;
  if (parsed.error = LineError(line); !parsed.ok()) return parsed;
  const std::vector<std::string_view> tokens = Split(line, ' ');
  if (tokens[0] == "quit" && tokens.size() == 1) {
    parsed.value = QuitRequest{};
    return parsed;
  }
  if (tokens[0] != "run") {
    parsed.error = fmt::format("unknown request {}", Quote(line));
    return parsed;
  }
  if (tokens.size() != 3) {
    parsed.error = "'run' takes a benchmark and an iteration count";
    return parsed;
  }
  RunRequest run{std::string(tokens[1]), 0};
  if (!IsValidName(run.name)) {
    parsed.error = fmt::format("invalid benchmark name {}", Quote(run.name));
  } else if (parsed.error = ParseCount("iterations", tokens[2], &run.iterations); parsed.ok() && run.iterations < 1) {
    parsed.error = "iterations must be at least 1";
  }
  parsed.value = std::move(run);
  return parsed;
}

Parsed<Reply> ParseReply(std::string_view line, const Hello& hello, const RunRequest& asked) {
  Parsed<Reply> parsed;
  if (parsed.error = LineError(line); !parsed.ok()) return parsed;
  const std::vector<std::string_view> tokens = Split(line, ' ');
  if (tokens[0] == "failed") return ParseFailed(line, asked);
  if (tokens[0] != "done") {
    parsed.error = fmt::format("expected 'done' or 'failed', got {}", Quote(line));
    return parsed;
  }
  static constexpr std::string_view kCounter = "counter.";
  static constexpr const char* kFixed[] = {"name",           "iterations", "thread_cpu_ns",
                                           "process_cpu_ns", "wall_ns",    "digest"};
  const auto known = [&](std::string_view key) {
    if (key.starts_with(kCounter)) {
      const std::string_view counter = key.substr(kCounter.size());
      return std::find(hello.counters.begin(), hello.counters.end(), counter) != hello.counters.end();
    }
    return std::find(std::begin(kFixed), std::end(kFixed), key) != std::end(kFixed);
  };
  std::map<std::string, std::string, std::less<>> fields;
  if (parsed.error = ParseFields(tokens, "reply", known, &fields); !parsed.ok()) return parsed;
  for (const char* key : kFixed) {
    if (!fields.contains(key)) {
      parsed.error = MissingField(key);
      return parsed;
    }
  }
  for (const std::string& counter : hello.counters) {
    if (!fields.contains(std::string(kCounter) + counter)) {
      parsed.error = MissingField(std::string(kCounter) + counter);
      return parsed;
    }
  }
  Batch batch;
  batch.name = fields["name"];
  if (batch.name != asked.name) {
    parsed.error = fmt::format("reply for benchmark {}, asked for '{}'", Quote(batch.name), asked.name);
    return parsed;
  }
  const std::pair<const char*, std::int64_t*> numbers[] = {{"iterations", &batch.iterations},
                                                           {"thread_cpu_ns", &batch.thread_cpu_ns},
                                                           {"process_cpu_ns", &batch.process_cpu_ns},
                                                           {"wall_ns", &batch.wall_ns}};
  for (const auto& [key, out] : numbers) {
    if (parsed.error = ParseCount(key, fields[key], out); !parsed.ok()) return parsed;
  }
  if (batch.iterations != asked.iterations) {
    parsed.error = fmt::format("reply for {} iterations, asked for {}", batch.iterations, asked.iterations);
    return parsed;
  }
  batch.digest = fields["digest"];
  if (batch.digest.empty() || batch.digest.size() > kMaxDigestBytes ||
      !std::all_of(batch.digest.begin(), batch.digest.end(), IsDigestByte)) {
    parsed.error = fmt::format("invalid digest {}", Quote(batch.digest));
    return parsed;
  }
  for (const std::string& counter : hello.counters) {
    const std::string key = std::string(kCounter) + counter;
    if (parsed.error = ParseCount(key, fields[key], &batch.counters[counter]); !parsed.ok()) return parsed;
  }
  parsed.value = std::move(batch);
  return parsed;
}

std::string FormatHello(const Hello& hello) {
  std::string line = fmt::format("hello version={} benchmarks={}", hello.version, fmt::join(hello.benchmarks, ","));
  if (!hello.counters.empty()) line += fmt::format(" counters={}", fmt::join(hello.counters, ","));
  return line + "\n";
}

std::string FormatRequest(const Request& request) {
  if (const auto* run = std::get_if<RunRequest>(&request))
    return fmt::format("run {} {}\n", run->name, run->iterations);
  return "quit\n";
}

std::string FormatReply(const Reply& reply) {
  if (const auto* failed = std::get_if<Failed>(&reply)) {
    return fmt::format("failed name={} reason={}\n", failed->name, failed->reason);
  }
  const Batch& batch = std::get<Batch>(reply);
  std::string line =
      fmt::format("done name={} iterations={} thread_cpu_ns={} process_cpu_ns={} wall_ns={} digest={}", batch.name,
                  batch.iterations, batch.thread_cpu_ns, batch.process_cpu_ns, batch.wall_ns, batch.digest);
  for (const auto& [counter, growth] : batch.counters) line += fmt::format(" counter.{}={}", counter, growth);
  return line + "\n";
}

}  // namespace pe::worker

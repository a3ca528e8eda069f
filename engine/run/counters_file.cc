#include "engine/run/counters_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "engine/measure/contender_lines.h"

namespace pe::run {

namespace {

std::optional<double> Number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A field of the contender's line as an error shows it: control characters as '?', cut at 40
// bytes (the line itself is quoted beside it by measure::QuoteLine).
std::string ShownField(std::string_view field) {
  constexpr std::size_t kLimit = 40;
  std::string text(field.substr(0, kLimit));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < ' ' || c == '\x7f') c = '?';
  }
  return field.size() > kLimit ? text + "..." : text;
}

std::string Names(const std::vector<model::Counter>& declared) {
  std::vector<std::string> names;
  for (const model::Counter& c : declared) names.push_back(c.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::filesystem::path CountersFile(const std::filesystem::path& execution_dir) { return execution_dir / "counters"; }

std::optional<std::string> ParseCounterLines(std::string_view text, const std::vector<model::Counter>& declared,
                                             std::vector<model::CounterValue>& out) {
  std::map<std::string, std::pair<double, int>, std::less<>> seen;  // name -> value, line
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    const std::vector<std::string_view> fields = measure::LineFields(line);
    if (fields.empty()) continue;
    auto bad = [&](const std::string& why) {
      return fmt::format("line {} {}: {}", number, measure::QuoteLine(line), why);
    };
    if (fields.size() != 3) return bad("expected three fields, 'name value unit'");
    const std::string_view name = fields[0], value_text = fields[1], unit = fields[2];
    const auto counter =
        std::find_if(declared.begin(), declared.end(), [&](const model::Counter& c) { return c.name == name; });
    if (counter == declared.end()) {
      return bad(
          fmt::format("counter '{}' is not declared (the spec declares: {})", ShownField(name), Names(declared)));
    }
    if (auto earlier = seen.find(name); earlier != seen.end()) {
      return bad(fmt::format("counter '{}' is reported twice (first on line {})", name, earlier->second.second));
    }
    const std::optional<double> value = Number(value_text);
    if (!value) return bad(fmt::format("'{}' is not a number", ShownField(value_text)));
    if (!std::isfinite(*value) || *value < 0) {
      return bad(fmt::format("'{}' must be a finite number at least 0", ShownField(value_text)));
    }
    if (unit != counter->unit) {
      return bad(fmt::format("unit '{}' is not the declared unit '{}' of counter '{}'", ShownField(unit), counter->unit,
                             name));
    }
    seen.emplace(std::string(name), std::make_pair(*value + 0.0, number));  // + 0.0: "-0" is 0
  }
  std::vector<model::CounterValue> values;
  for (const model::Counter& c : declared) {
    const auto found = seen.find(c.name);
    if (found == seen.end()) {
      return fmt::format("no line for counter '{}' (expected '{} VALUE {}')", c.name, c.name, c.unit);
    }
    values.push_back({c.name, found->second.first});
  }
  out = std::move(values);
  return std::nullopt;
}

namespace {

// What a path that is not a regular file is, in the words of an error line.
std::string CountersFileKind(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string NotARegularCountersFile(const std::filesystem::path& file, mode_t mode) {
  return fmt::format("left a counters file that is {}, not a regular file (${} = {})", CountersFileKind(mode),
                     kCountersEnv, file.string());
}

std::string CountersFileTooLarge(const std::filesystem::path& file) {
  return fmt::format("wrote a counters file larger than the {} MiB the engine reads (${} = {})", kCountersFileCap >> 20,
                     kCountersEnv, file.string());
}

}  // namespace

std::optional<std::string> ReadCountersText(const std::filesystem::path& file, std::string& text) {
  text.clear();
  // Told apart before it is opened, so that no device or FIFO is opened at all; fstat below
  // checks the file actually opened, which O_NOFOLLOW keeps from being a link's target.
  struct stat before {};
  if (::lstat(file.c_str(), &before) != 0) {
    return fmt::format("wrote no counters file (${} = {}): {}", kCountersEnv, file.string(), std::strerror(errno));
  }
  if (!S_ISREG(before.st_mode)) return NotARegularCountersFile(file, before.st_mode);
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ELOOP) return NotARegularCountersFile(file, S_IFLNK);
    return fmt::format("left a counters file the engine cannot open (${} = {}): {}", kCountersEnv, file.string(),
                       std::strerror(error));
  }
  struct CountersFd {
    int fd;
    ~CountersFd() { ::close(fd); }
  } closer{fd};
  struct stat opened {};
  if (::fstat(fd, &opened) != 0) {
    return fmt::format("left a counters file the engine cannot read (${} = {}): {}", kCountersEnv, file.string(),
                       std::strerror(errno));
  }
  if (!S_ISREG(opened.st_mode)) return NotARegularCountersFile(file, opened.st_mode);
  if (static_cast<std::uintmax_t>(opened.st_size) > kCountersFileCap) return CountersFileTooLarge(file);
  // One byte more than fstat said shows the end (or that it grew, and how far, up to the cap).
  text.resize(static_cast<std::size_t>(opened.st_size) + 1);
  std::size_t got = 0;
  while (true) {
    if (got == text.size()) {
      if (got > kCountersFileCap) break;
      text.resize(kCountersFileCap + 1);  // it grew since fstat: read on up to one byte past the cap
    }
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      text.clear();
      return fmt::format("left a counters file the engine cannot read (${} = {}): {}", kCountersEnv, file.string(),
                         std::strerror(error));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  if (got > kCountersFileCap) {
    text.clear();
    return CountersFileTooLarge(file);
  }
  return std::nullopt;
}

CountersSnapshot SnapshotCounters(const std::filesystem::path& file) {
  CountersSnapshot snapshot;
  snapshot.error = ReadCountersText(file, snapshot.text);
  return snapshot;
}

std::optional<std::string> ReadCountersSnapshot(const CountersSnapshot& snapshot,
                                                const std::vector<model::Counter>& declared,
                                                std::vector<model::CounterValue>& out) {
  if (snapshot.error) return snapshot.error;
  if (auto error = ParseCounterLines(snapshot.text, declared, out)) {
    return fmt::format("wrote a bad counters file (${}): {}", kCountersEnv, *error);
  }
  return std::nullopt;
}

std::optional<std::string> ReadCountersFile(const std::filesystem::path& file,
                                            const std::vector<model::Counter>& declared,
                                            std::vector<model::CounterValue>& out) {
  return ReadCountersSnapshot(SnapshotCounters(file), declared, out);
}

}  // namespace pe::run

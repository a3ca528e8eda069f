#include "engine/model/json.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/model/fields.h"
#include "engine/model/limits.h"
#include "engine/model/threshold_table.h"

namespace pe::model {
namespace {

using fields::Tag;
using nlohmann::json;

// A structured binding must name every member, so a field added to result.h breaks the
// build here until its line is added to fields.h and the count below is raised. Without
// this a new field would silently be missing from results files.
template <typename T, std::size_t kMembers>
constexpr bool kTableCovers = std::tuple_size_v<decltype(FieldsOf(Tag<T>{}))> == kMembers;

[[maybe_unused]] void TablesCoverEveryMember(const RunResult& r, const WorkloadResult& w, const Comparison& c,
                                             const Sample& s, const Failure& f, const Thresholds& t, const Interval& i,
                                             const ContenderSummary& cs, const Check& k, const ContenderInfo& ci,
                                             const Settings& st, const MachineInfo& m, const Verdict& v,
                                             const AxisValue& av, const ScalingFit& sf, const ScalingEfficiency& se,
                                             const SweepResult& sr, const FunctionShift& fs, const ServeFigures& sv,
                                             const RoundLoad& rl, const ShardInfo& sh, const model::CounterValue& cv,
                                             const model::Counter& cd, const model::CounterComparison& cc,
                                             const model::PhaseTimes& pt, const model::WorkerFigures& wf,
                                             const model::WorkerBenchmark& wb) {
  [[maybe_unused]] const auto& [wf1, wf2, wf3, wf4] = wf;
  static_assert(kTableCovers<model::WorkerFigures, 4>);
  [[maybe_unused]] const auto& [wb1, wb2, wb3, wb4] = wb;
  static_assert(kTableCovers<model::WorkerBenchmark, 4>);
  [[maybe_unused]] const auto& [pt1, pt2, pt3, pt4, pt5, pt6] = pt;
  static_assert(kTableCovers<model::PhaseTimes, 6>);
  [[maybe_unused]] const auto& [cv1, cv2] = cv;
  static_assert(kTableCovers<model::CounterValue, 2>);
  [[maybe_unused]] const auto& [cd1, cd2, cd3, cd4] = cd;
  static_assert(kTableCovers<model::Counter, 4>);
  [[maybe_unused]] const auto& [cc1, cc2, cc3, cc4, cc5, cc6, cc7, cc8] = cc;
  static_assert(kTableCovers<model::CounterComparison, 8>);
  [[maybe_unused]] const auto& [rl1, rl2, rl3, rl4, rl5] = rl;
  static_assert(kTableCovers<RoundLoad, 5>);
  [[maybe_unused]] const auto& [sh1, sh2, sh3, sh4, sh5, sh6] = sh;
  static_assert(kTableCovers<ShardInfo, 6>);
  [[maybe_unused]] const auto& [sv1, sv2, sv3, sv4, sv5, sv6, sv7] = sv;
  static_assert(kTableCovers<ServeFigures, 7>);
  [[maybe_unused]] const auto& [fs1, fs2, fs3, fs4, fs5, fs6, fs7, fs8] = fs;
  static_assert(kTableCovers<FunctionShift, 8>);
  [[maybe_unused]] const auto& [av1, av2] = av;
  static_assert(kTableCovers<AxisValue, 2>);
  [[maybe_unused]] const auto& [sf1, sf2, sf3, sf4, sf5, sf6, sf7, sf8] = sf;
  static_assert(kTableCovers<ScalingFit, 8>);
  [[maybe_unused]] const auto& [se1, se2, se3, se4, se5] = se;
  static_assert(kTableCovers<ScalingEfficiency, 5>);
  [[maybe_unused]] const auto& [sr1, sr2, sr3, sr4, sr5, sr6, sr7] = sr;
  static_assert(kTableCovers<SweepResult, 7>);
  [[maybe_unused]] const auto& [r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15, r16, r17, r18] = r;
  static_assert(kTableCovers<RunResult, 18>);
  [[maybe_unused]] const auto& [w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16, w17, w18, w19,
                                w20, w21, w22] = w;
  static_assert(kTableCovers<WorkloadResult, 22>);
  [[maybe_unused]] const auto& [c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19,
                                c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33, c34, c35, c36,
                                c37] = c;
  static_assert(kTableCovers<Comparison, 37>);
  [[maybe_unused]] const auto& [s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12] = s;
  static_assert(kTableCovers<Sample, 12>);
  [[maybe_unused]] const auto& [f1, f2, f3, f4, f5] = f;
  static_assert(kTableCovers<Failure, 5>);
  [[maybe_unused]] const auto& [t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12] = t;
  static_assert(kTableCovers<Thresholds, 12>);
  [[maybe_unused]] const auto& [i1, i2, i3, i4, i5] = i;
  static_assert(kTableCovers<Interval, 5>);
  [[maybe_unused]] const auto& [cs1, cs2, cs3, cs4, cs5, cs6, cs7, cs8, cs9, cs10, cs11, cs12, cs13, cs14, cs15, cs16] =
      cs;
  static_assert(kTableCovers<ContenderSummary, 16>);
  [[maybe_unused]] const auto& [k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14, k15, k16, k17, k18, k19] =
      k;
  static_assert(kTableCovers<Check, 19>);
  [[maybe_unused]] const auto& [ci1, ci2, ci3, ci4, ci5, ci6, ci7, ci8] = ci;
  static_assert(kTableCovers<ContenderInfo, 8>);
  [[maybe_unused]] const auto& [st1, st2, st3, st4, st5, st6, st7, st8, st9, st10, st11, st12, st13, st14, st15, st16,
                                st17, st18, st19] = st;
  static_assert(kTableCovers<Settings, 19>);
  [[maybe_unused]] const auto& [m1, m2, m3, m4, m5] = m;
  static_assert(kTableCovers<MachineInfo, 5>);
  [[maybe_unused]] const auto& [v1, v2, v3, v4, v5, v6] = v;
  static_assert(kTableCovers<Verdict, 6>);
}

using fields::IsOptional;
using fields::IsVector;
using fields::kUnsupported;

constexpr std::string_view kNaN = "NaN";
constexpr std::string_view kInfinity = "Infinity";
constexpr std::string_view kMinusInfinity = "-Infinity";

// ---- writing ----

json WriteDouble(double value) {
  if (std::isnan(value)) return kNaN;
  if (std::isinf(value)) return value > 0 ? kInfinity : kMinusInfinity;
  return value;
}

template <typename T>
json Write(const T& value);

template <typename Struct>
json WriteObject(const Struct& value) {
  json object = json::object();
  std::apply(
      [&](const auto&... field) {
        auto write_field = [&](const auto& f) {
          const auto& member = value.*(f.member);
          using Member = std::decay_t<decltype(member)>;
          if constexpr (IsOptional<Member>::value) {
            if (member) object[std::string(f.name)] = Write(*member);
          } else {
            object[std::string(f.name)] = Write(member);
          }
        };
        (write_field(field), ...);
      },
      FieldsOf(Tag<Struct>{}));
  return object;
}

template <typename T>
json Write(const T& value) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    return value;
  } else if constexpr (std::is_floating_point_v<T>) {
    return WriteDouble(value);
  } else if constexpr (std::is_integral_v<T>) {
    return value;
  } else if constexpr (fields::NamedEnum<T>) {
    return fields::NameOf(value);
  } else if constexpr (IsVector<T>::value) {
    json array = json::array();
    for (const auto& element : value) array.push_back(Write(element));
    return array;
  } else if constexpr (fields::Described<T>) {
    return WriteObject(value);
  } else {
    static_assert(kUnsupported<T>, "add this type to Write() in json.cc");
  }
}

// ---- reading ----

// "a string", "an object", ...: how an error names what it found instead.
std::string Found(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "a number";
    default:
      return value.type_name();
  }
}

[[noreturn]] void Mistyped(const std::string& path, std::string_view expected, std::string_view found) {
  throw std::runtime_error(fmt::format("field \"{}\" must be {}, not {}", path, expected, found));
}

std::string Child(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : fmt::format("{}.{}", path, name);
}

double ReadDouble(const json& value, const std::string& path) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text == kNaN) return std::numeric_limits<double>::quiet_NaN();
    if (text == kInfinity) return std::numeric_limits<double>::infinity();
    if (text == kMinusInfinity) return -std::numeric_limits<double>::infinity();
  }
  Mistyped(path, "a number", Found(value));
}

template <typename Int>
Int ReadInteger(const json& value, const std::string& path) {
  if (!value.is_number_integer()) {
    Mistyped(path, "an integer", value.is_number_float() ? value.dump() : Found(value));
  }
  bool fits = value.is_number_unsigned() ? std::in_range<Int>(value.get<std::uint64_t>())
                                         : std::in_range<Int>(value.get<std::int64_t>());
  if (!fits) {
    Mistyped(path,
             fmt::format("an integer from {} to {}", std::numeric_limits<Int>::min(), std::numeric_limits<Int>::max()),
             value.dump());
  }
  return value.get<Int>();
}

template <typename Enum>
Enum ReadEnum(const json& value, const std::string& path) {
  std::string names;
  for (const auto& entry : NamesOf(Tag<Enum>{})) {
    names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", entry.name);
  }
  std::string expected = fmt::format("one of {}", names);
  if (!value.is_string()) Mistyped(path, expected, Found(value));
  const auto& text = value.get_ref<const std::string&>();
  if (auto parsed = fields::ParseName<Enum>(text)) return *parsed;
  Mistyped(path, expected, fmt::format("\"{}\"", text));
}

template <typename T>
void Read(const json& value, const std::string& path, T& out);

template <typename Struct>
void ReadObject(const json& value, const std::string& path, Struct& out) {
  if (!value.is_object()) Mistyped(path, "an object", Found(value));
  std::apply(
      [&](const auto&... field) {
        auto read_field = [&](const auto& f) {
          auto& member = out.*(f.member);
          using Member = std::decay_t<decltype(member)>;
          std::string child = Child(path, f.name);
          auto it = value.find(f.name);
          if constexpr (IsOptional<Member>::value) {
            if (it == value.end() || it->is_null()) {
              member.reset();
            } else {
              Read(*it, child, member.emplace());
            }
          } else {
            if (it == value.end() && !f.required) return;  // an older file: keep the default
            if (it == value.end()) {
              throw std::runtime_error(fmt::format("missing field \"{}\"", child));
            }
            Read(*it, child, member);
          }
        };
        (read_field(field), ...);
      },
      FieldsOf(Tag<Struct>{}));
}

template <typename T>
void Read(const json& value, const std::string& path, T& out) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) Mistyped(path, "a string", Found(value));
    out = value.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) Mistyped(path, "a boolean", Found(value));
    out = value.get<bool>();
  } else if constexpr (std::is_floating_point_v<T>) {
    out = ReadDouble(value, path);
  } else if constexpr (std::is_integral_v<T>) {
    out = ReadInteger<T>(value, path);
  } else if constexpr (fields::NamedEnum<T>) {
    out = ReadEnum<T>(value, path);
  } else if constexpr (IsVector<T>::value) {
    if (!value.is_array()) Mistyped(path, "an array", Found(value));
    out.clear();
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
      Read(value[i], fmt::format("{}[{}]", path, i), out.emplace_back());
    }
  } else if constexpr (fields::Described<T>) {
    ReadObject(value, path, out);
  } else {
    static_assert(kUnsupported<T>, "add this type to Read() in json.cc");
  }
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the id helps nobody.
std::string WithoutExceptionId(std::string_view what) {
  if (!what.empty() && what.front() == '[') {
    auto end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

}  // namespace

nlohmann::json ToJson(const RunResult& result) {
  json out = WriteObject(result);
  out[std::string(fields::kFormatKey)] = fields::kFormat;
  return out;
}

std::string ToJsonText(const RunResult& result) {
  return ToJson(result).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {
// Files written before checks carried their unit: the rates and the one plain number were
// told apart by their threshold key then (engine/gate/gate.cc has the same table).
void UnitsOfEarlierFiles(const json& file, RunResult& result) {
  const auto verdict = file.find("verdict");
  if (verdict == file.end() || !verdict->contains("checks")) return;
  const json& checks = (*verdict)["checks"];
  for (std::size_t i = 0; i < result.verdict.checks.size() && i < checks.size(); ++i) {
    if (checks[i].contains("unit")) continue;
    Check& c = result.verdict.checks[i];
    if (const ThresholdRow* row = FindThresholdRow(c.threshold)) c.unit = row->unit;
    if (c.threshold == "min_scaling_efficiency") c.unit = Check::Unit::kRate;
    if (c.threshold == "max_cost_exponent") c.unit = Check::Unit::kNumber;
  }
}
}  // namespace

RunResult RunResultFromJson(const nlohmann::json& json) {
  if (!json.is_object()) {
    throw std::runtime_error(fmt::format("not a perfengine results file: expected a JSON object, not {}", Found(json)));
  }
  auto format = json.find(fields::kFormatKey);
  if (format == json.end()) {
    throw std::runtime_error(fmt::format("not a perfengine results file: missing field \"{}\"", fields::kFormatKey));
  }
  if (!format->is_string()) Mistyped(std::string(fields::kFormatKey), "a string", Found(*format));
  if (format->get_ref<const std::string&>() != fields::kFormat) {
    throw std::runtime_error(fmt::format("unsupported results format \"{}\" (this perfengine reads \"{}\")",
                                         format->get_ref<const std::string&>(), fields::kFormat));
  }
  RunResult result;
  ReadObject(json, "", result);
  UnitsOfEarlierFiles(json, result);
  return result;
}

namespace {

constexpr std::size_t kMaxResultsBytes = std::size_t{256} << 20;

// Reads a whole results file, but never more than kMaxResultsBytes: /dev/zero or a runaway
// pipe is an error, not a machine out of memory. Devices, sockets and directories are refused
// before reading; a FIFO (or `<(...)`) is read, and one with no writer reads as empty.
std::string ReadBounded(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
    const char* what = S_ISDIR(st.st_mode)   ? "a directory"
                       : S_ISCHR(st.st_mode) ? "a character device"
                       : S_ISBLK(st.st_mode) ? "a block device"
                                             : "not a regular file";
    ::close(fd);
    throw std::runtime_error(
        fmt::format("{}: is {}, not a results file (write one with perfengine run --json)", path.string(), what));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string content;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw std::runtime_error(fmt::format("{}: read failed: {}", path.string(), std::strerror(error)));
    }
    if (n == 0) break;
    if (content.size() + static_cast<std::size_t>(n) > kMaxResultsBytes) {
      ::close(fd);
      throw std::runtime_error(
          fmt::format("{}: larger than {} MiB, not a results file", path.string(), kMaxResultsBytes >> 20));
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (content.empty()) throw std::runtime_error(fmt::format("{}: empty, not a results file", path.string()));
  return content;
}

// A library message can quote a whole token (a 400-digit number): keep it to one short line.
std::string Shortened(std::string text) {
  constexpr std::size_t kMax = 240;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

std::string SampleName(const WorkloadResult& w, std::size_t i) {
  const Sample& s = w.samples[i];
  return fmt::format("workload '{}', sample {} (contender '{}', round {})", w.name, i, s.contender, s.round);
}

// Every timed sample must be a time a process could take: statistics over a zero, negative or
// NaN time would be meaningless (a ratio of zero, an infinite speed-up).
void CheckSamples(const RunResult& result) {
  for (const WorkloadResult& w : result.workloads) {
    for (std::size_t i = 0; i < w.samples.size(); ++i) {
      const Sample& s = w.samples[i];
      if (!(std::isfinite(s.wall_s) && s.wall_s > 0)) {
        throw std::runtime_error(fmt::format("{}: wall_s is {}; a measured time must be a finite number greater than 0",
                                             SampleName(w, i), s.wall_s));
      }
      for (const auto& [name, value] : {std::pair{"user_s", s.user_s}, std::pair{"sys_s", s.sys_s}}) {
        if (!(std::isfinite(value) && value >= 0)) {
          throw std::runtime_error(fmt::format("{}: {} is {}; a CPU time must be a finite number of at least 0",
                                               SampleName(w, i), name, value));
        }
      }
    }
  }
}

// The settings must be ones a spec could ask for (engine/model/limits.h): a file claiming
// -5 rounds or two billion resamples is refused, as perfengine never writes one, before a report
// renders it or an analysis acts on it.
void CheckSettings(const RunResult& result) {
  const Settings& s = result.settings;
  const auto count = [](std::string_view field, long long value, long long min, long long max) {
    if (value < min || value > max) {
      throw std::runtime_error(
          fmt::format("field \"settings.{}\" must be an integer from {} to {}, not {}", field, min, max, value));
    }
  };
  count("rounds", s.rounds, 1, limits::kMaxRounds);
  count("warmup_rounds", s.warmup_rounds, 0, limits::kMaxWarmupRounds);
  count("max_rounds", s.max_rounds, 0, limits::kMaxRounds);
  count("bootstrap_resamples", s.bootstrap_resamples, limits::kMinBootstrapResamples, limits::kMaxBootstrapResamples);
  count("family_checks", s.family_checks, 0, std::numeric_limits<int>::max());
  const auto number = [](std::string_view field, double value, std::string_view range, bool in_range) {
    if (!in_range) {
      throw std::runtime_error(fmt::format("field \"settings.{}\" must be {}, not {}", field, range, value));
    }
  };
  number("scale", s.scale, fmt::format("a number above 0 and at most {}", limits::kMaxScale),
         s.scale > 0 && s.scale <= limits::kMaxScale);
  number("timeout_s", s.timeout_s, fmt::format("a number from 0 to {}", limits::kMaxTimeoutS),
         s.timeout_s >= 0 && s.timeout_s <= limits::kMaxTimeoutS);
  number("confidence", s.confidence, fmt::format("a number from {} to {}", kMinConfidence, kMaxConfidence),
         s.confidence >= kMinConfidence && s.confidence <= kMaxConfidence);
  for (const auto& [field, value] :
       {std::pair{"check_confidence", s.check_confidence}, std::pair{"family_confidence", s.family_confidence}}) {
    number(field, value, "0 (not recorded) or a number above 0 and below 1", value == 0 || (value > 0 && value < 1));
  }
  if (result.machine.cores < 0) {
    throw std::runtime_error(fmt::format("field \"machine.cores\" must be at least 0, not {}", result.machine.cores));
  }
}

}  // namespace

RunResult ReadResultsFile(const std::filesystem::path& path) {
  return ParseResultsText(ReadBounded(path), path.string());
}

RunResult ParseResultsText(const std::string& content, const std::string& name) {
  const std::filesystem::path path = name;
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(content);
  } catch (const nlohmann::json::exception& error) {  // parse_error, and out_of_range for 1e400
    throw std::runtime_error(
        fmt::format("{}: not valid JSON: {}", path.string(), Shortened(WithoutExceptionId(error.what()))));
  }
  try {
    RunResult result = RunResultFromJson(parsed);
    CheckSettings(result);
    CheckSamples(result);
    return result;
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(fmt::format("{}: {}", path.string(), Shortened(error.what())));
  }
}

}  // namespace pe::model

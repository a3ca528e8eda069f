// Every name the results file uses, in one place: a field table per struct of
// engine/model/result.h and a name table per enum. engine/model/json.cc walks these
// tables generically, so a field added to result.h is one line here (and json.cc
// refuses to compile until it is added: see TablesCoverEveryMember there).
//
// Internal to engine/model; other modules use json.h and names.h.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/model/result.h"

namespace pe::fields {

// Type tests the table walkers (json.cc, schema.cc) dispatch on.
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
inline constexpr bool kUnsupported = false;

template <typename T>
struct Tag {};

// A field added after results files were first written is kAddedLater: a file without it
// still reads, with the member's default, so results from earlier perfengines stay usable.
inline constexpr bool kAddedLater = false;

template <typename Struct, typename Member>
struct Field {
  std::string_view name;
  Member Struct::*member;
  bool required = true;
};
template <typename Struct, typename Member>
Field(std::string_view, Member Struct::*) -> Field<Struct, Member>;
template <typename Struct, typename Member>
Field(std::string_view, Member Struct::*, bool) -> Field<Struct, Member>;

template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};
template <typename Enum>
EnumName(Enum, std::string_view) -> EnumName<Enum>;

// The results file's format tag; a reader rejects any other.
inline constexpr std::string_view kFormatKey = "format";
inline constexpr std::string_view kFormat = "perfengine-results/1";

constexpr auto NamesOf(Tag<model::Failure::Kind>) {
  using K = model::Failure::Kind;
  return std::array{
      EnumName{K::kSpec, "spec"},         EnumName{K::kFixture, "fixture"},         EnumName{K::kSpawn, "spawn"},
      EnumName{K::kExit, "exit"},         EnumName{K::kSignal, "signal"},           EnumName{K::kTimeout, "timeout"},
      EnumName{K::kParity, "parity"},     EnumName{K::kInterrupted, "interrupted"}, EnumName{K::kBuild, "build"},
      EnumName{K::kCounters, "counters"}, EnumName{K::kIsolation, "isolation"},
  };
}

constexpr auto NamesOf(Tag<model::Check::State>) {
  using K = model::Check::State;
  return std::array{EnumName{K::kPass, "pass"}, EnumName{K::kFail, "fail"}, EnumName{K::kUnresolved, "unresolved"}};
}

constexpr auto NamesOf(Tag<model::Check::Burden>) {
  using K = model::Check::Burden;
  return std::array{EnumName{K::kPoint, "point"}, EnumName{K::kShowMet, "show_met"},
                    EnumName{K::kShowMissed, "show_missed"}};
}

constexpr auto NamesOf(Tag<model::Check::Unit>) {
  using K = model::Check::Unit;
  return std::array{EnumName{K::kRatio, "ratio"}, EnumName{K::kRate, "rate"}, EnumName{K::kNumber, "number"}};
}

constexpr auto NamesOf(Tag<model::WorkloadResult::Kind>) {
  using K = model::WorkloadResult::Kind;
  return std::array{EnumName{K::kProcess, "process"}, EnumName{K::kServe, "serve"}, EnumName{K::kWorker, "worker"}};
}

constexpr auto NamesOf(Tag<model::ExitCode>) {
  return std::array{
      EnumName{model::ExitCode::kPass, "pass"},
      EnumName{model::ExitCode::kThresholdMissed, "threshold_missed"},
      EnumName{model::ExitCode::kRunFailed, "run_failed"},
      EnumName{model::ExitCode::kUnresolved, "unresolved"},
      EnumName{model::ExitCode::kInterrupted, "interrupted"},
  };
}

constexpr auto FieldsOf(Tag<model::Sample>) {
  using S = model::Sample;
  return std::tuple{
      Field{"contender", &S::contender},
      Field{"round", &S::round},
      Field{"warmup", &S::warmup},
      Field{"rss_only", &S::rss_only},
      Field{"position", &S::position},
      Field{"wall_s", &S::wall_s},
      Field{"user_s", &S::user_s},
      Field{"sys_s", &S::sys_s},
      Field{"max_rss_kib", &S::max_rss_kib},
      Field{"serve", &S::serve},
      Field{"worker", &S::worker, kAddedLater},
      Field{"counters", &S::counters, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::CounterValue>) {
  using S = model::CounterValue;
  return std::tuple{Field{"name", &S::name}, Field{"value", &S::value}};
}

constexpr auto FieldsOf(Tag<model::Counter>) {
  using S = model::Counter;
  return std::tuple{Field{"name", &S::name}, Field{"unit", &S::unit}, Field{"exact", &S::exact},
                    Field{"max_ratio", &S::max_ratio}};
}

constexpr auto FieldsOf(Tag<model::CounterComparison>) {
  using S = model::CounterComparison;
  return std::tuple{
      Field{"name", &S::name},   Field{"baseline", &S::baseline},        Field{"candidate", &S::candidate},
      Field{"ratio", &S::ratio}, Field{"ratio_cs", &S::ratio_cs},        Field{"rounds_needed", &S::rounds_needed},
      Field{"note", &S::note},   Field{"noise", &S::noise, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::Failure>) {
  using S = model::Failure;
  return std::tuple{
      Field{"kind", &S::kind},       Field{"workload", &S::workload}, Field{"contender", &S::contender},
      Field{"message", &S::message}, Field{"detail", &S::detail},
  };
}

constexpr auto FieldsOf(Tag<model::Thresholds>) {
  using S = model::Thresholds;
  return std::tuple{
      Field{"min_speedup", &S::min_speedup},
      Field{"min_win_rate", &S::min_win_rate},
      Field{"min_logic_speedup", &S::min_logic_speedup},
      Field{"max_rss_ratio", &S::max_rss_ratio},
      Field{"rss_runs", &S::rss_runs},
      Field{"min_speedup_ci", &S::min_speedup_ci},
      Field{"max_slowdown", &S::max_slowdown},
      Field{"confidence", &S::confidence},
      Field{"max_instructions_ratio", &S::max_instructions_ratio},
      Field{"max_allocations_ratio", &S::max_allocations_ratio},
      Field{"max_p99_ratio", &S::max_p99_ratio},
      Field{"max_own_instructions_ratio", &S::max_own_instructions_ratio, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::Interval>) {
  using S = model::Interval;
  return std::tuple{
      Field{"estimate", &S::estimate}, Field{"low", &S::low},       Field{"high", &S::high},
      Field{"level", &S::level},       Field{"method", &S::method},
  };
}

constexpr auto FieldsOf(Tag<model::ContenderSummary>) {
  using S = model::ContenderSummary;
  return std::tuple{
      Field{"contender", &S::contender},
      Field{"n", &S::n},
      Field{"median_wall_s", &S::median_wall_s},
      Field{"median_user_s", &S::median_user_s},
      Field{"median_sys_s", &S::median_sys_s},
      Field{"min_wall_s", &S::min_wall_s},
      Field{"max_wall_s", &S::max_wall_s},
      Field{"median_max_rss_kib", &S::median_max_rss_kib},
      Field{"median_cpu_s", &S::median_cpu_s, kAddedLater},
      Field{"instructions", &S::instructions},
      Field{"instructions_source", &S::instructions_source, kAddedLater},
      Field{"own_instructions", &S::own_instructions, kAddedLater},
      Field{"allocation_calls", &S::allocation_calls},
      Field{"allocated_bytes", &S::allocated_bytes},
      Field{"measure_note", &S::measure_note, kAddedLater},
      Field{"serve", &S::serve},
  };
}

constexpr auto FieldsOf(Tag<model::Comparison>) {
  using S = model::Comparison;
  return std::tuple{
      Field{"baseline", &S::baseline, kAddedLater},
      Field{"candidate", &S::candidate, kAddedLater},
      Field{"speedup", &S::speedup},
      Field{"rounds", &S::rounds},
      Field{"wins", &S::wins},
      Field{"win_rate", &S::win_rate},
      Field{"baseline_logic_s", &S::baseline_logic_s},
      Field{"candidate_logic_s", &S::candidate_logic_s},
      Field{"logic_speedup", &S::logic_speedup},
      Field{"logic_note", &S::logic_note},
      Field{"rss_ratio", &S::rss_ratio},
      Field{"sign_test_p", &S::sign_test_p},
      Field{"wilcoxon_p", &S::wilcoxon_p},
      Field{"speedup_ci", &S::speedup_ci},
      Field{"logic_speedup_ci", &S::logic_speedup_ci},
      Field{"paired_ratio_ci", &S::paired_ratio_ci},
      Field{"rounds_to_resolve", &S::rounds_to_resolve},
      Field{"notes", &S::notes, kAddedLater},
      Field{"cpu_ratio", &S::cpu_ratio},
      Field{"cpu_ratio_ci", &S::cpu_ratio_ci},
      Field{"instructions_ratio", &S::instructions_ratio},
      Field{"allocations_ratio", &S::allocations_ratio},
      Field{"p99_ratio", &S::p99_ratio},
      Field{"own_instructions_ratio", &S::own_instructions_ratio, kAddedLater},
      Field{"speedup_cs", &S::speedup_cs},
      Field{"cpu_ratio_cs", &S::cpu_ratio_cs},
      Field{"win_rate_cs", &S::win_rate_cs},
      Field{"logic_speedup_cs", &S::logic_speedup_cs},
      Field{"speedup_rounds_needed", &S::speedup_rounds_needed},
      Field{"cpu_rounds_needed", &S::cpu_rounds_needed},
      Field{"logic_rounds_needed", &S::logic_rounds_needed},
      Field{"win_rounds_needed", &S::win_rounds_needed},
      Field{"counters", &S::counters, kAddedLater},
      Field{"speedup_noise", &S::speedup_noise, kAddedLater},
      Field{"cpu_noise", &S::cpu_noise, kAddedLater},
      Field{"logic_noise", &S::logic_noise, kAddedLater},
      Field{"cpu_futility_chance", &S::cpu_futility_chance, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::WorkerFigures>) {
  using S = model::WorkerFigures;
  return std::tuple{Field{"iterations", &S::iterations}, Field{"thread_cpu_s", &S::thread_cpu_s},
                    Field{"batches", &S::batches, kAddedLater}, Field{"batch_range", &S::batch_range, kAddedLater}};
}

constexpr auto FieldsOf(Tag<model::WorkerBenchmark>) {
  using S = model::WorkerBenchmark;
  return std::tuple{Field{"benchmark", &S::benchmark}, Field{"iterations", &S::iterations},
                    Field{"iteration_s", &S::iteration_s}, Field{"digest", &S::digest}};
}

constexpr auto FieldsOf(Tag<model::ServeFigures>) {
  using S = model::ServeFigures;
  return std::tuple{
      Field{"requests", &S::requests},
      Field{"p50_s", &S::p50_s},
      Field{"p90_s", &S::p90_s},
      Field{"p99_s", &S::p99_s},
      Field{"max_s", &S::max_s},
      Field{"throughput_rps", &S::throughput_rps},
      Field{"time_to_ready_s", &S::time_to_ready_s},
  };
}

constexpr auto FieldsOf(Tag<model::FunctionShift>) {
  using S = model::FunctionShift;
  return std::tuple{
      Field{"function", &S::function},
      Field{"baseline_cost", &S::baseline_cost},
      Field{"candidate_cost", &S::candidate_cost},
      Field{"baseline_share", &S::baseline_share},
      Field{"candidate_share", &S::candidate_share},
      Field{"basis", &S::basis, kAddedLater},
      Field{"object", &S::object, kAddedLater},
      Field{"detail", &S::detail, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::Check>) {
  using S = model::Check;
  return std::tuple{
      Field{"workload", &S::workload},
      Field{"threshold", &S::threshold},
      Field{"label", &S::label},
      Field{"measured", &S::measured},
      Field{"bar", &S::bar},
      Field{"higher_is_better", &S::higher_is_better},
      Field{"passed", &S::passed},
      Field{"skipped", &S::skipped},
      Field{"note", &S::note},
      Field{"state", &S::state, kAddedLater},
      Field{"burden", &S::burden, kAddedLater},
      Field{"interval", &S::interval},
      Field{"rounds", &S::rounds, kAddedLater},
      Field{"rounds_needed", &S::rounds_needed},
      Field{"unit", &S::unit, kAddedLater},
      Field{"contender", &S::contender, kAddedLater},
      Field{"detectable", &S::detectable, kAddedLater},
      Field{"noise", &S::noise, kAddedLater},
      Field{"futile", &S::futile, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::WorkloadResult>) {
  using S = model::WorkloadResult;
  return std::tuple{
      Field{"name", &S::name},
      Field{"description", &S::description},
      Field{"gate", &S::gate},
      Field{"startup", &S::startup},
      Field{"kind", &S::kind, kAddedLater},
      Field{"thresholds", &S::thresholds},
      Field{"samples", &S::samples},
      Field{"summaries", &S::summaries},
      Field{"comparison", &S::comparison},
      Field{"other_comparisons", &S::other_comparisons, kAddedLater},
      Field{"failures", &S::failures},
      Field{"sweep", &S::sweep, kAddedLater},
      Field{"point", &S::point, kAddedLater},
      Field{"elements", &S::elements, kAddedLater},
      Field{"profile", &S::profile, kAddedLater},
      Field{"profile_note", &S::profile_note, kAddedLater},
      Field{"parity", &S::parity, kAddedLater},
      Field{"normalise", &S::normalise, kAddedLater},
      Field{"unit", &S::unit, kAddedLater},
      Field{"counters", &S::counters, kAddedLater},
      Field{"notes", &S::notes, kAddedLater},
      Field{"worker", &S::worker, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::AxisValue>) {
  using S = model::AxisValue;
  return std::tuple{Field{"axis", &S::axis}, Field{"value", &S::value}};
}

constexpr auto FieldsOf(Tag<model::ScalingFit>) {
  using S = model::ScalingFit;
  return std::tuple{
      Field{"contender", &S::contender}, Field{"axis", &S::axis}, Field{"fixed", &S::fixed},
      Field{"exponent", &S::exponent},   Field{"low", &S::low},   Field{"high", &S::high},
      Field{"level", &S::level},         Field{"note", &S::note},
  };
}

constexpr auto FieldsOf(Tag<model::ScalingEfficiency>) {
  using S = model::ScalingEfficiency;
  return std::tuple{
      Field{"contender", &S::contender},   Field{"fixed", &S::fixed},       Field{"threads", &S::threads},
      Field{"efficiency", &S::efficiency}, Field{"interval", &S::interval},
  };
}

constexpr auto FieldsOf(Tag<model::SweepResult>) {
  using S = model::SweepResult;
  return std::tuple{
      Field{"name", &S::name},
      Field{"axes", &S::axes},
      Field{"fits", &S::fits},
      Field{"efficiencies", &S::efficiencies},
      Field{"max_cost_exponent", &S::max_cost_exponent},
      Field{"min_scaling_efficiency", &S::min_scaling_efficiency},
      Field{"efficiency_threads", &S::efficiency_threads},
  };
}

constexpr auto FieldsOf(Tag<model::ContenderInfo>) {
  using S = model::ContenderInfo;
  return std::tuple{
      Field{"name", &S::name},
      Field{"description", &S::description},
      Field{"argv", &S::argv},
      Field{"startup_argv", &S::startup_argv},
      Field{"git", &S::git, kAddedLater},
      Field{"commit", &S::commit, kAddedLater},
      Field{"build", &S::build, kAddedLater},
      Field{"dirty", &S::dirty, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::Settings>) {
  using S = model::Settings;
  return std::tuple{
      Field{"rounds", &S::rounds},
      Field{"warmup_rounds", &S::warmup_rounds},
      Field{"scale", &S::scale},
      Field{"seed", &S::seed},
      Field{"timeout_s", &S::timeout_s},
      Field{"order", &S::order},
      Field{"bootstrap_resamples", &S::bootstrap_resamples},
      Field{"confidence", &S::confidence},
      Field{"max_rounds", &S::max_rounds, kAddedLater},
      Field{"compare", &S::compare, kAddedLater},
      Field{"family_checks", &S::family_checks, kAddedLater},
      Field{"check_confidence", &S::check_confidence, kAddedLater},
      Field{"family_confidence", &S::family_confidence, kAddedLater},
      Field{"batch_time_s", &S::batch_time_s, kAddedLater},
      Field{"batches", &S::batches, kAddedLater},
      Field{"final_look", &S::final_look, kAddedLater},
      Field{"futility", &S::futility, kAddedLater},
      Field{"randomize_addresses", &S::randomize_addresses, kAddedLater},
      Field{"pin_workers", &S::pin_workers, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::MachineInfo>) {
  using S = model::MachineInfo;
  return std::tuple{
      Field{"hostname", &S::hostname},     Field{"os", &S::os}, Field{"cpu", &S::cpu}, Field{"cores", &S::cores},
      Field{"memory_kib", &S::memory_kib},
  };
}

constexpr auto FieldsOf(Tag<model::ShardInfo>) {
  using S = model::ShardInfo;
  return std::tuple{
      Field{"index", &S::index},         Field{"count", &S::count},     Field{"selection", &S::selection},
      Field{"workloads", &S::workloads}, Field{"machine", &S::machine}, Field{"started_at", &S::started_at},
  };
}

constexpr auto FieldsOf(Tag<model::Verdict>) {
  using S = model::Verdict;
  return std::tuple{
      Field{"exit", &S::exit},
      Field{"checks", &S::checks},
      Field{"lines", &S::lines},
      Field{"accepted", &S::accepted, kAddedLater},
      Field{"accepted_by", &S::accepted_by, kAddedLater},
      Field{"notes", &S::notes, kAddedLater},
  };
}

constexpr auto FieldsOf(Tag<model::RoundLoad>) {
  using S = model::RoundLoad;
  return std::tuple{
      Field{"round", &S::round},
      Field{"load_1m", &S::load_1m},
      Field{"others_share", &S::others_share},
      Field{"steal_share", &S::steal_share},
      Field{"cpu_mhz", &S::cpu_mhz},
  };
}

constexpr auto FieldsOf(Tag<model::PhaseTimes>) {
  using S = model::PhaseTimes;
  return std::tuple{
      Field{"build_s", &S::build_s},         Field{"fixtures_s", &S::fixtures_s}, Field{"parity_s", &S::parity_s},
      Field{"measuring_s", &S::measuring_s}, Field{"analysis_s", &S::analysis_s}, Field{"total_s", &S::total_s},
  };
}

constexpr auto FieldsOf(Tag<model::RunResult>) {
  using S = model::RunResult;
  return std::tuple{
      Field{"engine_version", &S::engine_version},
      Field{"spec_path", &S::spec_path},
      Field{"spec_digest", &S::spec_digest},
      Field{"started_at", &S::started_at},
      Field{"machine", &S::machine},
      Field{"settings", &S::settings},
      Field{"baseline", &S::baseline},
      Field{"candidate", &S::candidate},
      Field{"contenders", &S::contenders},
      Field{"workloads", &S::workloads},
      Field{"failures", &S::failures},
      Field{"sweeps", &S::sweeps, kAddedLater},
      Field{"complete", &S::complete},
      Field{"rounds_stopped", &S::rounds_stopped, kAddedLater},
      Field{"verdict", &S::verdict},
      Field{"load", &S::load, kAddedLater},
      Field{"shards", &S::shards, kAddedLater},
      Field{"phases", &S::phases, kAddedLater},
  };
}

template <typename T>
concept Described = requires {
  FieldsOf(Tag<T>{});
};

template <typename T>
concept NamedEnum = requires {
  NamesOf(Tag<T>{});
};

// "unknown" only for a value cast from an out-of-range integer.
template <NamedEnum Enum>
constexpr std::string_view NameOf(Enum value) {
  for (const auto& entry : NamesOf(Tag<Enum>{})) {
    if (entry.value == value) return entry.name;
  }
  return "unknown";
}

template <NamedEnum Enum>
constexpr std::optional<Enum> ParseName(std::string_view name) {
  for (const auto& entry : NamesOf(Tag<Enum>{})) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace pe::fields

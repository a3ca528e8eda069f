#include "engine/run/counts_collector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "engine/gate/gate.h"
#include "engine/measure/allocations.h"
#include "engine/measure/call_graph.h"
#include "engine/measure/failed_run.h"
#include "engine/measure/instructions.h"
#include "engine/measure/profile.h"
#include "engine/measure/reported_profile.h"
#include "engine/measure/where_the_time_went.h"
#include "engine/model/count_ratio.h"
#include "engine/model/threshold_table.h"
#include "engine/run/execution_dir.h"
#include "engine/run/progress.h"
#include "engine/run/worker_counts.h"
#include "engine/runner/interrupt.h"

namespace pe::run::internal {

using model::Check;
using model::ContenderSummary;
using model::WorkloadResult;

bool WantsCount(const spec::Spec& spec, const spec::Workload& w, const model::Thresholds& t, std::string_view count) {
  if (w.startup || w.serve) return false;
  if (count == "instructions" && spec.measure_instructions) return true;
  if (count == "allocations" && spec.measure_allocations) return true;
  return std::any_of(std::begin(model::kThresholdRows), std::end(model::kThresholdRows),
                     [&](const model::ThresholdRow& row) { return row.count == count && (t.*row.bar).has_value(); });
}

bool CountsCollector::Collect() {
  const spec::Spec& spec = ex_.spec();
  Progress* progress = ex_.progress();
  if (progress) {
    // Counts run after the timed rounds, and one under callgrind takes many times a timed run:
    // said at once, so a long count is no silence (issue 42).
    int runs = 0;
    std::vector<std::string> counted;
    for (const std::string_view count : {"instructions", "allocations"}) {
      int these = 0;
      for (const spec::Workload* w : workloads_) {
        if (WantsCount(spec, *w, ex_.ResultFor(*w).thresholds, count))
          these += w->worker ? 1 : static_cast<int>(spec.contenders.size());  // a worker's: all contenders at once
      }
      if (these > 0) counted.emplace_back(count);
      runs += these;
    }
    if (runs > 0) {
      progress->BeginPhase("counting", runs,
                           fmt::format("{} ({} run{}, one per count, contender and workload)",
                                       fmt::join(counted, " and "), runs, runs == 1 ? "" : "s"));
    }
  }
  const bool ok = CollectEach();
  if (progress) progress->EndPhase();
  return ok;
}

bool CountsCollector::CollectWorkers() {
  const spec::Spec& spec = ex_.spec();
  for (const std::string_view count : {"instructions", "allocations"}) {
    std::vector<const spec::Workload*> wanting;
    for (const spec::Workload* w : workloads_) {
      if (w->worker && WantsCount(spec, *w, ex_.ResultFor(*w).thresholds, count)) wanting.push_back(w);
    }
    if (wanting.empty()) continue;
    std::vector<const spec::Contender*> contenders;
    for (const spec::Contender& c : spec.contenders) contenders.push_back(&c);
    WorkerCounts counts;
    const bool ok = count == "instructions"
                        ? CountWorkerInstructions(ex_, contenders, wanting, NextCallgrindDir(), counts)
                        : CountWorkerAllocations(ex_, contenders, wanting, NextCallgrindDir(), counts);
    if (!ok) return false;
    if (!CountMissesAlone(count, contenders, wanting, counts)) return false;
    for (const spec::Contender* c : contenders) {
      for (const spec::Workload* w : wanting) {
        const WorkerCount& n = counts[{w, c}];
        ContenderSummary* summary = CountsOf(*w, c->name);
        if (count == "instructions") {
          summary->instructions = n.instructions;
          if (n.instructions) summary->instructions_source = measure::kSourceCallgrind;
          if (!n.callgrind_files.empty()) count_files_[{w->name, c->name}] = n.callgrind_files;
          if (n.instructions) CountOwnInstructions(c->name, n.callgrind_files, *summary);
          worker_notes_[{w->name, c->name}] = n.note;
        } else {
          summary->allocation_calls = n.allocation_calls;
          summary->allocated_bytes = n.allocated_bytes;
        }
        if (!n.note.empty())
          summary->measure_note = summary->measure_note.empty() ? n.note : summary->measure_note + "; " + n.note;
      }
    }
    if (interrupt::Interrupted()) return ex_.Interrupted();
  }
  for (const spec::Workload* w : workloads_) {
    if (!w->worker || ex_.ResultFor(*w).summaries.empty()) continue;
    ex_.ResultFor(*w).notes.push_back(fmt::format(
        "worker benchmark '{}': instructions and allocations are of one counted batch of {} iterations (the same "
        "for every contender), between the worker's markers: its loop alone (docs/workers.md, \"Counts\")",
        w->benchmark, CountedIterations(ex_.ResultFor(*w).worker->iterations)));
  }
  return true;
}

bool CountsCollector::CountMissesAlone(std::string_view count, const std::vector<const spec::Contender*>& contenders,
                                       const std::vector<const spec::Workload*>& workloads, WorkerCounts& counts) {
  const spec::Contender* baseline = ex_.spec().FindContender(ex_.spec().baseline);
  for (const spec::Workload* w : workloads) {
    const model::Thresholds& t = ex_.ResultFor(*w).thresholds;
    const std::optional<double>& bar = count == "instructions" ? t.max_instructions_ratio : t.max_allocations_ratio;
    if (!bar) continue;
    auto figure = [&](const WorkerCount& n) { return count == "instructions" ? n.instructions : n.allocation_calls; };
    const std::optional<std::uint64_t> base = figure(counts[{w, baseline}]);
    bool missed = false;
    std::string shared;
    for (const spec::Contender* c : contenders) {
      const std::optional<std::uint64_t> other = figure(counts[{w, c}]);
      if (c == baseline || !base || !other) continue;
      const double ratio = model::CountRatio(static_cast<double>(*base), static_cast<double>(*other));
      if (ratio > *bar) {
        missed = true;
        shared = fmt::format("{} against {}", *other, *base);
      }
    }
    if (!missed) continue;
    // A warm worker's heap holds what every benchmark's set-up and earlier batches left there; an
    // allocator whose realloc moves a buffer in one heap and grows it in place in another counts
    // differently for a change elsewhere (a parser change moved a generator benchmark's
    // instructions 5% through ruby_xrealloc2). The miss is counted again in workers that set up
    // this benchmark alone, and that count is the figure.
    WorkerCounts alone;
    const bool ok = count == "instructions" ? CountWorkerInstructions(ex_, contenders, {w}, NextCallgrindDir(), alone)
                                            : CountWorkerAllocations(ex_, contenders, {w}, NextCallgrindDir(), alone);
    if (!ok) return false;
    for (const spec::Contender* c : contenders) counts[{w, c}] = alone[{w, c}];
    ex_.ResultFor(*w).notes.push_back(fmt::format(
        "worker benchmark '{}': its {} were counted again in workers started for it alone, as the shared worker's "
        "count ({}) was above the bar; the figure is that count (docs/workers.md, \"Counts\")",
        w->benchmark, count, shared));
    if (!CountNearMissesTwice(count, contenders, w, *bar, counts)) return false;
  }
  return true;
}

// A Ruby benchmark's count moves with where its process's heap lies (glibc's string functions
// take more instructions on some alignments than others): ruby/json's parse_small_hash counted
// 1.026M to 1.064M instructions a batch in three runs of one build, 1% apart between two
// contenders of one run. So a count that still misses alone, by less than kNearMiss of the bar,
// is counted once more alone, and the figure is each contender's count that grew the least: the
// larger of the baseline's two, the smaller of each other contender's. A growth beyond what the
// processes of one build vary by still misses; a miss that one process's layout made does not.
bool CountsCollector::CountNearMissesTwice(std::string_view count,
                                           const std::vector<const spec::Contender*>& contenders,
                                           const spec::Workload* w, double bar, WorkerCounts& counts) {
  constexpr double kNearMiss = 1.05;
  const spec::Contender* baseline = ex_.spec().FindContender(ex_.spec().baseline);
  auto figure = [&](WorkerCount& n) -> std::optional<std::uint64_t>& {
    return count == "instructions" ? n.instructions : n.allocation_calls;
  };
  const std::optional<std::uint64_t> base = figure(counts[{w, baseline}]);
  if (!base) return true;
  bool near = false;
  for (const spec::Contender* c : contenders) {
    const std::optional<std::uint64_t> other = figure(counts[{w, c}]);
    if (c == baseline || !other) continue;
    const double ratio = model::CountRatio(static_cast<double>(*base), static_cast<double>(*other));
    near = near || (ratio > bar && ratio < bar * kNearMiss);
  }
  if (!near) return true;
  WorkerCounts again;
  const bool ok = count == "instructions" ? CountWorkerInstructions(ex_, contenders, {w}, NextCallgrindDir(), again)
                                          : CountWorkerAllocations(ex_, contenders, {w}, NextCallgrindDir(), again);
  if (!ok) return false;
  std::vector<std::string> pairs;
  for (const spec::Contender* c : contenders) {
    WorkerCount& first = counts[{w, c}];
    WorkerCount& second = again[{w, c}];
    if (!figure(first) || !figure(second)) continue;
    pairs.push_back(fmt::format("{} {} and {}", c->name, *figure(first), *figure(second)));
    const bool keep_second = c == baseline ? *figure(second) > *figure(first) : *figure(second) < *figure(first);
    if (keep_second) first = second;  // its callgrind files go with it, for the profile
  }
  ex_.ResultFor(*w).notes.push_back(fmt::format(
      "worker benchmark '{}': its {} missed alone by less than {:g}% of the bar, so each contender was counted twice "
      "alone ({}); the figure is the larger of the baseline's counts against the smaller of each other "
      "contender's, as a count moves with where a process's heap lies (docs/workers.md, \"Counts\")",
      w->benchmark, count, 100 * (kNearMiss - 1), fmt::join(pairs, "; ")));
  return true;
}

ContenderSummary* CountsCollector::CountsOf(const spec::Workload& w, const std::string& contender) {
  std::vector<ContenderSummary>& summaries = ex_.ResultFor(w).summaries;
  for (ContenderSummary& s : summaries) {
    if (s.contender == contender) return &s;
  }
  ContenderSummary& s = summaries.emplace_back();
  s.contender = contender;
  return &s;
}

bool CountsCollector::CollectEach() {
  const spec::Spec& spec = ex_.spec();
  Progress* progress = ex_.progress();
  if (!CollectWorkers()) return false;
  for (const spec::Workload* w : workloads_) {
    if (w->worker) continue;  // CollectWorkers
    const model::Thresholds& t = ex_.ResultFor(*w).thresholds;
    const bool instructions = WantsCount(spec, *w, t, "instructions");
    const bool allocations = WantsCount(spec, *w, t, "allocations");
    if (!instructions && !allocations) continue;
    for (const spec::Contender& c : spec.contenders) {
      ContenderSummary counts;
      counts.contender = c.name;
      std::vector<std::string> notes;
      if (instructions) {
        if (progress) progress->StartStep(fmt::format("{}, instructions of {}", w->name, c.name));
        const ExecutionPaths paths = ex_.PathsFor(c, *w);
        if (!ex_.Prepare(c, *w, paths)) return false;  // the spec's hooks, as around every execution
        const measure::InstructionCount n = measure::CountInstructions(
            ex_.BuildCommand(c, *w, paths), ex_.runner(), measure::InstructionSource::kAuto, NextCallgrindDir());
        if (!ex_.Cleanup(c, *w, paths)) return false;
        ReleaseExecutionDir(paths.dir);  // its output goes before the next contender runs
        if (n.count && !n.callgrind_files.empty()) count_files_[{w->name, c.name}] = n.callgrind_files;
        counts.instructions = n.count;
        counts.instructions_source = n.source;
        if (!n.note.empty()) notes.push_back(n.note);
        // Said missing only where a bar reads it: a machine with hardware counters has no files.
        if (n.count && (!n.callgrind_files.empty() || t.max_own_instructions_ratio))
          CountOwnInstructions(c.name, n.callgrind_files, counts);
        if (!counts.measure_note.empty()) notes.push_back(std::exchange(counts.measure_note, ""));
      }
      if (allocations) {
        if (progress) progress->StartStep(fmt::format("{}, allocations of {}", w->name, c.name));
        const ExecutionPaths paths = ex_.PathsFor(c, *w);
        if (!ex_.Prepare(c, *w, paths)) return false;
        const measure::AllocationCount a = measure::CountAllocations(ex_.BuildCommand(c, *w, paths), ex_.runner());
        if (!ex_.Cleanup(c, *w, paths)) return false;
        ReleaseExecutionDir(paths.dir);
        counts.allocation_calls = a.calls;
        counts.allocated_bytes = a.bytes;
        if (!a.note.empty()) notes.push_back(a.note);
      }
      counts.measure_note = fmt::format("{}", fmt::join(notes, "; "));
      ex_.ResultFor(*w).summaries.push_back(std::move(counts));
      if (interrupt::Interrupted()) return ex_.Interrupted();
    }
  }
  return true;
}

std::vector<std::filesystem::path> CountsCollector::OwnDirs(const std::string& contender) const {
  for (const ObjectOwner& o : ex_.ObjectOwners()) {
    if (o.contender == contender) return o.dirs;
  }
  return {};
}

// Read from the count's own callgrind files: no run of its own. A count from hardware counters
// has none, and says so.
void CountsCollector::CountOwnInstructions(const std::string& contender,
                                           const std::vector<std::filesystem::path>& files,
                                           model::ContenderSummary& s) const {
  std::string why;
  if (files.empty()) {
    why = "no own-code instruction count: it is read from callgrind's files, and this count was not callgrind's";
  } else if (std::optional<std::uint64_t> own = measure::OwnInstructionsOf(files, OwnDirs(contender), why)) {
    s.own_instructions = *own;
    return;
  } else {
    why = "no own-code instruction count: " + why;
  }
  s.measure_note = s.measure_note.empty() ? why : s.measure_note + "; " + why;
}

std::filesystem::path CountsCollector::NextCallgrindDir() {
  if (!counts_dir_) counts_dir_.emplace("pe-counts-");
  // Numbered: workload and contender names need not be valid file names.
  std::filesystem::path dir = counts_dir_->path() / std::to_string(dirs_made_++);
  std::filesystem::create_directory(dir);
  return dir;
}

std::optional<std::vector<measure::ReportedFunction>> CountsCollector::ReportedProfile(const spec::Contender& c,
                                                                                       const spec::Workload& w,
                                                                                       std::string& note) {
  const ExecutionPaths paths = ex_.PathsFor(c, w);
  // The spec's hooks, as around every execution: the workload's prepare may make its input.
  if (!ex_.Prepare(c, w, paths)) {
    failed_ = true;
    return std::nullopt;
  }
  runner::Command command = ex_.BuildCommand(c, w, paths);
  const std::filesystem::path file = paths.dir / "profile";
  command.env[measure::kProfileEnv] = file.string();
  const runner::Outcome outcome = ex_.runner().Run(command);
  if (outcome.status == runner::Outcome::Status::kInterrupted || interrupt::Interrupted()) {
    failed_ = true;
    ex_.Interrupted();
    return std::nullopt;
  }
  std::optional<std::string> text;
  if (outcome.ok()) {
    if (std::ifstream in(file, std::ios::binary); in) {
      std::ostringstream read;
      read << in.rdbuf();
      text = read.str();
    }
  } else {
    note = fmt::format("contender '{}' did not finish its profiling run: {}", c.name,
                       measure::WhyItFailed(command, outcome));
  }
  if (!ex_.Cleanup(c, w, paths)) {
    failed_ = true;
    return std::nullopt;
  }
  ReleaseExecutionDir(paths.dir);
  return ParsedProfile(c, w, text);  // none: the run failed (`note` says so), or it reports no profile of its own
}

std::optional<std::vector<measure::ReportedFunction>> CountsCollector::ParsedProfile(
    const spec::Contender& c, const spec::Workload& w, const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::vector<measure::ReportedFunction> functions;
  if (auto error = measure::ParseReportedProfile(*text, functions)) {
    ex_.ResultFor(w).failures.push_back(
        {model::Failure::Kind::kCounters, w.name, c.name,
         fmt::format("wrote a bad profile file (${}): {}", measure::kProfileEnv, *error), ""});
    failed_ = true;
    return std::nullopt;
  }
  return functions;
}

bool CountsCollector::CountWorkerFiles(const spec::Workload& w, const spec::Contender& c) {
  if (count_files_.contains({w.name, c.name})) return true;
  WorkerCounts counts;
  if (!CountWorkerInstructions(ex_, {&c}, {&w}, NextCallgrindDir(), counts)) {
    failed_ = true;
    return false;
  }
  const WorkerCount& n = counts[{&w, &c}];
  if (!n.callgrind_files.empty()) count_files_[{w.name, c.name}] = n.callgrind_files;
  worker_notes_[{w.name, c.name}] = n.note;
  return true;
}

std::string CountsCollector::WorkerCountNote(const spec::Workload& w, const spec::Contender& c) const {
  const auto it = worker_notes_.find({w.name, c.name});
  return it == worker_notes_.end() || it->second.empty() ? "no instruction count was taken" : it->second;
}

bool CountsCollector::ProfileRegressions() {
  const spec::Spec& spec = ex_.spec();
  const model::Verdict& verdict = ex_.result().verdict;
  auto own_dirs = [&](const std::string& contender) { return OwnDirs(contender); };
  // A counter the contender reports (docs/counters.md) has no row of the threshold table; a
  // missed one is profiled too: extra Ruby objects are extra work in some C function.
  const std::string counter_prefix = fmt::format("{}.", model::kCountersKey);
  std::vector<const spec::Workload*> regressed;
  for (const spec::Workload* w : workloads_) {
    if (std::any_of(verdict.checks.begin(), verdict.checks.end(), [&](const Check& c) {
          return c.workload == w->name && !c.passed &&
                 (gate::ProfileExplains(c) || c.threshold.starts_with(counter_prefix));
        })) {
      regressed.push_back(w);
    }
  }
  Progress* progress = ex_.progress();
  if (progress && !regressed.empty()) {
    // Per workload: each contender's own profile (a plain run), then each one's callgrind profile.
    std::vector<std::string> names;
    for (const spec::Workload* w : regressed) names.push_back(w->name);
    const int runs = static_cast<int>(4 * regressed.size());
    progress->BeginPhase("profiling", runs,
                         fmt::format("where the extra time went in {} ({} runs; a callgrind run takes many times a "
                                     "timed one)",
                                     fmt::join(names, ", "), runs));
  }
  auto step = [&](const spec::Workload& w, const std::string& what) {
    if (progress) progress->StartStep(fmt::format("{}, {}", w.name, what));
  };
  for (const spec::Workload* w : regressed) {
    const spec::Contender* b = spec.FindContender(spec.baseline);
    const spec::Contender* k = spec.FindContender(spec.candidate);
    // The contender's own profile first (a plain run, $PERFENGINE_PROFILE), then callgrind's.
    // A worker's: what its counted batch reported with $PERFENGINE_PROFILE set (a worker of its
    // own for this benchmark), then its counted batch's callgrind dump (worker_counts.h).
    std::string reported_note;
    std::optional<std::vector<measure::ReportedFunction>> base_reported, cand_reported;
    if (w->worker) {
      if (!CountWorkerFiles(*w, *b) || !CountWorkerFiles(*w, *k)) continue;
      step(*w, "the workers' own profiles");
      std::map<std::string, std::optional<std::string>> texts;
      if (!ReportWorkerProfiles(ex_, {b, k}, *w, NextCallgrindDir(), texts)) {
        failed_ = true;
        continue;
      }
      base_reported = ParsedProfile(*b, *w, texts[b->name]);
      cand_reported = ParsedProfile(*k, *w, texts[k->name]);
      if (failed_) continue;
    } else {
      step(*w, fmt::format("{}'s own profile", b->name));
      base_reported = ReportedProfile(*b, *w, reported_note);
      step(*w, fmt::format("{}'s own profile", k->name));
      cand_reported = ReportedProfile(*k, *w, reported_note);
    }
    if (failed_) continue;  // the run has failed (exit 2): no callgrind profile is worth its time now
    // From the files of the contender's instruction count where it ran under callgrind (the
    // same command: the profile it would take again), else from a callgrind run of its own.
    std::vector<std::string> reused;
    auto profile = [&](const spec::Contender& c) {
      const auto files = count_files_.find({w->name, c.name});
      if (files == count_files_.end() && w->worker) {
        // A worker's command runs only with its channel: without its counted batch's dump
        // (it kept no markers, or valgrind is missing) there is nothing to profile.
        measure::ProfileResult none;
        none.note = fmt::format("not profiled: worker '{}' gave no callgrind dump of its counted batch ({})", c.name,
                                WorkerCountNote(*w, c));
        return none;
      }
      step(*w, files == count_files_.end() ? fmt::format("callgrind profile of {}", c.name)
                                           : fmt::format("callgrind profile of {} from its count's files", c.name));
      if (files == count_files_.end()) {
        const ExecutionPaths paths = ex_.PathsFor(c, *w);
        if (!ex_.Prepare(c, *w, paths)) {
          failed_ = true;
          return measure::ProfileResult{};
        }
        measure::ProfileResult run =
            measure::ProfileCommand(ex_.BuildCommand(c, *w, paths), ex_.runner(), own_dirs(c.name));
        if (!ex_.Cleanup(c, *w, paths)) failed_ = true;
        ReleaseExecutionDir(paths.dir);
        return run;
      }
      reused.push_back(
          fmt::format("{}: {} file{}", c.name, files->second.size(), files->second.size() == 1 ? "" : "s"));
      return measure::ProfileCallgrindFiles(files->second, ex_.runner(), own_dirs(c.name));
    };
    const measure::ProfileResult base = profile(*b);
    if (failed_) continue;  // a hook failed (recorded), or the engine was interrupted
    const measure::ProfileResult cand = profile(*k);
    if (failed_) continue;
    WorkloadResult& wr = ex_.ResultFor(*w);
    auto share = [](std::uint64_t cost, std::uint64_t total) {
      return total > 0 ? static_cast<double>(cost) / static_cast<double>(total) : 0.0;
    };
    std::vector<std::string> how;
    // 1. The contender's own functions whose inclusive cost the growth belongs to.
    if (base.note.empty() && cand.note.empty()) {
      for (const measure::InclusiveFinding& f : measure::WhereTheGrowthWent(base.graph, cand.graph, 3)) {
        wr.profile.push_back({f.function.function, f.base_inclusive, f.cand_inclusive,
                              share(f.base_inclusive, base.graph.total), share(f.cand_inclusive, cand.graph.total),
                              "inclusive", f.function.object, measure::FormatThrough(f)});
      }
      how.push_back("callgrind: own functions by inclusive instructions, then self instructions per function");
    }
    if (!reused.empty()) {
      how.push_back(
          fmt::format("callgrind files of the instruction counts, not run again ({})", fmt::join(reused, ", ")));
    }
    // 2. What the contender counted itself.
    if (base_reported && cand_reported) {
      for (const measure::ReportedShift& s : measure::ReportedGrowth(*base_reported, *cand_reported, 8)) {
        model::FunctionShift shift;
        shift.function = s.function;
        shift.baseline_cost = s.base_calls;
        shift.candidate_cost = s.cand_calls;
        shift.basis = "calls";
        if (s.base_cost > 0 || s.cand_cost > 0) {
          shift.detail = fmt::format("reported cost {:g} -> {:g}", s.base_cost, s.cand_cost);
        }
        wr.profile.push_back(std::move(shift));
      }
      how.push_back(fmt::format("calls the contenders counted (${})", measure::kProfileEnv));
    } else if (!reported_note.empty()) {
      how.push_back(reported_note);
    }
    // 3. The detail: self instructions per function.
    for (const measure::FunctionDelta& d : measure::WhereTheTimeWent(base.functions, cand.functions, 8)) {
      // A few instructions in a stub or the loader are not where time went.
      if (d.share_delta < 0.001 && d.cand_share < 0.005) continue;
      wr.profile.push_back({d.function, d.base_cost, d.cand_cost, d.base_share, d.cand_share});
    }
    if (!base.note.empty() || !cand.note.empty()) how.insert(how.begin(), !base.note.empty() ? base.note : cand.note);
    wr.profile_note = fmt::format("{}", fmt::join(how, "; "));
  }
  if (progress && !regressed.empty()) progress->EndPhase();
  return !failed_;
}

}  // namespace pe::run::internal

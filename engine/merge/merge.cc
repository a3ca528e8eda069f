#include "engine/merge/merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/analysis/analyze.h"
#include "engine/analysis/sweeps.h"
#include "engine/base/error.h"
#include "engine/gate/gate.h"
#include "engine/merge/consistency.h"
#include "engine/model/json.h"
#include "engine/run/shard.h"

namespace pe::merge {

using model::ContenderInfo;
using model::Failure;
using model::RunResult;
using model::Settings;
using model::ShardInfo;
using model::SweepResult;
using model::ToJson;
using model::WorkloadResult;

namespace {

[[noreturn]] void Refuse(const std::string& message) { throw base::UsageError(message); }

std::string Short(const std::string& digest) { return digest.substr(0, 12); }

// Settings that change what is measured or how it is judged: every field of Settings, compared
// as the results file writes them, so a field added later is compared too.
std::string SettingsDifference(const Settings& a, const Settings& b) {
  RunResult ra, rb;
  ra.settings = a;
  rb.settings = b;
  const nlohmann::json ja = ToJson(ra)["settings"];
  const nlohmann::json jb = ToJson(rb)["settings"];
  for (const auto& [key, value] : ja.items()) {
    if (!jb.contains(key) || jb[key] != value) {
      return fmt::format("{} {} vs {}", key, value.dump(), jb.contains(key) ? jb[key].dump() : "none");
    }
  }
  return "";
}

std::string ContenderText(const ContenderInfo& c) {
  std::string text = fmt::format("{} = [{}]", c.name, fmt::join(c.argv, ", "));
  if (!c.commit.empty()) text += fmt::format(" built from {} ({})", c.git, Short(c.commit));
  return text;
}

// The one ShardInfo a shard's own results file carries.
const ShardInfo& OwnShard(const ShardFile& f) {
  if (f.result.shards.empty()) {
    Refuse(fmt::format("{} is not a shard's results file: it was not run with --shard K/N", f.path));
  }
  if (f.result.shards.size() > 1) {
    Refuse(
        fmt::format("{} is already a merge of {} shards; merge the shards' own files", f.path, f.result.shards.size()));
  }
  return f.result.shards.front();
}

void CheckSameRun(const ShardFile& first, const ShardFile& f) {
  const RunResult& a = first.result;
  const RunResult& b = f.result;
  const auto refuse = [&](const std::string& what) {
    Refuse(fmt::format("{} and {} are not shards of one run: {}", first.path, f.path, what));
  };
  if (a.spec_digest != b.spec_digest) {
    refuse(fmt::format("different specs ({} sha256 {}, {} sha256 {})", a.spec_path, Short(a.spec_digest), b.spec_path,
                       Short(b.spec_digest)));
  }
  if (a.settings.seed != b.settings.seed) {
    refuse(fmt::format("different seeds ({} vs {})", a.settings.seed, b.settings.seed));
  }
  if (const std::string d = SettingsDifference(a.settings, b.settings); !d.empty()) {
    refuse("different settings: " + d);
  }
  if (a.engine_version != b.engine_version) {
    refuse(fmt::format("different perfengine versions ({} vs {})", a.engine_version, b.engine_version));
  }
  if (a.baseline != b.baseline || a.candidate != b.candidate) {
    refuse(fmt::format("different contenders compared ({} against {} vs {} against {})", a.baseline, a.candidate,
                       b.baseline, b.candidate));
  }
  for (size_t i = 0; i < std::max(a.contenders.size(), b.contenders.size()); ++i) {
    const std::string ta = i < a.contenders.size() ? ContenderText(a.contenders[i]) : "none";
    const std::string tb = i < b.contenders.size() ? ContenderText(b.contenders[i]) : "none";
    if (ta != tb) refuse(fmt::format("different contenders ({} vs {})", ta, tb));
  }
  const ShardInfo& sa = OwnShard(first);
  const ShardInfo& sb = OwnShard(f);
  if (sa.count != sb.count) {
    refuse(fmt::format("shard {} of {} vs shard {} of {}", sa.index, sa.count, sb.index, sb.count));
  }
  if (sa.selection != sb.selection) {
    refuse("different workloads were sharded (were they run with different --workload or --skip-serve?)");
  }
}

// Every index from 1 to count exactly once; returns the files in shard order.
std::vector<const ShardFile*> InShardOrder(const std::vector<ShardFile>& files) {
  const int count = OwnShard(files.front()).count;
  std::map<int, const ShardFile*> by_index;
  for (const ShardFile& f : files) {
    const int index = OwnShard(f).index;
    auto [it, inserted] = by_index.emplace(index, &f);
    if (!inserted)
      Refuse(fmt::format("shard {} of {} is given twice: {} and {}", index, count, it->second->path, f.path));
  }
  std::vector<int> missing;
  for (int i = 1; i <= count; ++i) {
    if (!by_index.count(i)) missing.push_back(i);
  }
  if (!missing.empty()) {
    std::vector<int> have;
    for (const auto& [index, file] : by_index) have.push_back(index);
    Refuse(fmt::format("shard{} {} of {} {} missing (given: {})", missing.size() > 1 ? "s" : "",
                       fmt::join(missing, ", "), count, missing.size() > 1 ? "are" : "is", fmt::join(have, ", ")));
  }
  std::vector<const ShardFile*> ordered;
  for (const auto& [index, file] : by_index) ordered.push_back(file);
  return ordered;
}

// Every failure a shard recorded, the run's own and its workloads'.
std::vector<const Failure*> FailuresOf(const RunResult& r) {
  std::vector<const Failure*> out;
  for (const Failure& f : r.failures) out.push_back(&f);
  for (const WorkloadResult& w : r.workloads) {
    for (const Failure& f : w.failures) out.push_back(&f);
  }
  return out;
}

// A shard whose figures could only pass by trusting what it says of itself is refused. One that
// stopped on a failure (a crash, a timeout) is merged: the failure makes the verdict exit 2 and
// the reports show it. One that stopped without saying why, or was interrupted, is refused, so
// neither merges into a pass (nor into 130, which would say the merge itself was interrupted).
void CheckSound(const ShardFile& f) {
  const RunResult& r = f.result;
  const ShardInfo& shard = OwnShard(f);
  const std::vector<const Failure*> failures = FailuresOf(r);
  const auto interrupted = std::find_if(failures.begin(), failures.end(),
                                        [](const Failure* x) { return x->kind == Failure::Kind::kInterrupted; });
  if (!r.complete && (failures.empty() || interrupted != failures.end())) {
    Refuse(fmt::format("{}: shard {} of {} is incomplete ({}); run it again", f.path, shard.index, shard.count,
                       failures.empty() ? "marked so, with no failure recorded" : gate::FailureLine(**interrupted)));
  }
  if (!failures.empty()) return;  // its verdict is exit 2 whatever its samples hold
  if (const std::string problem = SamplesProblem(r); !problem.empty()) {
    Refuse(fmt::format("{}: shard {} of {} cannot be merged: {}", f.path, shard.index, shard.count, problem));
  }
}

// The shard with every figure computed again from its samples, as `run` computes them
// (engine/analysis/), on its own startup workload; what it stored is never read.
ShardFile Recomputed(const ShardFile& f) {
  ShardFile again = f;
  again.result.verdict = {};
  for (SweepResult& sweep : again.result.sweeps) {
    sweep.fits.clear();
    sweep.efficiencies.clear();
  }
  analysis::Analyze(again.result);
  return again;
}

}  // namespace

RunResult MergeShards(const std::vector<ShardFile>& files) {
  if (files.empty()) Refuse("merge needs at least one results file");
  for (const ShardFile& f : files) CheckSameRun(files.front(), f);
  std::vector<ShardFile> recomputed;
  for (const ShardFile* f : InShardOrder(files)) {
    CheckSound(*f);
    recomputed.push_back(Recomputed(*f));
  }
  std::vector<const ShardFile*> ordered;
  for (const ShardFile& f : recomputed) ordered.push_back(&f);
  const std::vector<std::string>& selection = OwnShard(*ordered.front()).selection;

  // Which file holds each workload, checked against the split `run --shard` made.
  std::map<std::string, const ShardFile*> owner;
  for (const ShardFile* f : ordered) {
    const ShardInfo& shard = OwnShard(*f);
    if (shard.workloads != run::ShardNames(selection, {shard.index, shard.count})) {
      Refuse(fmt::format("{}: shard {} of {} lists workloads [{}], not its share of the selection", f->path,
                         shard.index, shard.count, fmt::join(shard.workloads, ", ")));
    }
    for (const WorkloadResult& w : f->result.workloads) {
      if (w.startup) continue;
      if (std::find(shard.workloads.begin(), shard.workloads.end(), w.name) == shard.workloads.end()) {
        Refuse(fmt::format("{}: workload '{}' is not in shard {} of {}", f->path, w.name, shard.index, shard.count));
      }
      auto [it, inserted] = owner.emplace(w.name, f);
      if (!inserted) {
        Refuse(fmt::format("workload '{}' is in two shards: {} and {}", w.name, it->second->path, f->path));
      }
    }
  }
  for (const std::string& name : selection) {
    if (!owner.count(name)) Refuse(fmt::format("workload '{}' is in none of the shards given", name));
  }

  const RunResult& first = ordered.front()->result;
  RunResult merged;
  merged.engine_version = first.engine_version;
  merged.spec_path = first.spec_path;
  merged.spec_digest = first.spec_digest;
  merged.started_at = first.started_at;
  merged.machine = first.machine;
  merged.settings = first.settings;
  merged.baseline = first.baseline;
  merged.candidate = first.candidate;
  merged.contenders = first.contenders;
  merged.complete = true;
  for (const ShardFile* f : ordered) {
    const RunResult& r = f->result;
    const ShardInfo& shard = OwnShard(*f);
    merged.started_at = std::min(merged.started_at, r.started_at);  // ISO 8601 in UTC sorts as text
    merged.complete = merged.complete && r.complete;
    merged.shards.push_back(shard);
    const std::string where = fmt::format("(shard {} of {}) ", shard.index, shard.count);
    for (Failure failure : r.failures) {
      failure.message = where + failure.message;
      merged.failures.push_back(std::move(failure));
    }
    for (const WorkloadResult& w : r.workloads) {
      if (!w.startup) continue;
      if (f == ordered.front()) {
        merged.workloads.push_back(w);
      } else {
        for (Failure failure : w.failures) {
          failure.message = where + failure.message;
          merged.failures.push_back(std::move(failure));
        }
      }
    }
  }
  for (const std::string& name : selection) {
    for (const WorkloadResult& w : owner.at(name)->result.workloads) {
      if (w.name == name) merged.workloads.push_back(w);
    }
  }
  // Sweeps in the order of their first point, each fitted again over all its points.
  for (const WorkloadResult& w : merged.workloads) {
    if (w.sweep.empty() || std::any_of(merged.sweeps.begin(), merged.sweeps.end(),
                                       [&](const SweepResult& s) { return s.name == w.sweep; })) {
      continue;
    }
    for (const SweepResult& s : owner.at(w.name)->result.sweeps) {
      if (s.name != w.sweep) continue;
      SweepResult sweep = s;
      sweep.fits.clear();
      sweep.efficiencies.clear();
      merged.sweeps.push_back(std::move(sweep));
    }
  }
  analysis::AnalyzeSweeps(merged);
  merged.verdict = gate::Judge(merged);
  return merged;
}

}  // namespace pe::merge

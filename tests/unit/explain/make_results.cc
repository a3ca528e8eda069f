// Writes the crafted results files under tests/data/results/ that the explain and compare
// tests read: small runs of one made-up spec whose figures are chosen so each file shows
// one thing (a pass, a missed threshold, a crash, a regression against another file).
// The samples are fixed numbers; the comparison and verdict come from engine/analysis and
// engine/gate exactly as `perfengine run` fills them.
//
//   make_explain_results DIR   (writes DIR/*.json; rerun when the analysis changes)
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "engine/analysis/analyze.h"
#include "engine/gate/gate.h"
#include "engine/model/atomic_file.h"
#include "engine/model/json.h"

namespace pe::explain {

using model::RunResult;
using model::Sample;
using model::Thresholds;
using model::ToJsonText;
using model::WorkloadResult;
using model::WriteFileAtomically;
namespace {

constexpr const char* kDigest = "5f1c0a6e3b9d27c48e1f06a2d4b8c3e7f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4";
constexpr int kRounds = 10;

// Relative deviations from a contender's typical time, one per round (warm-up first);
// `shift` rotates them so two files do not hold the same numbers.
constexpr std::array<double, kRounds + 1> kNoise = {0.09,   0.010, -0.020, 0.015,  -0.005, 0.020,
                                                    -0.010, 0.0,   0.012,  -0.015, 0.008};

double Noisy(double typical, int round, int shift) {
  if (round == 0) return typical * (1 + kNoise[0]);
  return typical * (1 + kNoise[1 + (round - 1 + shift) % kRounds]);
}

struct Times {
  double original;
  double rewrite;
};

// One workload's samples: a warm-up and kRounds rounds, alternate order, original first in
// even rounds. `outlier_round` multiplies the original's time in that round by 1.5.
void AddRounds(WorkloadResult& w, Times t, int shift, std::int64_t original_rss, std::int64_t rewrite_rss,
               int outlier_round = -1, int last_round = kRounds) {
  for (int round = 0; round <= last_round; ++round) {
    Sample original{"original", round, round == 0, false, round % 2 == 0 ? 0 : 1, Noisy(t.original, round, shift)};
    if (round == outlier_round) original.wall_s *= 1.5;
    Sample rewrite{"rewrite", round, round == 0, false, round % 2 == 0 ? 1 : 0, Noisy(t.rewrite, round, shift + 3)};
    for (Sample* s : {&original, &rewrite}) {
      s->user_s = s->wall_s * 0.8;
      s->sys_s = s->wall_s * 0.1;
    }
    original.max_rss_kib = original_rss;
    rewrite.max_rss_kib = rewrite_rss;
    if (original.position == 0) {
      w.samples.push_back(original);
      w.samples.push_back(rewrite);
    } else {
      w.samples.push_back(rewrite);
      w.samples.push_back(original);
    }
  }
}

struct Variant {
  double work_rewrite_s;
  double tiny_rewrite_s;  // start-up bound either way: its startup run takes 2 ms
  std::int64_t work_rewrite_rss;
  int shift;
  const char* started_at;
};

RunResult Make(const Variant& v) {
  RunResult r;
  r.engine_version = "0.1.0";
  r.spec_path = "specs/demo.toml";
  r.spec_digest = kDigest;
  r.started_at = v.started_at;
  r.machine = {"ci-runner-7", "Linux 6.1.0", "Example CPU @ 3.00GHz", 4, 16777216};
  r.settings.rounds = kRounds;
  r.settings.warmup_rounds = 1;
  r.settings.seed = 42;
  r.settings.bootstrap_resamples = 2000;
  r.baseline = "original";
  r.candidate = "rewrite";
  r.contenders = {{"original", "the original tool", {"original", "diff"}, {"original", "--version"}},
                  {"rewrite", "the rewrite", {"rewrite", "diff"}, {"rewrite", "--version"}}};
  r.complete = true;

  Thresholds gated;
  gated.min_speedup = 2.0;
  gated.min_win_rate = 0.5;
  gated.min_logic_speedup = 2.0;
  gated.max_rss_ratio = 1.5;
  gated.min_speedup_ci = 1.8;
  gated.max_slowdown = 1.0;

  WorkloadResult startup{"startup", "each contender's startup command", false, true, gated};
  AddRounds(startup, {0.040, 0.002}, v.shift, 8000, 3000);
  WorkloadResult work{"work", "diff two large graphs", true, false, gated};
  AddRounds(work, {0.500, v.work_rewrite_s}, v.shift, 120000, v.work_rewrite_rss, 7);
  Thresholds tiny_thresholds;
  tiny_thresholds.min_speedup = 1.0;
  tiny_thresholds.min_logic_speedup = 2.0;
  WorkloadResult tiny{"tiny", "diff two one-target graphs: start-up dominates", true, false, tiny_thresholds};
  AddRounds(tiny, {0.042, v.tiny_rewrite_s}, 0, 9000, 3100);
  WorkloadResult cold{"cold", "first run after dropping caches", false, false, gated};
  AddRounds(cold, {0.800, 4 * v.work_rewrite_s}, v.shift + 5, 130000, v.work_rewrite_rss);
  r.workloads = {startup, work, tiny, cold};
  return r;
}

void Finish(RunResult& r, const std::filesystem::path& path) {
  analysis::Analyze(r);
  r.verdict = gate::Judge(r);
  WriteFileAtomically(path, ToJsonText(r));
  std::printf("%s: exit %d\n", path.c_str(), static_cast<int>(r.verdict.exit));
}

}  // namespace
}  // namespace pe::explain

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_explain_results DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  using pe::explain::Make;
  using pe::explain::Variant;
  // The rewrite at 100 ms against the original's 500 ms: every threshold met.
  pe::model::RunResult pass = Make(Variant{0.100, 0.00205, 40000, 0, "2024-05-01T12:00:00Z"});
  pe::explain::Finish(pass, dir / "pass.json");
  // A later run of the same spec, the rewrite twice as fast again: compare pass.json with it passes.
  pe::model::RunResult improved = Make(Variant{0.045, 0.00204, 41000, 4, "2024-05-08T12:00:00Z"});
  pe::explain::Finish(improved, dir / "improved.json");
  // Still well ahead of the original, but slower and bigger than in pass.json.
  pe::model::RunResult regressed = Make(Variant{0.150, 0.00205, 70000, 2, "2024-05-15T12:00:00Z"});
  pe::explain::Finish(regressed, dir / "regressed.json");
  // The rewrite at 300 ms: median speedup 1.67x misses min_speedup 2.0.
  pe::model::RunResult missed = Make(Variant{0.300, 0.00205, 40000, 1, "2024-05-22T12:00:00Z"});
  pe::explain::Finish(missed, dir / "missed.json");
  // The same figures as improved.json, from another spec.
  pe::model::RunResult other = Make(Variant{0.045, 0.00204, 41000, 4, "2024-05-08T12:00:00Z"});
  other.spec_path = "specs/other.toml";
  other.spec_digest = "0d3e9b7a1c5f48e2a6b0c4d8e2f6a0b4c8d2e6f0a4b8c2d6e0f4a8b2c6d0e4f8";
  pe::explain::Finish(other, dir / "other_spec.json");
  // The rewrite crashed in round 3 of `work`.
  pe::model::RunResult failed = Make(Variant{0.100, 0.00205, 40000, 0, "2024-05-29T12:00:00Z"});
  pe::model::WorkloadResult& work = failed.workloads[1];
  work.samples.clear();
  pe::explain::AddRounds(work, {0.500, 0.100}, 0, 120000, 40000, -1, 2);
  work.failures.push_back({pe::model::Failure::Kind::kSignal, "work", "rewrite",
                           "was killed by signal 11 (Segmentation fault) in round 3",
                           "thread 'main' panicked at src/graph.rs:88:5:\nindex out of bounds"});
  pe::explain::Finish(failed, dir / "failed.json");
  return 0;
}

// The streamed_proto pipeline (issue 27): the graph's deps drawn on one thread while the stream
// writer encodes the packages already wired. It must give the graph BuildGraph gives and the
// bytes WriteQueryProto writes of it, whatever the threads' timing; a failure on either side
// must end both threads and surface.
#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "build.pb.h"
#include "generators/bazel_graph.h"
#include "generators/query_proto.h"
#include "generators/wiring_progress.h"
#include "test_util.h"

namespace pe::gen {
namespace {

using testing::ScratchDir;

GraphOptions GraphPipelineOptions(std::int64_t targets, std::int64_t fan_in, const std::string& shape) {
  const Params params = {{"targets", targets}, {"fan_in", fan_in}, {"shape", shape}};
  ParamReader reader("test", params);
  return ReadGraphOptions(reader, 1);
}

void ExpectSameGraph(const BazelGraph& a, const BazelGraph& b) {
  EXPECT_EQ(a.externals, b.externals);
  EXPECT_EQ(a.deps, b.deps);
  ASSERT_EQ(a.packages.size(), b.packages.size());
  for (std::size_t p = 0; p < a.packages.size(); ++p) {
    EXPECT_EQ(a.packages[p].name, b.packages[p].name);
    EXPECT_EQ(a.packages[p].first_rule, b.packages[p].first_rule);
    EXPECT_EQ(a.packages[p].rule_count, b.packages[p].rule_count);
  }
  ASSERT_EQ(a.rules.size(), b.rules.size());
  for (std::size_t r = 0; r < a.rules.size(); ++r) {
    const RuleNode& x = a.rules[r];
    const RuleNode& y = b.rules[r];
    EXPECT_EQ(x.kind, y.kind) << r;
    EXPECT_EQ(x.dep_begin, y.dep_begin) << r;
    EXPECT_EQ(x.dep_count, y.dep_count) << r;
    EXPECT_EQ(x.external_deps, y.external_deps) << r;
    EXPECT_EQ(x.select, y.select) << r;
    EXPECT_EQ(x.select_key, y.select_key) << r;
    EXPECT_EQ(x.macro, y.macro) << r;
    EXPECT_EQ(x.flag, y.flag) << r;
    EXPECT_EQ(x.srcs.size(), y.srcs.size()) << r;
  }
}

// Many blocks of 512 rules, so encoders wait on the wiring; calibrated deps outgrow the first
// guess of their size, so the deps vector moves while blocks are being encoded.
std::size_t ExpectPipelineMatches(const GraphOptions& options, StreamShape shape) {
  ScratchDir dir;
  const BazelGraph built = BuildGraph(options, 3);
  WriteQueryProto(built, dir.path() / "serial.pb", shape);
  const BazelGraph piped = BuildAndWriteQueryProto(options, 3, dir.path() / "piped.pb", shape);
  ExpectSameGraph(built, piped);
  EXPECT_EQ(ReadFile(dir.path() / "piped.pb"), ReadFile(dir.path() / "serial.pb"));
  return built.rules.size();
}

TEST(GraphPipeline, UniformGraphAndBytesAreBuildGraphsAndWriteQueryProtos) {
  EXPECT_GT(ExpectPipelineMatches(GraphPipelineOptions(40000, 12, "uniform"), StreamShape::kWorkspace), 8u * 512);
}

TEST(GraphPipeline, CalibratedGraphAndBytesAreBuildGraphsAndWriteQueryProtos) {
  EXPECT_GT(ExpectPipelineMatches(GraphPipelineOptions(40000, 12, "calibrated"), StreamShape::kWorkspace), 8u * 512);
}

TEST(GraphPipeline, CalibratedBzlmodBytesAreWriteQueryProtos) {
  EXPECT_GT(ExpectPipelineMatches(GraphPipelineOptions(40000, 4, "calibrated"), StreamShape::kBzlmod), 8u * 512);
}

TEST(GraphPipeline, ASmallGraphIsWrittenTheSameWithoutAThread) {
  EXPECT_LT(ExpectPipelineMatches(GraphPipelineOptions(2000, 4, "uniform"), StreamShape::kWorkspace),
            512u);  // one block
}

// /dev/full takes the open and fails the first write (ENOSPC): the wiring thread is stopped
// and joined, and the write's error is what comes out.
TEST(GraphPipeline, AWriteFailureStopsTheWiringAndSurfaces) {
  try {
    BuildAndWriteQueryProto(GraphPipelineOptions(40000, 12, "calibrated"), 3, "/dev/full");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write /dev/full: No space left on device");
  }
}

// Every rule's "//" inputs in label order, read back with the generated protobuf classes: the
// writer sorts deps by precomputed keys, not by their labels.
void ExpectRuleInputsSorted(const BazelGraph& graph) {
  ScratchDir dir;
  WriteQueryProto(graph, dir.path() / "q.pb");
  const std::string data = ReadFile(dir.path() / "q.pb");
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(data.data()),
                                            static_cast<int>(data.size()));
  in.SetTotalBytesLimit(static_cast<int>(data.size()) + 1);
  std::uint32_t size = 0;
  std::size_t rules = 0, many = 0;
  while (in.ReadVarint32(&size)) {
    const auto limit = in.PushLimit(static_cast<int>(size));
    blaze_query::Target target;
    ASSERT_TRUE(target.ParseFromCodedStream(&in));
    in.PopLimit(limit);
    if (!target.has_rule() || target.rule().name().starts_with("//external:")) continue;
    std::vector<std::string> inputs;
    for (const std::string& input : target.rule().rule_input()) {
      if (input.starts_with("//")) inputs.push_back(input);
    }
    EXPECT_TRUE(std::is_sorted(inputs.begin(), inputs.end())) << target.rule().name();
    ++rules;
    many += inputs.size() > 6 ? 1 : 0;  // fan_in 6 and three srcs
  }
  EXPECT_EQ(rules, graph.rules.size());
  EXPECT_GT(many, 0u);
}

// Twelve rules a package: mod10 and mod11 sort before mod2, across packages and within one.
TEST(GraphPipeline, RuleInputsAreInLabelOrder) {
  GraphOptions options = GraphPipelineOptions(6000, 6, "uniform");
  options.rules_per_package = 12;
  options.layers = 3;
  ExpectRuleInputsSorted(BuildGraph(options, 5));
}

// Package names of two lengths that do not rise with the index: the keys come from sorting the
// labels themselves.
TEST(GraphPipeline, RuleInputsAreInLabelOrderWhateverThePackageNames) {
  GraphOptions options = GraphPipelineOptions(6000, 6, "uniform");
  options.rules_per_package = 12;
  options.layers = 3;
  BazelGraph graph = BuildGraph(options, 5);
  for (std::size_t p = 0; p < graph.packages.size(); ++p) {
    graph.packages[p].name = "z/" + std::to_string(graph.packages.size() - p) + (p % 3 == 0 ? "/q" : "");
  }
  ExpectRuleInputsSorted(graph);
}

TEST(WiringProgress, AwaitReturnsOnceTheRulesAreReported) {
  WiringProgress progress;
  std::uint32_t seen = 0;
  std::thread reader([&] {
    const auto lock = progress.Await(300);
    seen = 300;
  });
  EXPECT_TRUE(progress.Report(100));
  EXPECT_TRUE(progress.Report(300));
  reader.join();
  EXPECT_EQ(seen, 300u);
  EXPECT_TRUE(progress.Await(200).owns_lock());  // already there: no wait
}

TEST(WiringProgress, AwaitThrowsWhenTheWiringEndsShortOfTheRules) {
  WiringProgress progress;
  progress.Report(100);
  progress.Finish();
  EXPECT_TRUE(progress.Await(100).owns_lock());
  EXPECT_THROW(progress.Await(101), WiringStopped);
}

TEST(WiringProgress, ACancelStopsTheBuilderAndWakesReaders) {
  WiringProgress progress;
  EXPECT_TRUE(progress.Report(1));
  std::thread reader([&] { EXPECT_THROW(progress.Await(1000), WiringStopped); });
  progress.Cancel();
  reader.join();
  EXPECT_FALSE(progress.Report(2));
}

// The builder's exclusive lock waits for a reader's shared one.
TEST(WiringProgress, TheDepsMoveOnlyWhenNoReaderHoldsThem) {
  WiringProgress progress;
  progress.Report(10);
  auto reading = progress.Await(10);
  bool moved = false;
  std::thread builder([&] {
    const auto lock = progress.Exclusive();
    moved = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(moved);  // cannot be true while `reading` is held, however the threads run
  reading.unlock();
  builder.join();
  EXPECT_TRUE(moved);
}

}  // namespace
}  // namespace pe::gen

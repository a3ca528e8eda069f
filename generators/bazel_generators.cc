// The generators of a bazel workspace fixture: the query stream, the files on disk, the shim,
// and bazel_workspace, which writes all three from one graph so they agree.
#include <filesystem>

#include "generators/bazel_graph.h"
#include "generators/bazel_shim_install.h"
#include "generators/builtin_generators.h"
#include "generators/bzlmod_fixture.h"
#include "generators/file_io.h"
#include "generators/query_proto.h"
#include "generators/source_tree.h"

namespace pe::gen {
namespace {

class StreamedProtoGenerator : public Generator {
 public:
  std::string_view Name() const override { return "streamed_proto"; }
  std::string_view Description() const override {
    return "query.pb: a layered target graph as `bazel query --output=streamed_proto`";
  }
  // 2: what real Bazel 4.2.3 prints (bazel_4_2_3.h); 3: with stream = "bzlmod", a rule naming the
  // fixture's repositories lists its inputs in Bazel 8's order (docs/generators.md)
  int Version() const override { return 3; }
  void Check(const Params& params) const override { Read(params, 1); }
  void Generate(const Params& params, const Context& ctx) const override {
    StreamShape shape = StreamShape::kWorkspace;
    BuildAndWriteQueryProto(Read(params, ctx.scale, shape), ctx.seed, ctx.out_dir / "query.pb", shape);
  }

 private:
  GraphOptions Read(const Params& params, double scale) const {
    StreamShape shape = StreamShape::kWorkspace;
    return Read(params, scale, shape);
  }
  GraphOptions Read(const Params& params, double scale, StreamShape& shape) const {
    ParamReader reader(Name(), params);
    GraphOptions options = ReadGraphOptions(reader, scale);
    shape = ReadStreamShape(reader);
    reader.Finish();
    return options;
  }
};

class WorkspaceGenerator : public Generator {
 public:
  std::string_view Name() const override { return "workspace"; }
  std::string_view Description() const override {
    return "workspace/: the BUILD, .bzl and source files of the streamed_proto graph";
  }
  int Version() const override { return 2; }  // 2: what real Bazel 4.2.3 prints (bazel_4_2_3.h)
  void Check(const Params& params) const override {
    GraphOptions graph;
    SourceTreeOptions tree;
    Read(params, 1, graph, tree);
  }
  void Generate(const Params& params, const Context& ctx) const override {
    GraphOptions graph;
    SourceTreeOptions tree;
    Read(params, ctx.scale, graph, tree);
    WriteSourceTree(BuildGraph(graph, ctx.seed), tree, ctx.out_dir / "workspace");
  }

 private:
  void Read(const Params& params, double scale, GraphOptions& graph, SourceTreeOptions& tree) const {
    ParamReader reader(Name(), params);
    graph = ReadGraphOptions(reader, scale);
    tree = ReadSourceTreeOptions(reader, graph.shape.source_bytes);
    reader.Finish();
  }
};

class BazelShimGenerator : public Generator {
 public:
  std::string_view Name() const override { return "bazel_shim"; }
  std::string_view Description() const override {
    return "bazel: the replay shim with its shim.json (replays an empty query.pb)";
  }
  int Version() const override { return 2; }  // 2: what real Bazel 4.2.3 prints (bazel_4_2_3.h)
  void Check(const Params& params) const override { Read(params); }
  void Generate(const Params& params, const Context& ctx) const override {
    InstallShim(ctx.out_dir, Read(params));
    WriteFile(ctx.out_dir / "query.pb", "");
  }
  std::string KeyExtra() const override { return ShimKeyExtra(); }

 private:
  ShimOptions Read(const Params& params) const {
    ParamReader reader(Name(), params);
    ShimOptions options = ReadShimOptions(reader);
    reader.Finish();
    return options;
  }
};

class BazelWorkspaceGenerator : public Generator {
 public:
  std::string_view Name() const override { return "bazel_workspace"; }
  std::string_view Description() const override {
    return "streamed_proto + workspace + bazel_shim in one fixture, consistent with each other";
  }
  // 2: what real Bazel 4.2.3 prints (bazel_4_2_3.h); 3: with stream = "bzlmod", a rule naming the
  // fixture's repositories lists its inputs in Bazel 8's order (docs/generators.md)
  int Version() const override { return 3; }
  void Check(const Params& params) const override { Read(params, 1); }
  void Generate(const Params& params, const Context& ctx) const override {
    Options options = Read(params, ctx.scale);
    const BazelGraph graph = BuildAndWriteQueryProto(options.graph, ctx.seed, ctx.out_dir / "query.pb", options.shape);
    WriteSourceTree(graph, options.tree, ctx.out_dir / "workspace");
    if (options.shape == StreamShape::kBzlmod) {
      // What Bazel 8.6 answers besides the query (bzlmod_fixture.h).
      WriteFile(ctx.out_dir / "workspace" / "MODULE.bazel", RenderModuleFile(graph));
      WriteRepositories(graph, ctx.out_dir / "repos.pb");
      options.shim.repo_mapping = RootRepoMapping(graph);
    }
    InstallShim(ctx.out_dir, options.shim);
  }
  std::string KeyExtra() const override { return ShimKeyExtra(); }

 private:
  struct Options {
    GraphOptions graph;
    SourceTreeOptions tree;
    ShimOptions shim;
    StreamShape shape = StreamShape::kWorkspace;
  };
  Options Read(const Params& params, double scale) const {
    ParamReader reader(Name(), params);
    Options options;
    options.graph = ReadGraphOptions(reader, scale);
    options.tree = ReadSourceTreeOptions(reader, options.graph.shape.source_bytes);
    options.shape = ReadStreamShape(reader);
    options.shim = ReadShimOptionsFor(reader, options.shape);
    reader.Finish();
    return options;
  }
};

}  // namespace

std::unique_ptr<Generator> MakeStreamedProtoGenerator() { return std::make_unique<StreamedProtoGenerator>(); }
std::unique_ptr<Generator> MakeWorkspaceGenerator() { return std::make_unique<WorkspaceGenerator>(); }
std::unique_ptr<Generator> MakeBazelShimGenerator() { return std::make_unique<BazelShimGenerator>(); }
std::unique_ptr<Generator> MakeBazelWorkspaceGenerator() { return std::make_unique<BazelWorkspaceGenerator>(); }

}  // namespace pe::gen

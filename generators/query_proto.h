// Writes a BazelGraph as `bazel query --output=streamed_proto --proto:instantiation_stack`
// would: a stream of varint-length-delimited blaze_query.Target messages, externals first,
// then each package's targets sorted by name.
#pragma once

#include <filesystem>

#include "generators/bazel_graph.h"
#include "generators/bzlmod_fixture.h"
#include "generators/file_io.h"

namespace pe::gen {

// `shape` kBzlmod: Bazel 8's answer for the same graph (generators/bzlmod_fixture.h): no
// //external package, other repositories' labels in display form.
void WriteQueryProto(const BazelGraph& graph, OutputFile& out, StreamShape shape = StreamShape::kWorkspace);
void WriteQueryProto(const BazelGraph& graph, const std::filesystem::path& path,
                     StreamShape shape = StreamShape::kWorkspace);

// BuildGraph(options, seed) and WriteQueryProto of it to path, the same bytes, in a pipeline: the
// rules' deps are drawn on a thread of its own (GraphBuilder::Wire) while the writer makes the
// labels, writes the head and encodes each block of packages once its rules are wired. Returns
// the graph.
BazelGraph BuildAndWriteQueryProto(const GraphOptions& options, std::uint64_t seed, const std::filesystem::path& path,
                                   StreamShape shape = StreamShape::kWorkspace);

}  // namespace pe::gen

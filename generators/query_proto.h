// Writes a BazelGraph as `bazel query --output=streamed_proto --proto:instantiation_stack`
// would: a stream of varint-length-delimited blaze_query.Target messages, externals first,
// then each package's targets sorted by name.
#pragma once

#include <filesystem>

#include "generators/bazel_graph.h"
#include "generators/file_io.h"

namespace pe::gen {

void WriteQueryProto(const BazelGraph& graph, OutputFile& out);
void WriteQueryProto(const BazelGraph& graph, const std::filesystem::path& path);

}  // namespace pe::gen

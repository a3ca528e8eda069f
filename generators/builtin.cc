#include "generators/builtin_generators.h"

namespace pe::gen {

const Registry& BuiltinRegistry() {
  static const Registry registry = [] {
    Registry r;
    r.Add("streamed_proto", MakeStreamedProtoGenerator);
    r.Add("workspace", MakeWorkspaceGenerator);
    r.Add("bazel_shim", MakeBazelShimGenerator);
    r.Add("bazel_workspace", MakeBazelWorkspaceGenerator);
    r.Add("hash_pair", MakeHashPairGenerator);
    r.Add("git_workspace", MakeGitWorkspaceGenerator);
    r.Add("random_bytes", MakeRandomBytesGenerator);
    r.Add("text_lines", MakeTextLinesGenerator);
    r.Add("json_docs", MakeJsonDocsGenerator);
    return r;
  }();
  return registry;
}

}  // namespace pe::gen

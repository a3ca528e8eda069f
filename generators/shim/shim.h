// perfengine-bazel-shim: a stand-in for `bazel` that answers the calls bazel-diff makes by
// replaying a fixture. It reads shim.json from its own directory (/proc/self/exe), so the
// fixture directory can be moved or cached anywhere.
//
//   bazel [startup options] info output_base      one line: the absolute output base
//   bazel [startup options] version               "Build label: X.Y.Z" and friends
//   bazel [startup options] mod graph [--output=json]  exit 0 with a graph (text or JSON) if
//                                                 bzlmod, else exit 2; before 6.3.0 there is
//                                                 no `mod` command (exit 2)
//   bazel [startup options] mod dump_repo_mapping ""   the root module's repository mapping as
//                                                 one JSON line (from 7.1.0; bzlmod only)
//   bazel [startup options] mod show_repo @@<canonical>... --output=streamed_proto
//                                                 the fixture's blaze_query.Repository messages
//                                                 for those repositories, in argument order (from
//                                                 8.6.0 and 9.0.1; bzlmod only)
//   bazel [startup options] query ... --output streamed_proto ... [--query_file F]
//         [--output_file O | --output_file=O]     the recorded stream, to O or stdout;
//                                                 --output_file is refused ("Unrecognized
//                                                 option") when bazel_version is before 8.2.0;
//                                                 naming //external fails (exit 7) on a bzlmod
//                                                 fixture from 8.0.0 on (WORKSPACE off)
//
// Any other call exits 2 with a message naming it.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace pe::shim {

inline constexpr int kUnsupported = 2;

struct Config {
  std::filesystem::path output_base;  // absolute
  std::string bazel_version = "4.2.3";  // the Bazel the recorded stream comes from
  bool bzlmod = false;
  std::filesystem::path query_proto;  // absolute
  // When set, the stream is replayed from this path under the workspace root found above the
  // working directory (the way bazel finds its workspace), so a checkout picks its revision.
  std::filesystem::path workspace_query_proto;
  // `mod dump_repo_mapping ""`'s answer, apparent -> canonical in its order; empty: the root
  // module alone (itself and bazel_tools).
  std::vector<std::pair<std::string, std::string>> repo_mapping;
  // `mod show_repo`'s recording: varint-delimited blaze_query.Repository messages (absolute;
  // empty: the fixture has no repository to show).
  std::filesystem::path repos_proto;
};

// `bazel mod dump_repo_mapping` exists from 7.1.0 on.
bool HasDumpRepoMapping(const std::string& bazel_version);

// `bazel mod show_repo --output=streamed_proto` exists from 8.6.0 on, except in 9.0.0 (it landed
// in 9.0.1), the versions upstream bazel-diff 37 checks (BazelQueryService.kt:95-102).
bool HasShowRepoProto(const std::string& bazel_version);

// Whether `query --output_file` exists in this Bazel version: from 8.2.0 (the version upstream
// bazel-diff starts passing it at); a label that is not X.Y.Z counts as newer.
bool QueryHasOutputFile(const std::string& bazel_version);

// Whether `bazel_version` is at least `first` ({8, 2, 0}); a label that is not X.Y.Z counts as
// newer than any release.
bool VersionAtLeast(const std::string& bazel_version, const std::vector<int>& first);

// `bazel mod` exists from Bazel 6.3.0 on; 4.2.3 answers "Command 'mod' not found".
bool HasModCommand(const std::string& bazel_version);

// //external exists unless the workspace is bzlmod-only: Bazel 8 turns WORKSPACE off by default
// (--noenable_workspace), so a bzlmod fixture on 8.0.0 or later has no //external package and a
// query naming it fails with exit 7, as upstream bazel-diff 37 expects and retries.
bool ExternalPackageAvailable(const Config& config);

// Reads dir/shim.json; relative paths in it are relative to dir. Throws std::runtime_error.
Config LoadConfig(const std::filesystem::path& dir);

// args excludes argv[0]. Writes answers to fd 1 and errors to fd 2; returns the exit code.
int Run(const Config& config, const std::vector<std::string>& args);

}  // namespace pe::shim

// The Bazel fixtures' bytes pinned at sizes and shapes the small pins do not reach: the dense
// fan-in, the calibrated shape (every rule class, select(), external repositories, log-normal
// sizes) and the bzlmod stream. The digests are those main's writers produced before the writers
// were made faster (issue 27), so a faster writer that changes one byte fails here.
#include <gtest/gtest.h>

#include "generators/sha256.h"
#include "test_util.h"

namespace pe::gen {
namespace {

using testing::Generate;
using testing::ScratchDir;
using testing::TreeDigest;

std::string StreamDigest(const Params& params) {
  ScratchDir dir;
  Generate("streamed_proto", params, dir.path() / "f", 7);
  return Sha256FileHex(dir.path() / "f" / "query.pb");
}

TEST(GeneratorBytes, UniformDenseStreamIsPinned) {
  EXPECT_EQ(StreamDigest({{"targets", std::int64_t{20000}}, {"fan_in", std::int64_t{12}}}),
            "5646df2871b82f03be7451f7b81f89b17b9c20653ddbd4e9126453a8a1439c9e");
}

TEST(GeneratorBytes, CalibratedStreamIsPinned) {
  EXPECT_EQ(StreamDigest(
                {{"targets", std::int64_t{20000}}, {"fan_in", std::int64_t{12}}, {"shape", std::string("calibrated")}}),
            "13e644d932a0de339763ad2f6c2023644d07df9d7323243e949a5c6460259e4d");
}

TEST(GeneratorBytes, CalibratedBzlmodStreamIsPinned) {
  EXPECT_EQ(StreamDigest({{"targets", std::int64_t{6000}},
                          {"fan_in", std::int64_t{4}},
                          {"shape", std::string("calibrated")},
                          {"stream", std::string("bzlmod")}}),
            "0ef4d1cfaed660cc5dbb5a4316d92cb590b5f6d4cbc8dce745c1def999e2bf02");
}

TEST(GeneratorBytes, CalibratedWorkspaceIsPinned) {
  ScratchDir dir;
  const auto fixture =
      Generate("bazel_workspace",
               {{"targets", std::int64_t{3000}}, {"fan_in", std::int64_t{4}}, {"shape", std::string("calibrated")}},
               dir.path() / "f", 7);
  EXPECT_EQ(TreeDigest(fixture / "workspace"), "7c75606a65c24c4506b96dd926a0062adea7f76bd072fd9ed25d671d27363dd1");
  EXPECT_EQ(Sha256FileHex(fixture / "query.pb"), "09ca472733c5b86d00fad7ef2a233c28cadee3067c6181620651a4bc141f099e");
}

}  // namespace
}  // namespace pe::gen

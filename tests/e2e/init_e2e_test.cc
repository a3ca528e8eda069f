// `perfengine init` at the edges of its input: what already sits at --out (a link, even a
// dangling one), and command text a TOML spec cannot hold as it is (DEL, bytes that are not UTF-8).
#include <gtest/gtest.h>

#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

const std::string kInitStub = STUB_CONTENDER;

std::string Refused(const fs::path& out) {
  return "perfengine: init: " + out.string() + " exists; pass --force to replace it, or --out to write elsewhere\n";
}

// A dangling link at --out is something there: init must not create the file it points to.
TEST(InitE2E, ADanglingSymlinkAtOutIsRefusedWithoutForce) {
  TempDir dir;
  const fs::path out = dir.path() / "spec.toml";
  const fs::path target = dir.path() / "elsewhere" / "planted.toml";
  fs::create_directories(target.parent_path());
  fs::create_symlink(target, out);
  const Finished f = RunPerfengine({"init", "true", "true", "--out", out.string()}, dir.path());
  EXPECT_EQ(f.exit, 2) << f.out;
  EXPECT_EQ(f.err, Refused(out));
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(fs::is_symlink(out));
}

// --force replaces the link itself, never the file it points to, dangling or not.
TEST(InitE2E, ForceReplacesTheLinkNotItsTarget) {
  TempDir dir;
  const fs::path kept = dir.path() / "kept.toml";
  std::ofstream(kept) << "keep me\n";
  const fs::path dangling_target = dir.path() / "planted.toml";
  for (const fs::path& target : {kept, dangling_target}) {
    const fs::path out = dir.path() / "spec.toml";
    fs::remove(out);
    fs::create_symlink(target, out);
    const Finished f = RunPerfengine({"init", "true", "true", "--out", out.string(), "--force"}, dir.path());
    EXPECT_EQ(f.exit, 0) << f.out << f.err;
    EXPECT_FALSE(fs::is_symlink(out)) << target;
    EXPECT_NE(ReadAll(out).find("[contenders.baseline]"), std::string::npos);
  }
  EXPECT_EQ(ReadAll(kept), "keep me\n");
  EXPECT_FALSE(fs::exists(dangling_target));
}

// Bytes that are not UTF-8 cannot be written into a TOML spec: the argument is named, rather
// than a line of the spec that was never written.
TEST(InitE2E, ACommandThatIsNotUtf8IsNamedAndNothingIsWritten) {
  TempDir dir;
  const fs::path out = dir.path() / "s.toml";
  const Finished a = RunPerfengine({"init", "echo caf\xc3", "true", "--out", out.string()}, dir.path());
  EXPECT_EQ(a.exit, 2) << a.out;
  EXPECT_EQ(a.err,
            "perfengine: init: CMD A, the baseline's command, is not UTF-8 text (byte 0xc3 at offset 8): a spec "
            "holds UTF-8 only\n");
  const Finished b = RunPerfengine({"init", "true", "echo \xff", "--out", out.string()}, dir.path());
  EXPECT_EQ(b.exit, 2) << b.out;
  EXPECT_EQ(b.err,
            "perfengine: init: CMD B, the candidate's command, is not UTF-8 text (byte 0xff at offset 5): a spec "
            "holds UTF-8 only\n");
  EXPECT_FALSE(fs::exists(out));
}

// DEL is a character TOML holds only escaped; init escapes it, and the spec validates.
TEST(InitE2E, ADelInAnArgumentIsWrittenEscaped) {
  TempDir dir;
  const fs::path out = dir.path() / "s.toml";
  const std::string command = kInitStub + " --print a" + '\x7f' + "b";
  const Finished f = RunPerfengine({"init", command, command, "--out", out.string()}, dir.path());
  ASSERT_EQ(f.exit, 0) << f.out << f.err;
  EXPECT_NE(ReadAll(out).find("\"--print\", \"a\\u007fb\"]"), std::string::npos) << ReadAll(out);
  const Finished validate = RunPerfengine({"validate", out.string()}, dir.path());
  EXPECT_EQ(validate.exit, 0) << validate.out << validate.err;
}

}  // namespace
}  // namespace pe::e2e

#include "engine/measure/elf_linkage.h"

#include <gtest/gtest.h>

#include "tests/unit/gitbuild/test_repo.h"

namespace pe::measure {
namespace {

TEST(ReadLinkageTest, DynamicProgramHasAnInterpreter) { EXPECT_EQ(ReadLinkage(ALLOC_PROBE), Linkage::kDynamic); }

TEST(ReadLinkageTest, StaticProgramHasNone) { EXPECT_EQ(ReadLinkage(STATIC_PROBE), Linkage::kStatic); }

TEST(ReadLinkageTest, ScriptsAndMissingFilesAreNotElf) {
  testing::ScratchDirectory dir;
  testing::WriteText(dir.path() / "script", "#!/bin/sh\nexit 0\n");
  testing::WriteText(dir.path() / "truncated",
                     "\x7f"
                     "ELF\x02");
  EXPECT_EQ(ReadLinkage(dir.path() / "script"), Linkage::kNotElf);
  EXPECT_EQ(ReadLinkage(dir.path() / "truncated"), Linkage::kNotElf);
  EXPECT_EQ(ReadLinkage(dir.path() / "missing"), Linkage::kNotElf);
}

}  // namespace
}  // namespace pe::measure

// Docs that run: every ```toml block in docs/*.md and README.md goes through the real
// `perfengine validate`, so a spec a reader copies from the docs is one the engine accepts,
// and a deliberate mistake shown in the docs is refused with the message the docs print.
// Markers are described in toml_blocks.h. Contenders' programs are the docs' examples (java,
// a rewrite's build output), so each is replaced with the stub contender, which answers
// `--version` as validate's startup check wants; contenders built from git are left alone, and
// the block sits in a git repository with the revisions the docs name.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <regex>

#include "tests/e2e/docs/toml_blocks.h"
#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// A minimal spec around a fragment: two contenders unless it declares its own, and one
// workload that does work (a spec of the startup workload alone is refused). The fragment
// comes first, so validate's line numbers are the block's own.
std::string Embed(const std::string& fragment) {
  std::string spec = fragment + "\n";
  if (fragment.find("[contenders.") == std::string::npos) {
    spec += "[contenders.baseline]\nargv = [\"" STUB_CONTENDER "\"]\n";
    spec += "[contenders.candidate]\nargv = [\"" STUB_CONTENDER "\"]\n";
  }
  return spec + "[workloads.docs-minimal]\nargs = [\"--print\", \"x\"]\n";
}

struct Contender {
  std::string name;
  bool git = false;
};
std::vector<Contender> Contenders(const std::string& spec) {
  std::vector<Contender> found;
  const std::regex header(R"(^\s*\[contenders\.([A-Za-z0-9_-]+)\]\s*(#.*)?$)");
  const std::regex other_header(R"(^\s*\[)");
  const std::regex git_key(R"(^\s*git\s*=)");
  std::istringstream in(spec);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, header)) {
      found.push_back({m[1], false});
    } else if (std::regex_search(line, other_header)) {
      found.emplace_back();  // a table that is not a contender: its keys are no contender's
    } else if (!found.empty() && std::regex_search(line, git_key)) {
      found.back().git = true;
    }
  }
  found.erase(std::remove_if(found.begin(), found.end(), [](const Contender& c) { return c.name.empty(); }),
              found.end());
  return found;
}

std::vector<TomlBlock> AllBlocks() {
  std::vector<fs::path> pages = {fs::path(PERFENGINE_SOURCE_DIR) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(PERFENGINE_SOURCE_DIR) / "docs")) {
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  }
  std::sort(pages.begin(), pages.end());
  std::vector<TomlBlock> blocks;
  for (const fs::path& page : pages) {
    const std::string name = fs::relative(page, PERFENGINE_SOURCE_DIR).string();
    for (TomlBlock& b : TomlBlocks(name, ReadAll(page))) blocks.push_back(std::move(b));
  }
  return blocks;
}

// Validates one block in a fresh directory; failures name the page and line.
void CheckBlock(const TomlBlock& block) {
  SCOPED_TRACE(block.page + ":" + std::to_string(block.line));
  TempDir dir;
  // A repository with the revisions the docs' git contenders name (a CI checkout has
  // origin/main), so validate can resolve them.
  ASSERT_EQ(RunQuietly({"git", "init", "-q", "-b", "main"}, dir.path()), 0);
  ASSERT_EQ(RunQuietly({"git", "-c", "user.name=docs", "-c", "user.email=docs@example.invalid", "commit", "-q",
                        "--allow-empty", "-m", "docs"},
                       dir.path()),
            0);
  ASSERT_EQ(RunQuietly({"git", "update-ref", "refs/remotes/origin/main", "HEAD"}, dir.path()), 0);

  const std::string spec_text = block.fragment ? Embed(block.text) : block.text;
  const fs::path spec = dir.path() / "doc.toml";
  std::ofstream(spec) << spec_text;
  std::vector<std::string> args = {"validate", spec.string()};
  // docs/ci.md's spec is copied as it is: it must gate something (validate --strict fails a
  // spec whose thresholds can never fail).
  if (block.page.find("ci.md") != std::string::npos && !block.invalid) args.push_back("--strict");
  for (const Contender& c : Contenders(spec_text)) {
    if (!c.git) args.push_back("--contender=" + c.name + "=" STUB_CONTENDER);
  }
  const Finished f = RunPerfengine(args, dir.path());
  if (block.invalid) {
    EXPECT_EQ(f.exit, 2) << spec_text << f.out << f.err;
    EXPECT_NE(f.err.find(block.message), std::string::npos) << "wanted: " << block.message << "\n" << f.err;
  } else {
    EXPECT_EQ(f.exit, 0) << spec_text << f.err;
    EXPECT_NE(f.out.find(": ok ("), std::string::npos) << f.out;
  }
}

// One test over every block the docs hold now, read when it runs: a list of tests fixed when
// the binary was built would pass vacuously for a block added or moved since.
TEST(DocsE2E, EveryTomlBlockIsWhatTheDocSaysItIs) {
  for (const TomlBlock& block : AllBlocks()) CheckBlock(block);
}

TEST(DocsE2E, BlocksAndTheirMarkersAreFound) {
  const std::string page =
      "text\n```toml\na = 1\n```\n<!-- fragment -->\n```toml\n[x]\n```\n```sh\n```toml\n```\n"
      "<!-- invalid: bad key -->\n```toml\nb = 2\nc = 3\n```\n<!-- fragment; invalid: no -->\n```toml\n```\n";
  const std::vector<TomlBlock> blocks = TomlBlocks("p.md", page);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0].line, 2);
  EXPECT_EQ(blocks[0].text, "a = 1\n");
  EXPECT_FALSE(blocks[0].fragment || blocks[0].invalid);
  EXPECT_EQ(blocks[1].line, 6);
  EXPECT_TRUE(blocks[1].fragment);
  EXPECT_FALSE(blocks[1].invalid);
  EXPECT_EQ(blocks[2].line, 13);  // the ```toml inside the sh block is that block's text
  EXPECT_EQ(blocks[2].text, "b = 2\nc = 3\n");
  EXPECT_TRUE(blocks[2].invalid);
  EXPECT_EQ(blocks[2].message, "bad key");
  EXPECT_TRUE(blocks[3].fragment && blocks[3].invalid);
  EXPECT_EQ(blocks[3].message, "no");
}

// The docs hold whole specs, fragments and a deliberate mistake; an extractor that found none
// of one kind would let the docs drift unchecked.
TEST(DocsE2E, TheDocsHoldEveryKindOfBlock) {
  const std::vector<TomlBlock> blocks = AllBlocks();
  EXPECT_GE(blocks.size(), 10u);
  EXPECT_TRUE(std::any_of(blocks.begin(), blocks.end(), [](const TomlBlock& b) { return !b.fragment; }));
  EXPECT_TRUE(std::any_of(blocks.begin(), blocks.end(), [](const TomlBlock& b) { return b.fragment; }));
  EXPECT_TRUE(std::any_of(blocks.begin(), blocks.end(), [](const TomlBlock& b) { return b.invalid; }));
}

TEST(DocsE2E, ContendersAndWhetherGitBuildsThem) {
  const std::vector<Contender> found =
      Contenders("[contenders.a]\nargv = [\"x\"]\n[workloads.w]\ngit = 1\n[contenders.b]  # b\ngit = \"main\"\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "a");
  EXPECT_FALSE(found[0].git);
  EXPECT_EQ(found[1].name, "b");
  EXPECT_TRUE(found[1].git);
}

}  // namespace
}  // namespace pe::e2e

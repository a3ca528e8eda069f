// Docs checked against the program (issue 42, item 4): every threshold a page of docs/ or the
// README names in code (`max_slowdown`, `[thresholds] max_rss_ratio = 1.1`) is a row of the
// threshold table, and every `perfengine SUBCOMMAND` it shows is a command the real binary's
// dispatch table takes (engine/cli/subcommands.h). docs/exit-codes.md had named `max_cpu_ratio`, which validate
// rejects as an unknown key. Read when the test runs, as the toml blocks are.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "engine/model/threshold_table.h"
#include "tests/e2e/e2e_support.h"

namespace pe::e2e {
namespace {

// A piece of code a page shows: an inline code span, or one line of a fenced block other than
// a toml one (those go through validate whole, docs_e2e_test.cc).
struct DocCode {
  std::string where;  // page:line
  std::string text;
};

std::vector<DocCode> CodeOfPage(const std::string& page, const std::string& text) {
  std::vector<DocCode> code;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool fenced = false, toml = false;
  std::string paragraph;  // the lines outside fences since the last blank one: a span may wrap
  int paragraph_line = 0;
  auto spans = [&] {
    const std::vector<std::string> parts = [&] {
      std::vector<std::string> out(1);
      for (char c : paragraph) {
        if (c == '`') {
          out.emplace_back();
        } else {
          out.back() += c;
        }
      }
      return out;
    }();
    int at = paragraph_line;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i % 2 == 1 && i + 1 < parts.size()) code.push_back({page + ":" + std::to_string(at), parts[i]});
      at += static_cast<int>(std::count(parts[i].begin(), parts[i].end(), '\n'));
    }
    paragraph.clear();
  };
  while (std::getline(in, line)) {
    ++number;
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent != std::string::npos && line.compare(indent, 3, "```") == 0) {
      if (!fenced) {
        spans();
        toml = line.compare(indent + 3, 4, "toml") == 0;
      }
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      if (!toml) code.push_back({page + ":" + std::to_string(number), line});
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) {
      spans();
      continue;
    }
    if (paragraph.empty()) paragraph_line = number;
    paragraph += line + "\n";
  }
  spans();
  return code;
}

std::vector<DocCode> CodeOfTheDocs() {
  std::vector<fs::path> pages = {fs::path(PERFENGINE_SOURCE_DIR) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(PERFENGINE_SOURCE_DIR) / "docs")) {
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  }
  std::sort(pages.begin(), pages.end());
  std::vector<DocCode> code;
  for (const fs::path& page : pages) {
    for (DocCode& c : CodeOfPage(fs::relative(page, PERFENGINE_SOURCE_DIR).string(), ReadAll(page))) {
      code.push_back(std::move(c));
    }
  }
  return code;
}

// A name that reads as a threshold: min_ or max_, then a figure's ending. `max_rounds`,
// `max_rss_kib` (a sample's field) and `max_ratio` (a counter's bar in the results file) do not.
bool LooksLikeAThreshold(const std::string& name) {
  static const std::regex kThreshold(
      "(min|max)_([a-z0-9]+_)*(slowdown|speedup|speedup_ci|win_rate|efficiency|exponent)|(min|max)_([a-z0-9]+_)+ratio");
  return std::regex_match(name, kThreshold);
}

// Thresholds that are no workload threshold, so no row of the table: a sweep's own keys, which
// the docs' toml blocks that set them put through validate.
const std::set<std::string> kNotWorkloadThresholds = {
    "max_cost_exponent",       // a sweep's [sweeps.NAME.thresholds] (engine/spec/parser_sweep.cc, docs/sweeps.md)
    "min_scaling_efficiency",  // likewise
};

// Threshold-like names in one piece of code.
std::vector<std::string> ThresholdNames(const std::string& code) {
  static const std::regex kName(R"((^|[^A-Za-z0-9_])((min|max)_[a-z0-9_]+))");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kName); it != std::sregex_iterator(); ++it) {
    if (LooksLikeAThreshold((*it)[2].str())) names.push_back((*it)[2].str());
  }
  return names;
}

// The subcommands a piece of code runs: each command of it (split at ;, &&, ||, |, $( and
// parentheses) whose program is perfengine (or a path to it), past a prompt, a YAML `- run:`,
// `time` and VAR=value assignments; its first word, unless it is an option or a placeholder
// (`perfengine COMMAND`, `perfengine <command>`).
std::vector<std::string> Subcommands(const std::string& code) {
  static const std::regex kSeparator(R"(&&|\|\||[;|()`]|\$\()");
  static const std::regex kSubcommand("[a-z][a-z0-9-]*");
  std::vector<std::string> found;
  for (auto it = std::sregex_token_iterator(code.begin(), code.end(), kSeparator, -1);
       it != std::sregex_token_iterator(); ++it) {
    std::istringstream words(it->str());
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    std::size_t i = 0;
    while (i < w.size() && (w[i] == "$" || w[i] == "-" || w[i] == "run:" || w[i] == "time" || w[i] == "sudo" ||
                            w[i] == "exec" || (w[i].find('=') != std::string::npos && w[i][0] != '-'))) {
      ++i;
    }
    if (i + 1 >= w.size() || fs::path(w[i]).filename() != "perfengine") continue;
    if (std::regex_match(w[i + 1], kSubcommand)) found.push_back(w[i + 1]);
  }
  return found;
}

TEST(DocsNames, ThresholdsAndSubcommandsAreFoundInCode) {
  const std::vector<DocCode> code = CodeOfPage(
      "p.md",
      "A `max_slowdown = 1.05` and `[thresholds] max_cpu_ratio`, not max_prose_ratio;\na span that `wraps\n"
      "min_speedup`.\n\n```sh\n$ build/bin/perfengine run spec.toml && perfengine explain r.json\n"
      "cmake --build build --target perfengine perfengine-alloccount\nperfengine --version; perfengine COMMAND\n"
      "```\n```toml\nmax_toml_ratio = 1\n```\n`- run: perfengine calibrate x` and `max_rounds`, `max_ratio`\n");
  std::vector<std::string> thresholds, commands;
  for (const DocCode& c : code) {
    for (std::string& t : ThresholdNames(c.text)) thresholds.push_back(t + "@" + c.where);
    for (std::string& s : Subcommands(c.text)) commands.push_back(s + "@" + c.where);
  }
  EXPECT_EQ(thresholds,
            (std::vector<std::string>{"max_slowdown@p.md:1", "max_cpu_ratio@p.md:1", "min_speedup@p.md:2"}));
  EXPECT_EQ(commands, (std::vector<std::string>{"run@p.md:6", "explain@p.md:6", "calibrate@p.md:13"}));
}

TEST(DocsNames, EveryThresholdTheDocsNameIsInTheThresholdTable) {
  std::set<std::string> known = kNotWorkloadThresholds;
  for (const model::ThresholdRow& row : model::kThresholdRows) known.insert(std::string(row.key));
  std::set<std::string> named;
  for (const DocCode& c : CodeOfTheDocs()) {
    for (const std::string& name : ThresholdNames(c.text)) {
      named.insert(name);
      EXPECT_TRUE(known.contains(name)) << c.where << ": `" << name
                                        << "` is no threshold (the threshold table has no such row)\n"
                                        << c.text;
    }
  }
  // The extractor finds what the docs are full of; one that found nothing would pass vacuously.
  EXPECT_TRUE(named.contains("max_slowdown") && named.contains("max_instructions_ratio")) << named.size();
}

TEST(DocsNames, EveryPerfengineSubcommandTheDocsShowIsACommandOfTheProgram) {
  std::map<std::string, std::string> shown;  // subcommand -> where first shown
  for (const DocCode& c : CodeOfTheDocs()) {
    for (const std::string& name : Subcommands(c.text)) shown.emplace(name, c.where);
  }
  EXPECT_TRUE(shown.contains("run") && shown.contains("calibrate") && shown.contains("explain")) << shown.size();
  TempDir dir;
  for (const auto& [name, where] : shown) {
    // The binary's own dispatch: an unknown command is exit 2, 'unknown command', before parsing.
    const Finished f = RunPerfengine({name, "--help"}, dir.path());
    EXPECT_EQ(f.exit, 0) << where << ": `perfengine " << name << "` is no command of perfengine\n" << f.err;
  }
}

}  // namespace
}  // namespace pe::e2e

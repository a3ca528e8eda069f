#include "engine/report/markdown_text.h"

#include <gtest/gtest.h>

#include "engine/report/text.h"

namespace pe::report {
namespace {

TEST(MarkdownTextTest, EscapesMarkup) {
  EXPECT_EQ(EscapeMarkdown("| **x** <script>"), "\\| \\*\\*x\\*\\* \\<script\\>");
  EXPECT_EQ(EscapeMarkdown("![a](b) `c` _d_ ~e~ $f$ &lt; #g \\"),
            "!\\[a\\](b) \\`c\\` \\_d\\_ \\~e\\~ \\$f\\$ \\&lt; \\#g \\\\");
  EXPECT_EQ(EscapeMarkdown("bazel-diff 0.1.0"), "bazel-diff 0.1.0");
}

TEST(MarkdownTextTest, EscapedTextStaysOnOneLine) { EXPECT_EQ(EscapeMarkdown("a\nb\tc\x1b[31md"), "a b c?\\[31md"); }

TEST(MarkdownTextTest, FenceIsLongerThanAnyBacktickRunInside) {
  EXPECT_EQ(FencedBlock("plain"), "```\nplain\n```\n");
  EXPECT_EQ(FencedBlock("a ``` b\n````\n"), "`````\na ``` b\n````\n`````\n");
}

TEST(TextTest, PrintableKeepsLinesAndTabs) {
  EXPECT_EQ(Printable("a\r\nb\tc\x07\x7f"), "a\nb\tc??");
  EXPECT_EQ(OneLine("a\nb"), "a b");
  EXPECT_EQ(Indented("a\n\nb\n", "  "), "  a\n\n  b\n");
  EXPECT_EQ(Indented("", "  "), "");
}

// A right-to-left override or a C1 CSI passed through once; other non-ASCII text still does.
TEST(TextTest, PrintableReplacesBidiAndC1Controls) {
  EXPECT_EQ(Printable("a\u202eb\u2066c\u200fd\u061ce\xc2\x9b"
                      "31mf"),
            "a?b?c?d?e?31mf");
  EXPECT_EQ(Printable("\u00e9\u2014\u00a0\u4e2d"), "\u00e9\u2014\u00a0\u4e2d");
}

}  // namespace
}  // namespace pe::report

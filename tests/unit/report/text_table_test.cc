// The one plain-text table formatter (engine/report/text_table.h): exact bytes.
#include "engine/report/text_table.h"

#include <gtest/gtest.h>

namespace pe::report {
namespace {

TEST(TextTable, PadsEachColumnToItsWidestCellLeftOrRight) {
  const TableRows rows = {{"workload", "time", "verdict"}, {"a", "12.5 ms", "pass"}, {"longer", "1 s", "FAIL"}};
  EXPECT_EQ(FormatTable(rows, "lrl"),
            "workload     time  verdict\n"
            "a         12.5 ms  pass\n"
            "longer        1 s  FAIL\n");
}

TEST(TextTable, MissingAlignLettersMeanRightAndIndentAndGapAreUsed) {
  const TableRows rows = {{"x", "yy"}, {"xxx", "y"}};
  EXPECT_EQ(FormatTable(rows, "", "> ", " | "),
            ">   x | yy\n"
            "> xxx |  y\n");
}

TEST(TextTable, TrailingSpacesAreDroppedAndALeftLastColumnIsNotPadded) {
  const TableRows rows = {{"a", "long last"}, {"bbb", ""}};
  const TableRows padded = PaddedCells(rows, "ll");
  EXPECT_EQ(padded[0][1], "long last");
  EXPECT_EQ(padded[1][1], "");
  EXPECT_EQ(padded[1][0], "bbb");
  EXPECT_EQ(FormatTable(rows, "ll"), "a    long last\nbbb\n");
}

TEST(TextTable, ShortRowsAreFineAndAnEmptyTableIsEmpty) {
  EXPECT_EQ(FormatTable({}, "l"), "");
  const TableRows rows = {{"a", "b", "c"}, {"dd"}};
  EXPECT_EQ(FormatTable(rows, "l"), "a   b  c\ndd\n");
}

// "µs" is two bytes and one column: it lines up with ASCII cells (the old explain table padded
// by bytes and would have left it one column short).
TEST(TextTable, WidthIsCountedInCharactersNotBytes) {
  EXPECT_EQ(DisplayWidth("12 µs"), 5u);
  EXPECT_EQ(DisplayWidth("–"), 1u);
  const TableRows rows = {{"time"}, {"12 µs"}, {"1 s"}};
  EXPECT_EQ(FormatTable(rows, "r"), " time\n12 µs\n  1 s\n");
}

}  // namespace
}  // namespace pe::report

#include "core/base/text.h"

#include <gtest/gtest.h>

namespace pulse {
namespace {

TEST(Text, LowerFoldsAsciiOnly) {
  EXPECT_EQ(Lower("Soul.MD"), "soul.md");
  // UTF-8 bytes are not letters to fold: É stays as it is.
  EXPECT_EQ(Lower("\xC3\x89T\xC3\xA9"), "\xC3\x89t\xC3\xA9");
}

TEST(Text, TrimTakesTheGivenSet) {
  EXPECT_EQ(Trim("  a b \n"), "a b");
  EXPECT_EQ(Trim(" \t\r\n"), "");
  EXPECT_EQ(Trim("\nx\n", " \t\r"), "\nx\n");
  EXPECT_EQ(Trim("..x..", "."), "x");
}

TEST(Text, FirstLineCutsOnACharacterBoundary) {
  EXPECT_EQ(FirstLine("one\ntwo"), "one");
  EXPECT_EQ(FirstLine("abcdef", 3), "abc…");
  EXPECT_EQ(FirstLine("abc", 3), "abc");
  // "é" is two bytes: a cut at 2 must not split it.
  EXPECT_EQ(FirstLine("a\xC3\xA9z", 2), "a…");
}

TEST(Text, ReplaceNeverSearchesItsOwnOutput) {
  EXPECT_EQ(Replace("{x}{x}", "{x}", "{x}{x}"), "{x}{x}{x}{x}");
  EXPECT_EQ(Replace("abc", "", "z"), "abc");
}

TEST(Text, FormatNumberAsPrintfG) {
  EXPECT_EQ(FormatNumber(1000), "1000");
  EXPECT_EQ(FormatNumber(0.25), "0.25");
  EXPECT_EQ(FormatNumber(1e6), "1e+06");
}

}  // namespace
}  // namespace pulse

#include <gtest/gtest.h>

#include <string>

#include "core/base/one_line.h"

namespace pulse {
namespace {

TEST(OneLine, EveryBreakAReaderMayHonourIsFlattened) {
  EXPECT_EQ(FlattenLineBreaks("a\rb\r\nc\xc2\x85" "d\xe2\x80\xa9" "e\tf\vg\fh\xe2\x80\xa8i"), "a b  c d e f g h i");
  for (const char* brk : {"\n", "\r", "\v", "\f", "\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"}) {
    EXPECT_TRUE(HasLineBreak(std::string("a") + brk + "b")) << ::testing::PrintToString(brk);
  }
  EXPECT_FALSE(HasLineBreak("plain text, \xc3\xa9 and \xe2\x80\x94 dashes, \xc2\xa0 no-break"));
  EXPECT_FALSE(HasLineBreak("\xe2\x80"));  // a cut sequence is not a break
}

// Python's splitlines() also breaks at \x1c, \x1d and \x1e: every C0 and C1
// control, DEL and U+2028/U+2029 is found, and flattened to a space.
TEST(OneLine, EveryControlIsFoundAndFlattened) {
  for (unsigned c = 0; c < 0x20; ++c) {
    std::string t = "ab" + std::string(1, static_cast<char>(c)) + "c";
    unsigned cp = 99;
    EXPECT_EQ(FirstControl(t, &cp), 2u) << c;
    EXPECT_EQ(cp, c);
    EXPECT_EQ(FlattenLineBreaks(t), "ab c") << c;
  }
  for (const char* c : {"\x7f", "\xc2\x80", "\xc2\x85", "\xc2\x9f", "\xe2\x80\xa8", "\xe2\x80\xa9"}) {
    EXPECT_EQ(FirstControl(std::string("x") + c), 1u) << ::testing::PrintToString(c);
    EXPECT_EQ(FlattenLineBreaks(std::string("x") + c + "y"), "x y") << ::testing::PrintToString(c);
  }
  EXPECT_EQ(FirstControl("plain \xc3\xa9 \xe2\x80\x94 \xc2\xa0 text"), std::string_view::npos);
}

}  // namespace
}  // namespace pulse

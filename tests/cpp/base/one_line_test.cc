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

}  // namespace
}  // namespace pulse

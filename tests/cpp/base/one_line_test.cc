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

// A reason quoting a long value is cut, at a character boundary, and says
// so; a short one is as it was.
TEST(OneLine, AReasonIsBounded) {
  EXPECT_EQ(BoundedReason("id: must be a whole number"), "id: must be a whole number");
  std::string exact(kMaxReasonBytes, 'x');
  EXPECT_EQ(BoundedReason(exact), exact);
  // "é" is two bytes: the cut never splits it.
  std::string quoted = "method not found: " + std::string(kMaxReasonBytes - 19, 'a');
  for (int i = 0; i < 3000; ++i) quoted += "\xc3\xa9";
  std::string cut = BoundedReason(quoted);
  EXPECT_EQ(cut.rfind("method not found: aaa", 0), 0u);
  EXPECT_LT(cut.size(), kMaxReasonBytes + 40);
  std::string kept = cut.substr(0, cut.find("..."));
  EXPECT_EQ(kept.size(), kMaxReasonBytes - 1);  // one byte short: the next "é" would not fit whole
  EXPECT_EQ(cut.substr(kept.size()), "... (" + std::to_string(quoted.size() - kept.size()) + " more bytes not shown)");
}

}  // namespace
}  // namespace pulse

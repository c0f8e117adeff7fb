// RFC 3339 times and whole days.
#include "core/time_util.h"

#include <gtest/gtest.h>


#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;
using testing::WriteFile;

TEST(Time, ParsesAndFormatsRfc3339) {
  EXPECT_EQ(FormatTime(T("2026-10-07T09:00:00Z")), "2026-10-07T09:00:00Z");
  EXPECT_EQ(FormatTime(T("2026-10-07T11:00:00+02:00")), "2026-10-07T09:00:00Z");
  EXPECT_EQ(FormatTime(T("2026-10-07T09:00:00.123Z")), "2026-10-07T09:00:00Z");
  EXPECT_EQ(FormatTime(T("2026-10-07")), "2026-10-07T00:00:00Z");
  EXPECT_EQ(FormatShortDay(T("2026-09-17T09:30:00Z")), "17 Sep");
  EXPECT_EQ(FormatDate(T("2026-09-17T09:30:00Z")), "2026-09-17");
  EXPECT_FALSE(ParseTime("yesterday").ok());
  EXPECT_FALSE(ParseTime("2026-10-07T09:00:00Zjunk").ok());
  EXPECT_FALSE(ParseTime("").ok());
}

TEST(Time, WholeDays) {
  EXPECT_EQ(WholeDaysBetween(T("2026-09-17T09:30:00Z"), T("2026-10-07T12:00:00Z")), 20);
  EXPECT_EQ(WholeDaysBetween(T("2026-10-07T12:00:00Z"), T("2026-10-07T11:00:00Z")), -1);
  EXPECT_EQ(StartOfDay(T("2026-10-07T12:00:00Z")), T("2026-10-07T00:00:00Z"));
}

// RFC 3339 offsets: only hours 00-23 and minutes 00-59 are offsets at all.
TEST(TimeOffsets, ValidOffsetsShiftTheTime) {
  EXPECT_EQ(*ParseTime("2026-10-07T11:30:00+02:30"), *ParseTime("2026-10-07T09:00:00Z"));
  EXPECT_EQ(*ParseTime("2026-10-07T00:00:00-23:59"), *ParseTime("2026-10-07T23:59:00Z"));
  EXPECT_EQ(*ParseTime("2026-10-07T09:00:00+00:00"), *ParseTime("2026-10-07T09:00:00Z"));
}

TEST(TimeOffsets, OutOfRangeOrMalformedOffsetsAreRefused) {
  for (const char* bad : {"2026-10-07T09:00:00+99:99", "2026-10-07T09:00:00+24:00", "2026-10-07T09:00:00+23:60",
                          "2026-10-07T09:00:00-24:00", "2026-10-07T09:00:00+0200", "2026-10-07T09:00:00+2:00",
                          "2026-10-07T09:00:00+02", "2026-10-07T09:00:00+ 2:00"}) {
    Result<int64_t> t = ParseTime(bad);
    EXPECT_FALSE(t.ok()) << bad;
    if (!t.ok()) {
      EXPECT_NE(t.status().message().find("RFC 3339"), std::string::npos) << t.status().message();
    }
  }
}

}  // namespace
}  // namespace pulse

// RFC 3339 offsets: only hours 00-23 and minutes 00-59 are offsets at all.
#include "core/time_util.h"

#include <gtest/gtest.h>

namespace pulse {
namespace {

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

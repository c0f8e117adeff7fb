// RFC 3339 times and whole days.
#include "core/time_util.h"

#include <gtest/gtest.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>

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

// A field with no digits ("23::59") reached the date library, which then
// converted seconds it never read (UBSan: -nan is outside the range of long);
// the fuzzer's input is kept in tests/fuzz/regressions/time_fuzz/.
TEST(TimeShape, FieldsWithoutTheirDigitsAreRefusedBeforeParsing) {
  for (const char* bad : {"1969-12-31T23::5959-23:59", "2026-10-07T09::00Z", "2026-10-07T09:00:Z", "2026-10-07T:00:00Z",
                          "2026-1-07", "2026-10-7T09:00:00Z", "+2026-10-07", "-001-10-07T09:00:00Z",
                          "2026-10-07T9:00:00Z", "2026-10-07T09:00:00+02:0"}) {
    Result<int64_t> t = ParseTime(bad);
    EXPECT_FALSE(t.ok()) << bad;
    if (!t.ok()) EXPECT_NE(t.status().message().find("RFC 3339"), std::string::npos) << t.status().message();
  }
  EXPECT_EQ(FormatTime(T("2026-10-07T09:00:00.5-00:30")), "2026-10-07T09:30:00Z");
}

// Every input the time fuzzer once crashed on now parses or is refused, and
// what parses prints back to the same second.
TEST(TimeShape, TheFuzzersCrashingInputsRunClean) {
  std::filesystem::path dir = std::filesystem::path(PULSE_TEST_FIXTURES) / "../fuzz/regressions/time_fuzz";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    Result<int64_t> t = ParseTime(text.str());
    if (t.ok()) EXPECT_EQ(*ParseTime(FormatTime(*t)), *t) << entry.path();
    ++seen;
  }
  EXPECT_GE(seen, 1);
}

// Seconds far outside the calendar (a number from outside, a sum that ran
// away) printed as garbage ("14423-03-17T2562033891409935:30:07Z"): they
// print as the nearest of 0000-01-01 and 9999-12-31, so text order stays
// time order, and ParseTime accepts nothing outside those years.
TEST(TimeRange, EveryCountOfSecondsPrintsWithinTheYears0000To9999) {
  EXPECT_EQ(FormatTime(INT64_MAX), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatTime(400000000000000LL), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatTime(INT64_MIN), "0000-01-01T00:00:00Z");
  EXPECT_EQ(FormatDate(INT64_MAX), "9999-12-31");
  EXPECT_EQ(FormatShortDay(INT64_MIN), "1 Jan");
  EXPECT_EQ(*ParseTime("9999-12-31T23:59:59Z"), kMaxTime);
  EXPECT_EQ(*ParseTime("0000-01-01"), kMinTime);
  EXPECT_FALSE(ParseTime("9999-12-31T23:59:59-00:01").ok());
  EXPECT_FALSE(ParseTime("0000-01-01T00:00:00+00:01").ok());
}

}  // namespace
}  // namespace pulse

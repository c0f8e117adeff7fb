// RFC 3339 times and whole days.
#include "core/time_util.h"

#include <date/date.h>
#include <gtest/gtest.h>

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

// The canonical text is read and written without the date library's streams;
// the answers must be the library's own.
std::string LibraryFormat(int64_t s) {
  return date::format("%FT%TZ", date::sys_seconds(std::chrono::seconds(s)));
}

bool LibraryParse(const std::string& text, int64_t* out) {
  std::istringstream in(text.substr(0, text.size() - 1));
  date::sys_seconds tp;
  in >> date::parse("%FT%T", tp);
  if (in.fail() || text.back() != 'Z') return false;
  in.peek();
  if (!in.eof()) return false;
  *out = tp.time_since_epoch().count();
  return true;
}

TEST(Time, CanonicalTextsReadAndWrittenAsTheDateLibraryDoes) {
  std::vector<int64_t> times = {0, 86399, 86400, 951782400, 951868799, 1709164800, 4102444799, 253402300799};
  for (int64_t s = 0; s < 4200000000; s += 7919 * 13) times.push_back(s);
  for (int64_t s : times) {
    std::string text = FormatTime(s);
    ASSERT_EQ(text, LibraryFormat(s)) << s;
    Result<int64_t> back = ParseTime(text);
    ASSERT_TRUE(back.ok()) << text;
    ASSERT_EQ(*back, s) << text;
  }
  EXPECT_EQ(FormatTime(-1), LibraryFormat(-1));
  EXPECT_EQ(FormatTime(253402300800), LibraryFormat(253402300800));
  for (const char* text : {"2026-02-29T00:00:00Z", "2024-02-29T23:59:59Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
                           "2026-04-31T00:00:00Z", "2026-10-07T24:00:00Z", "2026-10-07T23:60:00Z",
                           "2026-10-07T23:59:60Z", "0999-10-07T09:00:00Z", "2026-1a-07T09:00:00Z"}) {
    int64_t lib = 0;
    bool lib_ok = LibraryParse(text, &lib);
    Result<int64_t> ours = ParseTime(text);
    EXPECT_EQ(ours.ok(), lib_ok) << text;
    if (ours.ok() && lib_ok) {
      EXPECT_EQ(*ours, lib) << text;
    }
  }
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

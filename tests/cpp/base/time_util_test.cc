// RFC 3339 times and whole days.
#include "core/base/time_util.h"

#include <date/date.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
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


// The parser and the formatter read and write exactly as the date library's
// parse and format did (the core no longer uses it: its streams were a large
// share of the WebAssembly module). The library stays the reference here.
using Seconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

bool LibraryParse(const std::string& text, const char* format, int64_t& out) {
  std::istringstream in(text);
  date::sys_time<std::chrono::seconds> tp;
  in >> date::parse(format, tp);
  if (in.fail()) return false;
  in.peek();
  if (!in.eof()) return false;
  out = tp.time_since_epoch().count();
  return true;
}

// ParseTime as it was, on the library.
Result<int64_t> LibraryParseTime(const std::string& text) {
  if (text.empty()) return Status::InvalidArgument("empty time");
  std::string cleaned = text;
  auto dot = std::find(cleaned.begin(), cleaned.end(), '.');
  if (dot != cleaned.end() && dot - cleaned.begin() > 10) {
    cleaned.erase(dot, std::find_if_not(dot + 1, cleaned.end(), [](char c) { return c >= '0' && c <= '9'; }));
  }
  std::replace(cleaned.begin(), cleaned.end(), 't', 'T');
  std::replace(cleaned.begin(), cleaned.end(), 'z', 'Z');
  int64_t t = 0;
  if (cleaned.size() == 10 && LibraryParse(cleaned, "%F", t)) return t;
  bool offset = cleaned.size() >= 6 && (cleaned[cleaned.size() - 6] == '+' || cleaned[cleaned.size() - 6] == '-');
  if (!cleaned.empty() && cleaned.back() == 'Z') {
    if (LibraryParse(cleaned.substr(0, cleaned.size() - 1), "%FT%T", t)) return t;
  } else if (offset && LibraryParse(cleaned, "%FT%T%Ez", t)) {
    return t;
  }
  return Status::InvalidArgument("not a time");
}

// Every one-character change (replace, insert, delete) of each seed: what
// the library takes,
// ParseTime takes with the same value; what it refuses, ParseTime refuses
// (ParseTime also refuses offsets out of range, which the library shifted
// by).
TEST(TimeLikeTheDateLibrary, ParseAgreesOnEveryNearbyText) {
  std::string alphabet = "0123456789+-:.TZtz x";
  alphabet += '\0';
  std::vector<std::string> texts;
  for (const char* seed : {"2026-10-07T09:00:00Z", "2026-10-07T11:30:00+02:30", "2026-10-07", "2024-02-29T23:59:59.999Z",
                           "0001-01-01T00:00:00-00:00", "2026-1-7T9:0:0Z", "+2026-10-07T09:00:00Z", "-0044-03-15T12:00:00Z",
                           "2026-10-07T09:00:0.5Z", "2026-10-07T09:00:..7Z", "2026-10-07T09:00:5.+01:00"}) {
    std::string s = seed;
    texts.push_back(s);
    for (size_t i = 0; i <= s.size(); ++i) {
      if (i < s.size()) texts.push_back(s.substr(0, i) + s.substr(i + 1));
      for (char c : alphabet) {
        texts.push_back(s.substr(0, i) + c + s.substr(i));
        if (i < s.size()) texts.push_back(s.substr(0, i) + c + s.substr(i + 1));
      }
    }
  }
  for (const std::string& text : texts) {
    Result<int64_t> ours = ParseTime(text);
    Result<int64_t> library = LibraryParseTime(text);
    if (ours.ok()) {
      ASSERT_TRUE(library.ok()) << text;
      EXPECT_EQ(*ours, *library) << text;
    } else if (library.ok()) {
      // Only an offset out of range (hours over 23, minutes over 59) and a
      // year outside 0000-9999 (which FormatTime cannot write back) differ.
      bool outside_years = *library < -62167219200 || *library > 253402300799;
      std::string off = text.substr(text.size() - 6);
      bool out_of_range = off[0] == '+' || off[0] == '-';
      EXPECT_TRUE(outside_years ||
                  (out_of_range && (std::stoi(off.substr(1, 2)) > 23 || std::stoi(off.substr(4, 2)) > 59)))
          << text;
    }
  }
}

TEST(TimeLikeTheDateLibrary, FormatAgreesFromYearMinus9999To9999AndBeyond) {
  std::vector<int64_t> seconds = {0, -1, 1, 86399, 86400, -86400, -86401, 951782400, 1791363600, 253402300799,
                                  253402300800, -62135596800, -62135596801, -377705116800, 1000000000000,
                                  -1000000000000, 100000000000000, -100000000000000};
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    seconds.push_back(static_cast<int64_t>(x % 700000000000ull) - 350000000000);
  }
  for (int64_t s : seconds) {
    Seconds tp{std::chrono::seconds(s)};
    EXPECT_EQ(FormatTime(s), date::format("%FT%TZ", tp)) << s;
    EXPECT_EQ(FormatDate(s), date::format("%F", tp)) << s;
  }
}

// Inputs the time fuzzer once crashed on (tests/fuzz/regressions/time_fuzz/:
// a seconds field with no digits, "23::59", which the date library read as
// an uninitialised value; counts of seconds past int64's day range): each
// parses or is refused, prints without overflow, and what parses reads back.
TEST(TimeFuzzRegressions, EveryCrashingInputRunsClean) {
  std::filesystem::path dir = std::filesystem::path(PULSE_TEST_FIXTURES) / "../fuzz/regressions/time_fuzz";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    std::string text = bytes.str();
    Result<int64_t> t = ParseTime(text);
    if (t.ok()) {
      EXPECT_EQ(*ParseTime(FormatTime(*t)), *t) << entry.path();
    }
    int64_t raw = 0;
    std::memcpy(&raw, text.data(), std::min(text.size(), sizeof raw));
    (void)FormatTime(raw);  // the fuzz build's UBSan checks these; here they must not crash
    (void)FormatDate(raw);
    EXPECT_LE(StartOfDay(raw), raw) << entry.path();
    ++seen;
  }
  EXPECT_GE(seen, 3);
  EXPECT_FALSE(ParseTime("1969-12-31T23::5959-23:59").ok());
  for (int64_t s : {INT64_MAX, INT64_MIN, int64_t{185542587100800}}) (void)FormatShortDay(s);
}

// StartOfDay multiplied a day count back into seconds, which wrapped for a
// count near the lowest int64 (the fuzzer's raw seconds): the day's start
// came out after the time itself.
TEST(TimeFuzzRegressions, StartOfDayAndDayCountsHoldAtTheEndsOfInt64) {
  EXPECT_EQ(StartOfDay(-1), -86400);
  EXPECT_EQ(StartOfDay(86400 * 3 + 5), 86400 * 3);
  EXPECT_EQ(StartOfDay(-86400), -86400);
  const int64_t near_min = INT64_MIN + 12338;
  EXPECT_LE(StartOfDay(near_min), near_min);
  EXPECT_EQ(StartOfDay(near_min), INT64_MIN);  // its day began before the first second int64 holds
  EXPECT_EQ(StartOfDay(INT64_MAX), INT64_MAX - INT64_MAX % 86400);
  EXPECT_EQ(WholeDaysBetween(0, 86400 * 2 - 1), 1);
  EXPECT_EQ(WholeDaysBetween(0, -1), -1);
  EXPECT_EQ(WholeDaysBetween(INT64_MIN, INT64_MAX), INT64_MAX / 86400);
  EXPECT_EQ(WholeDaysBetween(INT64_MAX, INT64_MIN), INT64_MIN / 86400 - 1);
}

// A time before 0000 printed as "00-1-..." and one after 9999 with five
// digits, which read back as another time or not at all: a stored time that
// changed on reading. ParseTime takes years 0000 to 9999 only.
TEST(TimeFuzzRegressions, EveryAcceptedTimeReadsBackFromItsText) {
  EXPECT_EQ(*ParseTime("9999-12-31T23:59:59Z"), 253402300799);
  EXPECT_EQ(*ParseTime("0000-01-01"), -62167219200);
  for (const char* bad : {"9999-12-31T23:59:59-00:01", "0000-01-01T00:00:00+00:01", "0000-01-01T00:00:00+23:59",
                          "-0044-03-15T12:00:00Z", "+12026-10-07"}) {
    EXPECT_FALSE(ParseTime(bad).ok()) << bad;
  }
  for (const char* text : {"9999-12-31T23:00:00-00:59", "0000-01-01T00:59:00+00:59", "0000-01-01"}) {
    Result<int64_t> t = ParseTime(text);
    ASSERT_TRUE(t.ok()) << text;
    EXPECT_EQ(*ParseTime(FormatTime(*t)), *t) << text;
  }
}

}  // namespace
}  // namespace pulse

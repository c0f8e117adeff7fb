// Five-field cron expressions in UTC: what each field takes, cron's rule for
// the two day fields, and the latest fire at or before a time.
#include "core/base/cron.h"

#include <gtest/gtest.h>

#include "core/base/time_util.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;

CronSpec Cron(const std::string& text) {
  Result<CronSpec> s = ParseCron(text, "pulse.full_pass");
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? *s : CronSpec();
}

std::string Previous(const std::string& text, const char* now) {
  std::optional<int64_t> t = PreviousFire(Cron(text), T(now));
  return t ? FormatTime(*t) : "none";
}

TEST(Cron, DailyFiresAtItsMinuteAndTheLatestFireIsAtOrBeforeNow) {
  EXPECT_EQ(Previous("0 6 * * *", "2026-10-07T12:00:00Z"), "2026-10-07T06:00:00Z");
  EXPECT_EQ(Previous("0 6 * * *", "2026-10-07T06:00:00Z"), "2026-10-07T06:00:00Z");
  EXPECT_EQ(Previous("0 6 * * *", "2026-10-07T05:59:59Z"), "2026-10-06T06:00:00Z");
  EXPECT_EQ(Previous("  30   9 * *   *  ", "2026-10-07T12:00:00Z"), "2026-10-07T09:30:00Z") << "spaces between fields";
}

TEST(Cron, StepsRangesAndLists) {
  EXPECT_EQ(Previous("*/15 * * * *", "2026-10-07T12:44:10Z"), "2026-10-07T12:30:00Z");
  EXPECT_EQ(Previous("5-10/5 * * * *", "2026-10-07T12:09:00Z"), "2026-10-07T12:05:00Z");
  EXPECT_EQ(Previous("0 8,20 * * *", "2026-10-07T19:00:00Z"), "2026-10-07T08:00:00Z");
  EXPECT_EQ(Previous("0 0 1 */3 *", "2026-10-07T00:00:00Z"), "2026-10-01T00:00:00Z");
}

// 2026-10-07 is a Wednesday, 2026-10-04 a Sunday.
TEST(Cron, WeekdaysWithSundayAsZeroOrSeven) {
  EXPECT_EQ(Previous("0 9 * * 1-5", "2026-10-05T08:00:00Z"), "2026-10-02T09:00:00Z") << "Friday before the weekend";
  EXPECT_EQ(Previous("0 9 * * 0", "2026-10-07T12:00:00Z"), "2026-10-04T09:00:00Z");
  EXPECT_EQ(Previous("0 9 * * 7", "2026-10-07T12:00:00Z"), "2026-10-04T09:00:00Z");
}

TEST(Cron, BothDayFieldsRestrictedMeansEitherMatches) {
  CronSpec s = Cron("0 9 13 * 3");  // the 13th, or any Wednesday
  EXPECT_TRUE(s.Matches(T("2026-10-07T09:00:00Z")));  // a Wednesday
  EXPECT_TRUE(s.Matches(T("2026-10-13T09:00:00Z")));  // a Tuesday, the 13th
  EXPECT_FALSE(s.Matches(T("2026-10-08T09:00:00Z")));
  EXPECT_FALSE(s.Matches(T("2026-10-07T09:01:00Z")));
}

TEST(Cron, NoFireWithinTheHorizonIsNone) {
  EXPECT_EQ(Previous("0 0 30 2 *", "2026-10-07T12:00:00Z"), "none");
  EXPECT_FALSE(PreviousFire(Cron("0 6 * * *"), T("2026-10-07T05:00:00Z"), 0).has_value());
}

std::string Next(const std::string& text, const char* after) {
  std::optional<int64_t> t = NextFire(Cron(text), T(after));
  return t ? FormatTime(*t) : "none";
}

TEST(Cron, NextFireIsStrictlyAfter) {
  EXPECT_EQ(Next("0 6 * * *", "2026-10-07T05:59:59Z"), "2026-10-07T06:00:00Z");
  EXPECT_EQ(Next("0 6 * * *", "2026-10-07T06:00:00Z"), "2026-10-08T06:00:00Z") << "a fire at the time itself is not next";
  EXPECT_EQ(Next("*/15 * * * *", "2026-10-07T12:44:10Z"), "2026-10-07T12:45:00Z");
  EXPECT_EQ(Next("0 9 * * 6", "2026-10-07T12:00:00Z"), "2026-10-10T09:00:00Z") << "the Saturday after a Wednesday";
  EXPECT_EQ(Next("0 0 30 2 *", "2026-10-07T12:00:00Z"), "none");
}

TEST(Cron, BadExpressionsNameTheSettingAndTheField) {
  Result<CronSpec> four = ParseCron("0 6 * *", "pulse.full_pass");
  ASSERT_FALSE(four.ok());
  EXPECT_EQ(four.status().message(),
            "pulse.full_pass: \"0 6 * *\" is not a five-field cron expression (minute hour day month weekday)");
  for (auto [text, field] : std::vector<std::pair<const char*, const char*>>{{"60 * * * *", "minute"},
                                                                              {"0 24 * * *", "hour"},
                                                                              {"0 0 0 * *", "day of month"},
                                                                              {"0 0 * 13 *", "month"},
                                                                              {"0 0 * * 8", "day of week"},
                                                                              {"x * * * *", "minute"},
                                                                              {"5-1 * * * *", "minute"},
                                                                              {"*/0 * * * *", "minute"}}) {
    Result<CronSpec> s = ParseCron(text, "pulse.full_pass");
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.status().message().find(std::string("the ") + field + " field"), std::string::npos)
        << text << ": " << s.status().message();
  }
}

}  // namespace
}  // namespace pulse

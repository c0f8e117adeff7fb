// The recovery message: said once when a goal that was not measured is
// measured again, and remembered in the database across restarts.
#include <gtest/gtest.h>

#include "core/goal/goal_recovery.h"
#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;

GoalCheck Check(GoalStatus status) {
  GoalCheck c;
  c.has_goal = true;
  c.status = status;
  c.metric_name = "subscribers";
  c.value = 450;
  c.target = 1000;
  c.last_measured_by_run_at = T("2026-10-08T09:30:00Z");
  return c;
}

TEST(GoalRecovery, SaysOnceWhenMeasuredAgain) {
  const int64_t t0 = T("2026-10-07T12:00:00Z");
  RecoveryStep first = GoalRecoveryStep(std::nullopt, Check(GoalStatus::kNotMeasured), "Substack Pulse", t0);
  EXPECT_FALSE(first.send);
  EXPECT_TRUE(first.changed);
  EXPECT_FALSE(first.next.measured);
  RecoveryStep same = GoalRecoveryStep(first.next, Check(GoalStatus::kNotMeasured), "Substack Pulse", t0 + 3600);
  EXPECT_FALSE(same.changed);
  EXPECT_EQ(same.next.since, t0);
  RecoveryStep back = GoalRecoveryStep(same.next, Check(GoalStatus::kOffTrack), "Substack Pulse", t0 + 86400);
  EXPECT_TRUE(back.send);
  EXPECT_EQ(back.title, "Substack Pulse: measured again");
  EXPECT_NE(back.text.find("subscribers 450 of 1000"), std::string::npos) << back.text;
  EXPECT_NE(back.text.find("since 2026-10-07"), std::string::npos) << back.text;
  RecoveryStep after = GoalRecoveryStep(back.next, Check(GoalStatus::kOnTrack), "Substack Pulse", t0 + 2 * 86400);
  EXPECT_FALSE(after.send);
  EXPECT_FALSE(after.changed);
  // A first look that finds it measured only remembers.
  EXPECT_FALSE(GoalRecoveryStep(std::nullopt, Check(GoalStatus::kOnTrack), "Substack Pulse", t0).send);
  GoalCheck none;
  EXPECT_FALSE(GoalRecoveryStep(MeasuredState{false, t0}, none, "Substack Pulse", t0).send);
}

TEST(GoalRecovery, StateIsStored) {
  TempDir dir;
  auto db = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(EnsureSchema(**db).ok());
  auto empty = LoadMeasuredState(**db);
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
  ASSERT_TRUE(SaveMeasuredState(**db, MeasuredState{false, T("2026-10-07T12:00:00Z")}).ok());
  auto back = LoadMeasuredState(**db);
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_FALSE((*back)->measured);
  EXPECT_EQ((*back)->since, T("2026-10-07T12:00:00Z"));
}

}  // namespace
}  // namespace pulse

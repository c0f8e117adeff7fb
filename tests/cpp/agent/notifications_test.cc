// Pulse's own notifications (agent/outbox/notifications.cc) on a real workflow
// database: "needs you" for a decision only the owner can make, and the
// recovery message sent once when a goal not measured is measured again.
#include "agent/outbox/notifications.h"

#include "agent/outbox/outbox.h"
#include "core/goal/goal_recovery.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using testing::Workflow;

std::vector<OutboxMessage> Outbox(Workflow& wf) {
  Result<std::vector<OutboxMessage>> all = ListOutbox(*wf.ctx.db, OutboxQuery{});
  EXPECT_TRUE(all.ok()) << all.status().message();
  return all.ok() ? *all : std::vector<OutboxMessage>{};
}

TEST(Notifications, NeedsYouNamesTheDecisionAndListsItsOptions) {
  Workflow wf;
  Result<int64_t> id = SendNeedsYou(wf.ctx, 12, "Raise the ad budget to $40?", {"yes", "no, keep $20"});
  ASSERT_TRUE(id.ok()) << id.status().message();
  std::vector<OutboxMessage> out = Outbox(wf);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, *id);
  EXPECT_EQ(out[0].kind, "needs_you");
  EXPECT_EQ(out[0].title, "Substack Pulse needs you");
  EXPECT_EQ(out[0].text,
            "Substack Pulse needs you: Raise the ad budget to $40?\nOptions:\n- yes\n- no, keep $20\n"
            "Answer in the Pulse tab's Needs you (decision 12).");
  EXPECT_EQ(out[0].payload, (nlohmann::json{{"decision_id", 12}}));
  EXPECT_EQ(out[0].created_at, wf.env.NowSeconds());

  ASSERT_TRUE(SendNeedsYou(wf.ctx, 13, "Pause the schedules?", {}).ok());
  out = Outbox(wf);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].text, "Substack Pulse needs you: Pause the schedules?\nAnswer in the Pulse tab's Needs you (decision 13).");
}

TEST(Notifications, RecoveryIsSentOnceWhenTheGoalIsMeasuredAgain) {
  Workflow wf;
  wf.NotMeasured();
  // The first look only remembers; the same state again sends nothing.
  Result<std::optional<int64_t>> first = NoteGoalRecovery(wf.ctx);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->has_value());
  Result<std::optional<MeasuredState>> state = LoadMeasuredState(*wf.ctx.db);
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_FALSE((*state)->measured);
  EXPECT_FALSE(NoteGoalRecovery(wf.ctx)->has_value());

  wf.OnTrack();
  Result<std::optional<int64_t>> back = NoteGoalRecovery(wf.ctx);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->has_value());
  std::vector<OutboxMessage> out = Outbox(wf);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, **back);
  EXPECT_EQ(out[0].kind, "pulse_recovery");
  EXPECT_EQ(out[0].title, "Substack Pulse: measured again");
  EXPECT_EQ(out[0].text.rfind("Substack Pulse: the goal is measured again", 0), 0u) << out[0].text;
  EXPECT_EQ(out[0].payload["check"]["status"], "on_track") << out[0].payload.dump();
  EXPECT_TRUE((*LoadMeasuredState(*wf.ctx.db))->measured);
  EXPECT_FALSE(NoteGoalRecovery(wf.ctx)->has_value());
  EXPECT_EQ(Outbox(wf).size(), 1u);
}

TEST(Notifications, TheFirstLookAtAMeasuredGoalRemembersItAndSendsNothing) {
  Workflow wf;
  wf.OnTrack();
  Result<std::optional<int64_t>> first = NoteGoalRecovery(wf.ctx);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->has_value());
  Result<std::optional<MeasuredState>> state = LoadMeasuredState(*wf.ctx.db);
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_TRUE((*state)->measured);
  EXPECT_EQ((*state)->since, wf.ctx.env->NowSeconds());
  EXPECT_TRUE(Outbox(wf).empty());
  EXPECT_FALSE(NoteGoalRecovery(wf.ctx)->has_value());
  EXPECT_TRUE(Outbox(wf).empty());
}

TEST(Notifications, AWorkflowWithoutAGoalIsLeftAlone) {
  Workflow wf;
  wf.NotMeasured();
  wf.ctx.config.primary_metric.reset();
  Result<std::optional<int64_t>> r = NoteGoalRecovery(wf.ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->has_value());
  EXPECT_FALSE(LoadMeasuredState(*wf.ctx.db)->has_value()) << "nothing is remembered without a goal";
}

}  // namespace
}  // namespace pulse

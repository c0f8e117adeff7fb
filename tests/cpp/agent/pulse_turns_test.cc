// Pulse's turns: the charters, the rules runner's one batched
// recommendation, when the daily check is due, and the built-in rules runner
// on a real database with the goal, decisions, autonomy and agent-log modules.
#include "agent/turns/pulse_turns.h"

#include <gtest/gtest.h>

#include "agent/tools/agent_api.h"
#include "agent/tools/pulse_tools.h"
#include "core/workflow/workflow_config.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::Workflow;

TEST(PulseTurns, ChartersPerTurnKind) {
  auto check = TurnCharter(TurnKind::kGoalCheck, false);
  ASSERT_TRUE(check.ok());
  EXPECT_NE(check->find("record_pulse_goal_check(verdict=\"on_track\") and stop"), std::string::npos);
  EXPECT_EQ(check->find("report-only"), std::string::npos);
  auto paused = TurnCharter(TurnKind::kGoalCheck, true);
  EXPECT_NE(paused->find("report-only"), std::string::npos);
  EXPECT_NE(TurnCharter(TurnKind::kGoalWork, false)->find("Goal Work"), std::string::npos);
  EXPECT_NE(TurnCharter(TurnKind::kAskPulse, false, /*from_owner=*/true)->find("owner wrote"), std::string::npos);
  EXPECT_EQ(TurnCharter(TurnKind::kBuilderQuestion, false).status().code(), Code::kNotFound);
  EXPECT_EQ(PulseName("substack"), "Substack Pulse");
  EXPECT_STREQ(GoalStatusWords(GoalStatus::kNotMeasured), "not measured");
}

TEST(RulesRunner, NotOnTrackRecordsRaisesOneDecisionAndOneSummary) {
  Workflow f;
  f.NotMeasured();
  json s = f.Session("goal_check");
  json out = f.Rules(s, "goal_check", "pr-1");
  EXPECT_EQ(out["outcome"], "reported");
  EXPECT_EQ(out["status"], "not_measured");
  json pending = f.Call("decision.list", {{"status", "pending"}})["decisions"];
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0]["raised_by"], "pulse");
  EXPECT_EQ(pending[0]["question"], "Substack Pulse: the goal is not measured. Which fix should come first?");
  ASSERT_TRUE(pending[0]["recommendation"].is_object());
  EXPECT_EQ(pending[0]["recommendation"]["option"], "Add a step to growth_funnel that records subscribers on every run");
  // change=ask: the decisions module refuses the safe default; the
  // recommendation stands without it.
  EXPECT_TRUE(pending[0]["recommendation"]["safe_default_by"].is_null());
  EXPECT_EQ(out["safe_default"], false);
  json outbox = f.Call("outbox.list", json::object())["messages"];
  ASSERT_EQ(outbox.size(), 1u);
  EXPECT_EQ(outbox[0]["kind"], "pulse_summary");
  EXPECT_EQ(outbox[0]["pulse_run_id"], "pr-1");
  EXPECT_EQ(outbox[0]["title"], "Substack Pulse: not measured");
  EXPECT_NE(outbox[0]["text"].get<std::string>().find("not measured by a workflow run for 20 days"), std::string::npos);
  // Every tool call of the runner went through the guard, on its session.
  json guarded = f.Call("autonomy.decisions", {{"session", s["session"]}})["decisions"];
  ASSERT_GE(guarded.size(), 2u);
  EXPECT_EQ(guarded[0]["tool"], "record_pulse_goal_check");
  EXPECT_EQ(guarded[1]["tool"], "record_pulse_recommendation");

  // The next day: recorded again, a second message, but no second decision
  // while Pulse's first is pending.
  f.env.Set(T("2026-10-08T12:00:00Z"));
  json again = f.Rules(f.Session("goal_check"), "goal_check", "pr-2");
  EXPECT_EQ(again["decision_reused"], true);
  EXPECT_EQ(again["decision_id"], pending[0]["id"]);
  EXPECT_EQ(f.Call("decision.list", {{"status", "pending"}})["decisions"].size(), 1u);
  EXPECT_EQ(f.Call("outbox.list", json::object())["messages"].size(), 2u);
  EXPECT_NE(again["summary"].get<std::string>().find("Still waiting on you"), std::string::npos);
}

TEST(RulesRunner, WithChangeAutoTheSafeDefaultIsKept) {
  Workflow f("auto");
  f.NotMeasured();
  json out = f.Rules(f.Session("goal_check"), "goal_check", "pr-1");
  EXPECT_EQ(out["safe_default"], true) << out.dump();
  json pending = f.Call("decision.list", {{"status", "pending"}})["decisions"];
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0]["recommendation"]["safe_default_by"], "2026-10-09T12:00:00Z");
}

TEST(RulesRunner, OnTrackRecordsAndStops) {
  Workflow f;
  f.OnTrack();
  json out = f.Rules(f.Session("goal_check"), "goal_check", "pr-1");
  EXPECT_EQ(out["outcome"], "on_track") << out.dump();
  EXPECT_EQ(f.Call("decision.list", {{"status", "all"}})["decisions"].size(), 0u);
  EXPECT_EQ(f.Call("outbox.list", json::object())["messages"].size(), 0u);
  // Recorded: the goal module says today's check is done.
  json due = f.Call("goal.check_due", {{"pulse_pass_active", false}, {"running_checks", 0}, {"cap", 2}});
  EXPECT_EQ(due["due"], false);
  EXPECT_EQ(due["reason"], "checked_today");
}

TEST(RulesRunner, AMessageGetsAReplyFromTheFacts) {
  Workflow f;
  f.NotMeasured();
  json out = f.Call("turn.rules", {{"kind", "ask_pulse"}, {"session", f.Session("ask_pulse")["session"]},
                                   {"pulse_run_id", "pr-3"}, {"message", "How are we doing?"}});
  EXPECT_EQ(out["outcome"], "replied");
  json outbox = f.Call("outbox.list", json::object())["messages"];
  ASSERT_EQ(outbox.size(), 1u);
  EXPECT_EQ(outbox[0]["kind"], "pulse_reply");
  EXPECT_EQ(outbox[0]["payload"]["message"], "How are we doing?");
  EXPECT_EQ(outbox[0]["text"].get<std::string>().rfind("Goal: not measured", 0), 0u);
  EXPECT_EQ(CallApi(f.ctx, "turn.rules", json{{"kind", "run_failed"}}).status().code(), Code::kInvalidArgument);

  // With Pulse's decision pending (its recommendation has an option and a
  // null text) the reply names it.
  f.Rules(f.Session("goal_check"), "goal_check", "pr-4");
  json again = f.Call("turn.rules", {{"kind", "ask_pulse"}, {"session", f.Session("ask_pulse")["session"]},
                                     {"pulse_run_id", "pr-5"}, {"message", "And now?"}});
  EXPECT_NE(again["summary"].get<std::string>().find("Waiting on you: decision"), std::string::npos) << again.dump();
  EXPECT_NE(again["summary"].get<std::string>().find("Pulse recommends: Add a step to growth_funnel"), std::string::npos);
}

TEST(TurnCheckDue, OneGoalCheckTurnADayEvenWhenNothingWasRecorded) {
  Workflow f;
  f.NotMeasured();
  json args = {{"pulse_pass_active", false}, {"running_checks", 0}, {"cap", 2}};
  EXPECT_EQ(f.Call("turn.check_due", args)["due"], true);
  // A turn started (say an external runner that crashed before recording).
  f.Call("agent_log.started", {{"session", "schedule-x"}, {"agent", "pulse-turn-goal_check-1"}, {"kind", "goal_check"},
                               {"pulse_run_id", "pr-1"}, {"at", "2026-10-07T09:00:00Z"}});
  json due = f.Call("turn.check_due", args);
  EXPECT_EQ(due["due"], false);
  EXPECT_NE(due["reason"].get<std::string>().find("already started today"), std::string::npos);
  // The next day it is due again.
  f.env.Set(T("2026-10-08T09:00:00Z"));
  EXPECT_EQ(f.Call("turn.check_due", args)["due"], true);
  // Beside a running pass, never.
  args["pulse_pass_active"] = true;
  EXPECT_EQ(f.Call("turn.check_due", args)["due"], false);
}

}  // namespace
}  // namespace pulse

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

// The goal check's context carries what happened since the last check: a
// Builder's change to a step of the goal's route shows as a plan change that
// touches the goal, from the session Pulse should ask about it, with the
// charter's rule to ask the Builder first; the open focus areas come too.
TEST(TurnContext, TheGoalCheckSeesAPlanChangeAndTheOpenFocusAreas) {
  Workflow f;
  f.NotMeasured();
  testing::WriteFile(f.w.paths.dir + "/planning/plan.json", R"({"routes": {"growth_funnel": {"steps": ["s-grow"]}}})");
  testing::WriteFile(f.w.paths.dir + "/chats.json", R"([{"session_id": "b-1", "kind": "builder", "account": "ana"}])");
  testing::WriteFile(f.w.paths.dir + "/planning/changelog.jsonl",
                     R"({"at": "2026-10-06T10:00:00Z", "tool": "update_step", "reason": "drop the subscriber export",)"
                     R"( "steps": ["s-grow"], "who": "ana", "session": "b-1"})" "\n");
  f.Call("focus.change", {{"action", "propose"}, {"title", "Measure subscribers daily"}, {"end_date", "2026-10-20"}});
  json turn = f.Call("turn.context", {{"kind", "goal_check"}});
  const json& changes = turn["context"]["goal_status"]["facts"]["plan_changes"];
  ASSERT_EQ(changes.size(), 1u) << turn["context"]["goal_status"].dump(2);
  EXPECT_EQ(changes[0]["tool"], "update_step");
  EXPECT_EQ(changes[0]["reason"], "drop the subscriber export");
  EXPECT_EQ(changes[0]["who"], "ana");
  EXPECT_EQ(changes[0]["session"], "b-1");
  EXPECT_TRUE(changes[0]["touches_goal"].get<bool>());
  EXPECT_TRUE(changes[0]["builder_chat"].get<bool>());
  const std::string charter = turn["charter"];
  EXPECT_NE(charter.find("ask_builder(kind=question, builder_session_id"), std::string::npos);
  // Outcomes to record are in the charter and in the context.
  EXPECT_NE(charter.find("outcomes_due"), std::string::npos);
  EXPECT_NE(charter.find("record_pulse_decision_outcome"), std::string::npos);
  EXPECT_TRUE(turn["context"]["pending_decisions"]["outcomes_due"].is_array());
  EXPECT_TRUE(turn["context"]["goal_lead"]["memory"].contains("consolidate_due"));
  const json& areas = turn["context"]["goal_lead"]["focus_areas"]["focus_areas"];
  ASSERT_EQ(areas.size(), 1u);
  EXPECT_EQ(areas[0]["title"], "Measure subscribers daily");
  EXPECT_EQ(areas[0]["status"], "proposed");
  // Goal Work's context carries the same facts.
  json work = f.Call("turn.context", {{"kind", "goal_work"}});
  EXPECT_EQ(work["context"]["goal_status"]["facts"]["plan_changes"].size(), 1u);
  EXPECT_NE(work["charter"].get<std::string>().find("when memory passes 45 entries, rewrite your own lines with action=\"consolidate\" and entries"),
            std::string::npos);
}

// Login hints raise needs re-auth, and the Pulse summary says in one line
// what to re-connect.
TEST(RulesRunner, LoginHintsPutOneNeedsReauthLineInTheSummary) {
  Workflow f;
  f.NotMeasured();
  testing::WriteFile(f.w.paths.runs_dir + "/iteration-3/default/run.json",
                     R"({"run_id": "r-3", "started_at": "2026-10-06T09:00:00Z", "finished_at": "2026-10-06T09:10:00Z",)"
                     R"( "status": "failed", "error": "gmail: token refresh failed: invalid_grant"})");
  json out = f.Rules(f.Session("goal_check"), "goal_check", "pr-1");
  EXPECT_EQ(out["outcome"], "reported") << out.dump();
  json outbox = f.Call("outbox.list", json::object())["messages"];
  ASSERT_EQ(outbox.size(), 1u);
  std::string text = outbox[0]["text"];
  const std::string line =
      "Needs re-auth: re-connect what run r-3 uses (invalid_grant in its error: \"invalid_grant\").";
  EXPECT_NE(text.find("\n" + line), std::string::npos) << text;
  EXPECT_EQ(text.find(line), text.rfind(line)) << "one line";
  EXPECT_TRUE(outbox[0]["payload"]["needs_reauth"].get<bool>());
  // The check is recorded: a reader still sees what it saw (from the check
  // before it), while the next check reads from here, the failed run behind it.
  EXPECT_TRUE(f.Call("goal.check", json::object())["needs_reauth"].get<bool>());
  EXPECT_FALSE(f.Call("goal.check", {{"record", true}})["needs_reauth"].get<bool>());
}


// An ask turn's charter follows who wrote (issue #32): an editor's Slack
// message (caller bot) is not framed as the owner's, and the runner's
// context says who it was.
TEST(PulseTurns, AnAskIsAnOwnerRelayOnlyForTheOwnersMessage) {
  auto owner = TurnCharter(TurnKind::kAskPulse, false, /*from_owner=*/true);
  auto other = TurnCharter(TurnKind::kAskPulse, false, /*from_owner=*/false);
  ASSERT_TRUE(owner.ok() && other.ok());
  EXPECT_NE(owner->find("this is an owner relay"), std::string::npos);
  EXPECT_EQ(other->find("The owner wrote"), std::string::npos) << *other;
  EXPECT_EQ(other->find("this is an owner relay"), std::string::npos) << *other;
  EXPECT_NE(other->find("not its owner"), std::string::npos) << *other;
  EXPECT_NE(other->find("not an owner relay"), std::string::npos) << *other;
  EXPECT_EQ(other->find("source \"owner answer\""), std::string::npos) << *other;
  EXPECT_EQ(*TurnCharter(TurnKind::kAskPulse, false), *other) << "an unknown caller is not the owner";
}
}  // namespace
}  // namespace pulse

// Pulse's recording tools (agent/tools/pulse_tools_record.cc) on a real workflow:
// a decision request carrying the refusal it stands in for and telling the
// owner, goal memory adds and refusals, QA and fast requests, and a name
// that is not one of these tools.
#include "agent/outbox/outbox.h"
#include "agent/tools/pulse_tools.h"
#include "agent/turns/pulse_conversation.h"
#include "core/goal/goal_memory.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

Result<json> Record(Workflow& wf, const std::string& name, const json& args, const std::string& session = "") {
  return ExecuteRecordTool(wf.ctx, session, name, Args(name, args));
}

json Tool(Workflow& wf, const json& s, const std::string& tool, const json& args) {
  return wf.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", tool}, {"arguments", args}});
}

TEST(RecordTools, ADecisionRequestCarriesTheRefusalBeforeItAndTellsTheOwner) {
  Workflow wf("ask");
  json s = wf.Session("goal_work");
  json refused = Tool(wf, s, "update_step", {{"step_id", "draft"}});
  ASSERT_EQ(refused["refused"], true);
  json asked = Tool(wf, s, "create_decision_request",
                    {{"question", "May I edit step draft?"}, {"options", {"yes", "no"}}, {"why", "it never records"}});
  ASSERT_EQ(asked["executed"], true) << asked.dump();
  const json& r = asked["result"];
  EXPECT_EQ(r["status"], "pending");
  EXPECT_EQ(r["context"]["refused_call"]["tool"], "update_step");
  EXPECT_EQ(r["context"]["refused_call"]["rule"], refused["rule"]);
  std::vector<OutboxMessage> out = *ListOutbox(*wf.ctx.db, OutboxQuery{});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, r["outbox_id"].get<int64_t>());
  EXPECT_EQ(out[0].kind, "needs_you");
  EXPECT_EQ(out[0].payload["decision_id"], r["decision_id"]);

  // The next request in the session stands for no refusal: the one before
  // was answered by the first request.
  json again = Tool(wf, s, "create_decision_request", {{"question", "Post twice a week?"}});
  ASSERT_EQ(again["executed"], true) << again.dump();
  EXPECT_FALSE(again["result"].contains("context")) << again.dump();
  EXPECT_NE(again["result"]["decision_id"], r["decision_id"]);
}

TEST(RecordTools, ADecisionRequestNeedsAQuestion) {
  Workflow wf;
  Result<json> none = Record(wf, "create_decision_request", {{"options", {"a"}}});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "create_decision_request: \"question\" is required");
  Result<json> blank = Record(wf, "create_decision_request", {{"question", "   "}});
  ASSERT_FALSE(blank.ok());
  Result<json> bad = Record(wf, "create_decision_request", {{"question", "Q?"}, {"options", "a"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"options\""), std::string::npos) << bad.status().message();
  EXPECT_TRUE(ListOutbox(*wf.ctx.db, OutboxQuery{})->empty());
}

TEST(RecordTools, GoalMemoryAddsPulsesLinesAndRefusesTheRest) {
  Workflow wf;
  Result<json> add = Record(wf, "record_pulse_goal_memory", {{"section", "lessons"}, {"text", "measure weekly"}});
  ASSERT_TRUE(add.ok()) << add.status().message();
  EXPECT_EQ((*add)["action"], "add");
  EXPECT_NE(testing::ReadFileOrDie(wf.w.paths.goal_memory).find("[Pulse inference] measure weekly"), std::string::npos);

  Result<json> forget = Record(wf, "record_pulse_goal_memory", {{"action", "forget"}});
  ASSERT_FALSE(forget.ok());
  EXPECT_EQ(forget.status().message(), "record_pulse_goal_memory: \"action\" must be add or consolidate, not \"forget\"");
  Result<json> few = Record(wf, "record_pulse_goal_memory", {{"action", "consolidate"}, {"entries", 3}});
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.status().code(), Code::kInvalidArgument);
  EXPECT_NE(few.status().message().find("\"entries\""), std::string::npos) << few.status().message();
  Result<json> owner = Record(wf, "record_pulse_goal_memory",
                              {{"section", "owner"}, {"text", "the owner wants X"}, {"source", "owner_answer"}});
  ASSERT_FALSE(owner.ok());
  EXPECT_EQ(owner.status().code(), Code::kRefused);
  Result<json> section = Record(wf, "record_pulse_goal_memory", {{"section", "gossip"}, {"text", "x"}});
  EXPECT_FALSE(section.ok());
  Result<json> tidy = Record(wf, "record_pulse_goal_memory", {{"action", "consolidate"}});
  ASSERT_TRUE(tidy.ok()) << tidy.status().message();
  EXPECT_EQ((*tidy)["action"], "consolidate");
}

TEST(RecordTools, ConsolidateWithEntriesRewritesPulsesLinesOnly) {
  Workflow wf;
  testing::WriteFile(wf.w.paths.goal_memory, EmptyGoalMemory() + "- 2026-09-01 [result] The owner's own line.\n");
  ASSERT_TRUE(Record(wf, "record_pulse_goal_memory", {{"section", "lessons"}, {"text", "old lesson"}}).ok());
  ASSERT_TRUE(Record(wf, "record_pulse_goal_memory", {{"section", "bets"}, {"text", "stale bet"}}).ok());
  Result<json> rewrite = Record(wf, "record_pulse_goal_memory",
                                {{"action", "consolidate"},
                                 {"entries", {{{"section", "lessons"}, {"text", "old lesson"}},
                                              {{"section", "Decisions and outcomes"}, {"text", "resumed; runs measure now"},
                                               {"source", "result"}}}}});
  ASSERT_TRUE(rewrite.ok()) << rewrite.status().message();
  EXPECT_EQ((*rewrite)["rewrite"], true);
  EXPECT_EQ((*rewrite)["dropped"], 1);
  const std::string text = testing::ReadFileOrDie(wf.w.paths.goal_memory);
  EXPECT_NE(text.find("- 2026-09-01 [result] The owner's own line.\n"), std::string::npos);
  EXPECT_NE(text.find("[Pulse inference] old lesson"), std::string::npos);
  EXPECT_NE(text.find("[result] resumed; runs measure now"), std::string::npos);
  EXPECT_EQ(text.find("stale bet"), std::string::npos);
  Result<json> bad = Record(wf, "record_pulse_goal_memory",
                            {{"action", "consolidate"}, {"entries", {{{"section", "lessons"}}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "record_pulse_goal_memory: entries[0]: \"text\" is required");
  Result<json> voice = Record(wf, "record_pulse_goal_memory",
                              {{"action", "consolidate"},
                               {"entries", {{{"section", "owner"}, {"text", "x"}, {"source", "owner answer"}}}}});
  ASSERT_FALSE(voice.ok());
  EXPECT_EQ(voice.status().code(), Code::kRefused);
}

TEST(RecordTools, AnOwnerRelayTurnMayWriteTheOwnersDirectionAsAnOwnerLine) {
  Workflow wf;
  ASSERT_TRUE(PrepareConversationTurn(wf.ctx, TurnKind::kAskPulse).ok());
  TurnStart start;
  start.turn = "ask_pulse";
  start.caller = Caller::kOwner;
  start.text = "From now on, weekly posts only.";
  Result<ConversationTurnHandle> h = BeginConversationTurn(wf.ctx, TurnKind::kAskPulse, start);
  ASSERT_TRUE(h.ok()) << h.status().message();
  const std::string session = h->session.session.id;
  Result<json> relay = Record(wf, "record_pulse_goal_memory",
                              {{"section", "owner"}, {"text", "Weekly posts only"}, {"source", "owner_answer"}}, session);
  ASSERT_TRUE(relay.ok()) << relay.status().message();
  EXPECT_NE(testing::ReadFileOrDie(wf.w.paths.goal_memory).find("[owner answer] Weekly posts only"), std::string::npos);
  ASSERT_TRUE(EndConversationTurn(wf.ctx, h->turn.id, TurnState::kCompleted, "noted", "").ok());

  // The next turn is the tick's: no owner's voice in it.
  start.caller = Caller::kTick;
  start.turn = "goal_check";
  Result<ConversationTurnHandle> tick = BeginConversationTurn(wf.ctx, TurnKind::kGoalCheck, start);
  ASSERT_TRUE(tick.ok());
  Result<json> not_owner = Record(wf, "record_pulse_goal_memory",
                                  {{"section", "owner"}, {"text", "daily is fine"}, {"source", "owner_answer"}},
                                  tick->session.session.id);
  ASSERT_FALSE(not_owner.ok());
  EXPECT_EQ(not_owner.status().code(), Code::kRefused);
}

TEST(RecordTools, QaAndFastRequestsAreRecordedForTheSessionAndAFastOneCoalesces) {
  Workflow wf;
  Result<json> qa = Record(wf, "record_pulse_qa_request", {{"what", "step-3 writes subscribers.json"}, {"why", "r-2"}},
                           "p-1");
  ASSERT_TRUE(qa.ok()) << qa.status().message();
  EXPECT_EQ((*qa)["status"], "pending");
  EXPECT_EQ((*qa)["coalesced"], false);
  EXPECT_EQ((*qa)["request"]["what"], "step-3 writes subscribers.json");
  EXPECT_EQ((*qa)["request"]["session"], "p-1");
  Result<json> no_what = Record(wf, "record_pulse_qa_request", {{"why", "r-2"}});
  ASSERT_FALSE(no_what.ok());
  EXPECT_EQ(no_what.status().message(), "record_pulse_qa_request: \"what\" is required");

  Result<json> fast = Record(wf, "record_pulse_fast_request", {{"why", "the owner resumed the schedules"}}, "p-1");
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  EXPECT_EQ((*fast)["request"]["what"], "the owner resumed the schedules");
  Result<json> second = Record(wf, "record_pulse_fast_request", {{"why", "a run failed"}}, "p-1");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)["coalesced"], true);
  EXPECT_EQ((*second)["request_id"], (*fast)["request_id"]);
  Result<json> no_why = Record(wf, "record_pulse_fast_request", {{"what", "x"}});
  ASSERT_FALSE(no_why.ok());
  EXPECT_EQ(no_why.status().message(), "record_pulse_fast_request: \"why\" is required");
}

TEST(RecordTools, PulseProposesFocusAreasButConfirmingIsTheOwners) {
  Workflow wf;
  Result<json> confirm = Record(wf, "record_pulse_focus_area", {{"action", "confirm"}, {"id", 1}});
  ASSERT_FALSE(confirm.ok());
  Result<json> other = Record(wf, "get_pulse_state", json::object());
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), Code::kNotFound);
  EXPECT_EQ(other.status().message(), "\"get_pulse_state\" is not one of Pulse's recording tools");
}

}  // namespace
}  // namespace pulse

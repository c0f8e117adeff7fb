// ask_pulse as a turn of Pulse's conversation (agent/turns/pulse_asks.cc) on a
// real workflow: the call read and refused by name, the round opened (an
// owner relay when chats.json lists the owner's Builder chat), queued past
// the hourly cap and started by the tick, the turn's words, its end, and the
// tool a workflow step calls.
#include "agent/turns/pulse_asks.h"

#include "core/autonomy/tool_sessions.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

Result<AskCall> Read(const json& doc) { return ReadAskCall(Args("ask", doc)); }

AskCall Call(const std::string& message, const std::string& session = "b-1", const std::string& thread = "") {
  json doc = {{"caller", "builder"}, {"session", session}, {"account", "ana"}, {"message", message}};
  if (!thread.empty()) doc["thread_id"] = thread;
  Result<AskCall> c = Read(doc);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : AskCall{};
}

std::string Message(const Result<AskCall>& r) { return r.ok() ? "ok" : r.status().message(); }

TEST(PulseAsks, TheCallIsReadWithEachProblemNamed) {
  EXPECT_EQ(Message(Read({{"session", "b-1"}, {"message", "m"}})), "ask: \"caller\" is required");
  EXPECT_EQ(Message(Read({{"caller", "owner"}, {"session", "b-1"}, {"message", "m"}})),
            "ask: \"caller\" must be builder, run, step or bot, not \"owner\"");
  EXPECT_EQ(Message(Read({{"caller", "run"}, {"session", "r-1"}})), "ask: \"message\" is required");
  EXPECT_EQ(Message(Read({{"caller", "run"}, {"session", "r-1"}, {"message", "m"}, {"wait_seconds", 121}})).rfind(
                "ask: \"wait_seconds\"", 0),
            0u);
  Result<AskCall> self = Read({{"caller", "step"}, {"session", "schedule-goallead--substack"}, {"message", "m"}});
  ASSERT_FALSE(self.ok());
  EXPECT_EQ(self.status().code(), Code::kRefused);

  // Asking again for an answer needs no message; "thread" spells thread_id.
  Result<AskCall> again = Read({{"caller", "run"}, {"session", "r-1"}, {"call_id", "c-1"}, {"thread", "th-1"}});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->call_id, "c-1");
  EXPECT_EQ(again->ask.thread_id, "th-1");
  EXPECT_EQ(again->wait_seconds, kAskPulseWaitDefault);
}

TEST(PulseAsks, ARoundOpensWithItsTurnInputAndAnOwnersBuilderChatIsARelay) {
  Workflow wf;
  testing::WriteFile(wf.w.paths.dir + "/chats.json",
                     R"([{"session_id": "b-1", "kind": "builder", "account": "ana", "live": true}])");
  Result<AskStart> relay = BeginAskPulse(wf.ctx, Call("Focus on referrals this month."));
  ASSERT_TRUE(relay.ok()) << relay.status().message();
  EXPECT_TRUE(relay->start_turn);
  EXPECT_TRUE(relay->record.owner_relay);
  const json& in = relay->turn_input;
  EXPECT_EQ(in["message"], "Focus on referrals this month.");
  EXPECT_EQ(in["caller"], "owner");
  EXPECT_EQ(in["account"], "ana");
  EXPECT_EQ(in["ask"]["call_id"], relay->record.call_id);
  EXPECT_EQ(in["ask"]["round"], 1);
  EXPECT_EQ(in["ask"]["caller"], "builder");

  Result<AskStart> other = BeginAskPulse(wf.ctx, Call("Which option?", "b-9"));
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_FALSE(other->record.owner_relay) << "b-9 is not in chats.json";
  EXPECT_EQ(other->turn_input["caller"], "builder");

  // Asking again for a running ask starts nothing new.
  AskCall again = Call("(asking again)");
  again.call_id = relay->record.call_id;
  Result<AskStart> read = BeginAskPulse(wf.ctx, again);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_FALSE(read->start_turn);
  EXPECT_EQ(read->record.status, "running");
  again.ask.session = "b-2";
  EXPECT_EQ(BeginAskPulse(wf.ctx, again).status().code(), Code::kRefused) << "another session's ask";
}

TEST(PulseAsks, AnAskOverTheHourlyCapWaitsForTheTick) {
  Workflow wf;
  for (int i = 0; i < kAsksPerHour; ++i) ASSERT_TRUE(BeginAskPulse(wf.ctx, Call("ask " + std::to_string(i))).ok());
  Result<AskStart> over = BeginAskPulse(wf.ctx, Call("one more"));
  ASSERT_TRUE(over.ok()) << over.status().message();
  EXPECT_FALSE(over->start_turn);
  EXPECT_EQ(over->record.status, "queued");
  EXPECT_TRUE(over->turn_input.is_null());
  Result<std::optional<AskStart>> early = StartNextQueuedAsk(wf.ctx);
  ASSERT_TRUE(early.ok());
  EXPECT_FALSE(early->has_value());
  wf.env.Advance(kAskWindowSeconds);
  Result<std::optional<AskStart>> started = StartNextQueuedAsk(wf.ctx);
  ASSERT_TRUE(started.ok()) << started.status().message();
  ASSERT_TRUE(started->has_value());
  EXPECT_EQ((*started)->record.call_id, over->record.call_id);
  EXPECT_EQ((*started)->record.status, "running");
  EXPECT_EQ((*started)->turn_input["message"], "one more");
  EXPECT_FALSE(StartNextQueuedAsk(wf.ctx)->has_value());
}

TEST(PulseAsks, TheTurnIsToldWhoAsksTheRoundAndTheDecisionLines) {
  json ask = {{"caller", "run"}, {"session", "r-1"}, {"thread_id", "th-1"}, {"round", 2}, {"owner_relay", false}};
  std::string text = AskTurnText(ask, "Is the drop real?");
  EXPECT_EQ(text.rfind("PULSE TURN ask_pulse (round 2 of at most 6 of thread th-1)\n"
                       "This is an ask_pulse turn: a Run chat (r-1) asks you, the goal expert. It only asks for your "
                       "recommendation",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("\n\nThe Run chat wrote:\nIs the drop real?"), std::string::npos) << text;
  EXPECT_EQ(text.find("last round"), std::string::npos);

  ask["round"] = kThreadMaxRounds;
  ask["owner_relay"] = true;
  ask["account"] = "ana";
  text = AskTurnText(ask, "Decide.");
  EXPECT_NE(text.find("(r-1, account ana)"), std::string::npos) << text;
  EXPECT_NE(text.find("an owner relay, the owner's voice"), std::string::npos);
  EXPECT_NE(text.find("This is the thread's last round: decide now."), std::string::npos);
  EXPECT_NE(text.find("The owner wrote in their Builder chat:\nDecide."), std::string::npos);

  std::string charter = AskCharter("substack", ask, true);
  EXPECT_NE(charter.find("This is an ask_pulse turn"), std::string::npos);
  EXPECT_NE(charter.find("this is a report-only turn"), std::string::npos);
  EXPECT_EQ(AskCharter("substack", ask, false).find("report-only"), std::string::npos);
}

TEST(PulseAsks, TheTurnsEndDecidesTheThreadOrSaysWhyThereIsNoAnswer) {
  Workflow wf;
  std::vector<AskRecord> asks;
  for (int i = 0; i < 4; ++i) asks.push_back(BeginAskPulse(wf.ctx, Call("ask " + std::to_string(i)))->record);
  auto finish = [&](int i, bool ok, const std::string& reply, const std::string& error, const std::string& state) {
    json ask = {{"call_id", asks[i].call_id}};
    EXPECT_TRUE(FinishAskTurn(wf.ctx, ask, 10 + i, ok, reply, error, state).ok());
    return *Asks(*wf.ctx.db, wf.ctx.workflow).Get(asks[i].call_id);
  };
  AskRecord decided = finish(0, true, "decision: add a step because nothing measures it\nowner_needed: no", "", "");
  EXPECT_EQ(decided.status, "answered");
  EXPECT_TRUE(decided.lines.decided());
  EXPECT_FALSE(decided.thread_open);
  EXPECT_EQ(finish(1, false, "", "runner timed out after 600 s", "failed").status, "timeout");
  EXPECT_EQ(finish(2, false, "", "server stopped", "interrupted").status, "interrupted");
  AskRecord failed = finish(3, false, "", "runner exited 2", "failed");
  EXPECT_EQ(failed.status, "failed");
  EXPECT_EQ(failed.error, "runner exited 2");
}

TEST(PulseAsks, AStepAsksThroughTheToolButPulsesOwnTurnsNever) {
  Workflow wf;
  ToolSession step;
  step.id = "step-1";
  step.turn = TurnKind::kWorkflowStep;
  EXPECT_EQ(AskPulseTool(wf.ctx, step, json::array()).status().code(), Code::kInvalidArgument);
  Result<json> none = AskPulseTool(wf.ctx, step, {{"message", "m"}});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message().rfind("ask_pulse: this process runs no Pulse turns", 0), 0u);

  AskCall seen;
  AskPulseWaiter waiter = [&](ApiContext&, const AskCall& call) -> Result<json> {
    seen = call;
    return json{{"status", "answered"}};
  };
  SetAskPulseWaiter(&waiter);
  Result<json> asked = AskPulseTool(wf.ctx, step, {{"question", "Is the goal on track?"}, {"wait_seconds", 5}});
  json pulse_turn = wf.Session("goal_check");
  ToolSession helper;
  helper.id = "helper-1";
  helper.root = pulse_turn["session"].get<std::string>();
  Result<json> refused = AskPulseTool(wf.ctx, helper, {{"message", "m"}});
  SetAskPulseWaiter(nullptr);
  ASSERT_TRUE(asked.ok()) << asked.status().message();
  EXPECT_EQ(seen.ask.caller, "step");
  EXPECT_EQ(seen.ask.session, "step-1");
  EXPECT_EQ(seen.ask.message, "Is the goal on track?");
  EXPECT_EQ(seen.wait_seconds, 5);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kRefused);
  EXPECT_NE(refused.status().message().find("is a step of a goal_check turn"), std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace pulse

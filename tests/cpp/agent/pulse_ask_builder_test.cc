// ask_builder and the apply message (agent/turns/pulse_ask_builder.cc) on a real
// workflow: the call read and a fix that is the owner's refused; with no
// Builder chat or no Builder command a question is answered so and a fix
// becomes one decision with Pulse's recommendation; through the Builder
// channel (the server's seam for its --builder command) a question's answer
// is kept in goal memory; the owner's Accept sends the apply message.
#include "agent/turns/pulse_asks.h"

#include <cstdio>

#include "agent/outbox/outbox.h"
#include "agent/tools/pulse_tools.h"
#include "core/asks/ask_builder.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

// The Builder channel's seam answered in-process: it keeps each request and
// answers with `reply`.
class AnsweringChannel : public BuilderChannel {
 public:
  BuilderTurnResult Run(const BuilderTurnRequest& request) const override {
    requests.push_back(request);
    return BuilderTurnResult{"answered", reply, "", "guard-1"};
  }
  std::string reply = "step-3 writes subscribers.json after the fetch";
  mutable std::vector<BuilderTurnRequest> requests;
};

class AskBuilder : public ::testing::Test {
 protected:
  void TearDown() override { SetBuilderChannel(nullptr); }
  void Chats(const std::string& extra = "") {
    testing::WriteFile(wf_.w.paths.dir + "/chats.json",
                       R"([{"session_id": "b-1", "kind": "builder", "account": "ana", "live": true)" + extra + "}]");
  }
  std::string Session() { return wf_.Session("goal_work")["session"].get<std::string>(); }
  Result<json> Ask(const json& args, const std::string& session = "") {
    return AskBuilderTool(wf_.ctx, session.empty() ? Session() : session, Args("ask_builder", args));
  }
  std::vector<AskRecord> Asked() { return *Asks(*wf_.ctx.db, wf_.ctx.workflow).List(AskDirection::kToBuilder); }
  Workflow wf_{"ask"};
  AnsweringChannel channel_;
};

TEST_F(AskBuilder, TheCallIsReadAndAFixThatIsTheOwnersIsRefusedBeforeAnythingIsAsked) {
  Result<json> kind = Ask({{"kind", "poem"}, {"message", "m"}});
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().message(), "ask_builder: \"kind\" must be question or fix, not \"poem\"");
  EXPECT_EQ(Ask({{"kind", "question"}}).status().message(), "ask_builder: \"message\" is required");
  EXPECT_FALSE(Ask({{"kind", "question"}, {"message", "m"}, {"wait_seconds", 0}}).ok());
  const std::pair<const char*, const char*> cases[] = {
      {"Edit soul.md to say weekly", "soul.md is the owner's"},
      {"Delete the draft step", "deletions are the owner's"},
      {"Migrate to contract version 3", "contract migrations are the owner's"},
  };
  for (const auto& [message, why] : cases) {
    Result<json> r = Ask({{"kind", "fix"}, {"message", message}});
    ASSERT_FALSE(r.ok()) << message;
    EXPECT_EQ(r.status().code(), Code::kRefused);
    EXPECT_EQ(r.status().message(), std::string("ask_builder: a fix is refused here (") + why +
                                        "); raise it with create_decision_request instead");
  }
  EXPECT_TRUE(Asked().empty());
}

TEST_F(AskBuilder, WithoutABuilderChatAQuestionIsAnsweredSoAndAFixBecomesADecision) {
  Result<json> q = Ask({{"kind", "question"}, {"message", "Which step writes subscribers?"}});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ((*q)["status"], "no_builder_chat");
  EXPECT_TRUE((*q)["answer"].is_null());
  EXPECT_EQ((*q)["note"].get<std::string>().rfind("no Builder chat of the owner's in chats.json; no chat is created", 0),
            0u);

  Result<json> fix = Ask({{"kind", "fix"}, {"message", "Record subscribers in step-3"}, {"title", "Measure the goal"}});
  ASSERT_TRUE(fix.ok()) << fix.status().message();
  EXPECT_EQ((*fix)["status"], "decision");
  const int64_t id = (*fix)["decision_id"].get<int64_t>();
  json d;
  const json list = wf_.Call("decision.list", json::object());
  for (const json& one : list["decisions"]) {
    if (one["id"] == id) d = one;
  }
  EXPECT_EQ(d["question"], "Pulse asks for a fix: Measure the goal") << list.dump();
  EXPECT_EQ(d["options"], (json{"Make this fix", "Not now"}));
  std::vector<AskRecord> asked = Asked();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].status, "decision");
  EXPECT_EQ(asked[0].detail["decision_id"], id);
  EXPECT_EQ(asked[1].status, "no_builder_chat");

  // A chat but no --builder command: the same, for that reason.
  Chats();
  Result<json> no_channel = Ask({{"kind", "question"}, {"message", "Which route?"}});
  ASSERT_TRUE(no_channel.ok());
  EXPECT_EQ((*no_channel)["note"].get<std::string>().rfind(
                "this server has no Builder command (pulse serve --builder)", 0),
            0u);
}

TEST_F(AskBuilder, ThroughTheChannelAQuestionsAnswerIsKeptAndABusyChatIsRefused) {
  Chats();
  SetBuilderChannel(&channel_);
  Result<json> q = Ask({{"kind", "question"}, {"message", "Which step writes subscribers?"}, {"wait_seconds", 30}});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ((*q)["status"], "answered");
  EXPECT_EQ((*q)["answer"], channel_.reply);
  EXPECT_EQ((*q)["builder_session_id"], "b-1");
  EXPECT_EQ((*q)["in_memory"], true);
  ASSERT_EQ(channel_.requests.size(), 1u);
  const BuilderTurnRequest& req = channel_.requests[0];
  EXPECT_EQ(req.chat_session, "b-1");
  EXPECT_EQ(req.kind, "question");
  EXPECT_EQ(req.turn, TurnKind::kBuilderQuestion);
  EXPECT_EQ(req.wait_seconds, 30);
  EXPECT_EQ(req.extra["call_id"], (*q)["call_id"]);
  EXPECT_NE(testing::ReadFileOrDie(wf_.w.paths.goal_memory).find("Builder chat b-1 on \"Which step writes subscribers?\""),
            std::string::npos);

  // Change is ask: a fix is not sent, it waits for the owner.
  Result<json> fix = Ask({{"kind", "fix"}, {"message", "Record subscribers in step-3"}});
  ASSERT_TRUE(fix.ok()) << fix.status().message();
  EXPECT_EQ((*fix)["status"], "decision");
  EXPECT_EQ((*fix)["note"].get<std::string>().rfind("pulse.autonomy.change is ask: the fix waits", 0), 0u);
  EXPECT_EQ(channel_.requests.size(), 1u);

  Chats(R"(, "busy": true)");
  Result<json> busy = Ask({{"kind", "question"}, {"message", "Again?"}});
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.status().code(), Code::kRefused);
  EXPECT_NE(busy.status().message().find("Builder chat b-1 is busy with another turn"), std::string::npos);
  EXPECT_EQ(Asked()[0].status, "busy");
}

TEST_F(AskBuilder, AChatRemovedFromChatsJsonIsNoLongerAskedAndAMissingFileIsNoChats) {
  Chats();
  SetBuilderChannel(&channel_);
  Result<json> q = Ask({{"kind", "question"}, {"message", "Which step writes subscribers?"}});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ((*q)["builder_session_id"], "b-1");
  ASSERT_EQ(channel_.requests.size(), 1u);

  // The platform removed the chat: an empty list, then no file at all.
  testing::WriteFile(wf_.w.paths.dir + "/chats.json", "[]");
  Result<json> empty = Ask({{"kind", "question"}, {"message", "Which route?"}});
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ((*empty)["status"], "no_builder_chat");
  EXPECT_EQ(channel_.requests.size(), 1u);
  Chats();
  Result<json> back = Ask({{"kind", "question"}, {"message", "And now?"}});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ((*back)["builder_session_id"], "b-1");
  ASSERT_EQ(channel_.requests.size(), 2u);
  ASSERT_EQ(std::remove((wf_.w.paths.dir + "/chats.json").c_str()), 0);
  Result<json> gone = Ask({{"kind", "question"}, {"message", "Which route now?"}});
  ASSERT_TRUE(gone.ok()) << gone.status().message();
  EXPECT_EQ((*gone)["status"], "no_builder_chat") << gone->dump();
  EXPECT_EQ(channel_.requests.size(), 2u) << "the chat b-1, gone with chats.json, was asked";
  EXPECT_TRUE(ReadChats(*wf_.ctx.db)->empty());
}

TEST_F(AskBuilder, TheOwnersAcceptSendsTheApplyMessageWhichWaitsForAChat) {
  Result<json> fix = Ask({{"kind", "fix"}, {"message", "Record subscribers in step-3"}});
  ASSERT_TRUE(fix.ok()) << fix.status().message();
  const int64_t id = (*fix)["decision_id"].get<int64_t>();
  Result<ApplyOutcome> early = SendApplyMessage(wf_.ctx, id);
  ASSERT_TRUE(early.ok()) << early.status().message();
  EXPECT_FALSE(early->sent);
  EXPECT_EQ(early->reason, "nothing to apply: the decision is pending");

  wf_.Call("decision.answer", {{"id", id}, {"option", "Make this fix"}});
  Result<ApplyOutcome> sent = SendApplyMessage(wf_.ctx, id);
  ASSERT_TRUE(sent.ok()) << sent.status().message();
  EXPECT_TRUE(sent->sent);
  EXPECT_FALSE(sent->delivered);
  EXPECT_EQ(sent->reason, "undelivered: no Builder chat of the owner's in chats.json; the message waits in the outbox");
  OutboxQuery apply;
  apply.kind = "apply_message";
  std::vector<OutboxMessage> waiting = *ListOutbox(*wf_.ctx.db, apply);
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].title, "Apply decision " + std::to_string(id) + " in the Builder chat");
  EXPECT_NE(waiting[0].text.find("Record subscribers in step-3"), std::string::npos) << waiting[0].text;

  // The tick delivers it once a chat and the channel are there.
  Chats();
  SetBuilderChannel(&channel_);
  DeliverApplyMessages(wf_.ctx);
  ASSERT_EQ(channel_.requests.size(), 1u);
  EXPECT_EQ(channel_.requests[0].kind, "apply");
  EXPECT_EQ(channel_.requests[0].extra["decision_id"], id);
  waiting = *ListOutbox(*wf_.ctx.db, apply);
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_TRUE(waiting[0].delivered_at.has_value());
  DeliverApplyMessages(wf_.ctx);
  EXPECT_EQ(channel_.requests.size(), 1u) << "a delivered message is not sent again";
}

// A Builder chat that takes its time: while it answers, the tick retries
// the undelivered apply messages (called here from inside the turn).
class SlowChannel : public BuilderChannel {
 public:
  explicit SlowChannel(ApiContext* ctx) : ctx_(ctx) {}
  BuilderTurnResult Run(const BuilderTurnRequest& request) const override {
    requests.push_back(request);
    if (requests.size() == 1) DeliverApplyMessages(*ctx_);
    return BuilderTurnResult{"answered", "applied", "", "guard-1"};
  }
  mutable std::vector<BuilderTurnRequest> requests;

 private:
  ApiContext* ctx_;
};

TEST_F(AskBuilder, AnApplyMessageReachesTheChatOnceWhileTheTickRetries) {
  Chats();
  SlowChannel slow(&wf_.ctx);
  SetBuilderChannel(&slow);
  Result<json> fix = Ask({{"kind", "fix"}, {"message", "Record subscribers in step-3"}});
  ASSERT_TRUE(fix.ok()) << fix.status().message();
  const int64_t id = (*fix)["decision_id"].get<int64_t>();
  wf_.Call("decision.answer", {{"id", id}, {"option", "Make this fix"}});
  Result<ApplyOutcome> sent = SendApplyMessage(wf_.ctx, id);
  ASSERT_TRUE(sent.ok()) << sent.status().message();
  EXPECT_TRUE(sent->delivered) << sent->reason;
  EXPECT_EQ(slow.requests.size(), 1u) << "the tick sent the message being delivered again";
  // Nor does a later tick (the message is delivered).
  DeliverApplyMessages(wf_.ctx);
  EXPECT_EQ(slow.requests.size(), 1u);
}

}  // namespace
}  // namespace pulse

// Pulse's conversation at the API edge (core/api/conversation.cc) on a real
// workflow database: conversation.show before and after the first turn, one
// page of turns before a turn id, the owner's Stop, and bad paging refused.
#include "core/api/api.h"

#include <algorithm>

#include "core/conversation/conversation.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

int64_t Turn(Conversation& c, Workflow& wf, const std::string& text) {
  TurnStart start;
  start.turn = "goal_check";
  start.text = text;
  Result<ConversationTurn> t = c.BeginTurn(start, wf.env.NowSeconds());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? t->id : 0;
}

TEST(ApiConversation, ShowReadsTheCurrentGenerationAPageAtATime) {
  Workflow wf;
  json empty = wf.Call("conversation.show", json::object());
  EXPECT_EQ(empty["exists"], false);
  EXPECT_EQ(empty["has_goal"], true);
  EXPECT_TRUE(empty["turns"].empty());

  Conversation c(*wf.ctx.db, wf.ctx.workflow);
  ASSERT_TRUE(c.Ensure("the charter", wf.env.NowSeconds()).ok());
  int64_t first = Turn(c, wf, "first check");
  ASSERT_TRUE(c.FinishTurn(first, TurnEnd{TurnState::kCompleted, "on track", ""}, wf.env.NowSeconds()).ok());
  int64_t second = Turn(c, wf, "second check");
  json shown = wf.Call("conversation.show", json::object());
  EXPECT_EQ(shown["exists"], true);
  EXPECT_EQ(shown["generation"], 1);
  EXPECT_EQ(shown["session_id"], ConversationSessionId("substack", 1));
  EXPECT_EQ(shown["running"], true);
  std::vector<int64_t> ids;
  for (const json& t : shown["turns"]) ids.push_back(t["id"].get<int64_t>());
  EXPECT_NE(std::find(ids.begin(), ids.end(), second), ids.end()) << shown.dump();

  json page = wf.Call("conversation.show", {{"limit", 1}, {"before", second}});
  ASSERT_EQ(page["turns"].size(), 1u) << page.dump();
  EXPECT_LT(page["turns"][0]["id"].get<int64_t>(), second);
  EXPECT_EQ(wf.Call("conversation.show", {{"limit", 1}})["turns"].size(), 1u);
}

TEST(ApiConversation, TheOwnersStopMarksTheRunningTurn) {
  Workflow wf;
  Conversation c(*wf.ctx.db, wf.ctx.workflow);
  ASSERT_TRUE(c.Ensure("the charter", wf.env.NowSeconds()).ok());
  Turn(c, wf, "a long check");
  EXPECT_EQ(CoreApi().AccessFor("conversation.stop", json::object()), Access::kOwner);
  json stopped = wf.Call("conversation.stop", json::object());
  EXPECT_EQ(stopped, (json{{"stopped", true}, {"stopped_running_turn", true}}));
  json shown = wf.Call("conversation.show", json::object());
  EXPECT_EQ(shown["stopped"], true);
  ASSERT_FALSE(shown["turns"].empty());
  EXPECT_EQ(shown["turns"].back()["state"], "stopped") << shown["turns"].dump();
  EXPECT_EQ(wf.Call("conversation.stop", json::object())["stopped_running_turn"], false) << "nothing runs now";
}

TEST(ApiConversation, BadPagingIsRefusedNamingTheKey) {
  Workflow wf;
  auto refusal = [&](const json& args) {
    Result<json> r = CallApi(wf.ctx, "conversation.show", args);
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(refusal({{"limit", 0}}), "conversation.show: \"limit\" must be between 1 and 1000, not 0");
  EXPECT_EQ(refusal({{"before", 0}}), "conversation.show: \"before\" must be between 1 and 9223372036854775807, not 0");
  EXPECT_EQ(refusal({{"generation", "latest"}}), "conversation.show: \"generation\" must be a whole number");
}

}  // namespace
}  // namespace pulse

// The server's API table: the core's methods and the agent machinery's in
// one registry, each with its access, and the methods agent_api.cc itself
// answers (Pulse's tool list, a tool call by token, the outbox, opening the
// conversation), on a real workflow and database.
#include "agent/tools/agent_api.h"

#include <gtest/gtest.h>

#include <set>

#include "core/api/api.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

TEST(AgentApi, TheServerTableIsTheCoresPlusTheAgentsOwnEachOnce) {
  std::set<std::string> names;
  for (const ApiMethod& m : ServerApi().methods()) EXPECT_TRUE(names.insert(m.name).second) << m.name;
  for (const ApiMethod& m : CoreApi().methods()) EXPECT_EQ(names.count(m.name), 1u) << m.name;
  for (const char* name : {"outbox.add", "outbox.list", "outbox.mark", "pulse.tools", "pulse.tool_call", "turn.check_due",
                           "turn.context", "conversation.open", "turn.rules"}) {
    EXPECT_NE(ServerApi().Find(name), nullptr) << name;
    EXPECT_EQ(CoreApi().Find(name), nullptr) << name << " is the server's alone (the WASM module has the core's)";
  }
  EXPECT_EQ(ServerApi().AccessFor("outbox.list", json::object()), Access::kRead);
  EXPECT_EQ(ServerApi().AccessFor("outbox.add", json::object()), Access::kOwner);
  EXPECT_EQ(ServerApi().AccessFor("pulse.tool_call", json::object()), Access::kServer);
}

TEST(AgentApi, ServerContextReachesTheServerTableOnTheOpenedWorkflow) {
  Workflow f;
  EXPECT_EQ(f.ctx.api, &ServerApi());
  EXPECT_EQ(f.ctx.workflow, "substack");
  EXPECT_EQ(f.ctx.db, f.w.db.get());
  EXPECT_EQ(f.ctx.workflow_dir, f.w.paths.dir);
  EXPECT_TRUE(f.ctx.config.HasGoal());
}

TEST(AgentApi, PulseToolsListsAllOrTheOneNamedInAnySpellingTheGuardTakes) {
  Workflow f;
  json all = f.Call("pulse.tools", json::object());
  ASSERT_TRUE(all["tools"].is_array());
  EXPECT_GT(all["tools"].size(), 5u);
  json one = f.Call("pulse.tools", {{"name", "mcp__pulse__record_pulse_goal_check"}});
  ASSERT_EQ(one["tools"].size(), 1u);
  EXPECT_EQ(one["tools"][0]["name"], "record_pulse_goal_check");
  EXPECT_TRUE(f.Call("pulse.tools", {{"name", "not_a_tool"}})["tools"].empty());
  EXPECT_EQ(CallApi(f.ctx, "pulse.tools", {{"name", 7}}).status().code(), Code::kInvalidArgument);
}

TEST(AgentApi, ToolCallResolvesTheTokenAndRefusesAnotherSessionsClaim) {
  Workflow f;
  json session = f.Session("goal_check");
  json other = f.Session("goal_check");
  json args = {{"token", session["token"]}, {"tool", "get_pulse_state"}, {"arguments", {{"view", "goal_status"}}}};
  json out = f.Call("pulse.tool_call", args);
  EXPECT_EQ(out["executed"], true) << out.dump();
  args["session"] = other["session"];
  Result<json> claimed = CallApi(f.ctx, "pulse.tool_call", args);
  EXPECT_EQ(claimed.status().code(), Code::kRefused);
  EXPECT_NE(claimed.status().message().find("another session"), std::string::npos) << claimed.status().message();
  args.erase("session");
  args["token"] = "not-a-token";
  EXPECT_FALSE(CallApi(f.ctx, "pulse.tool_call", args).ok());
  EXPECT_EQ(CallApi(f.ctx, "pulse.tool_call", {{"tool", "get_pulse_state"}}).status().code(), Code::kInvalidArgument);
}

TEST(AgentApi, OutboxAddListAndMarkThroughTheTable) {
  Workflow f;
  json added = f.Call("outbox.add", {{"kind", "pulse_summary"}, {"title", "Goal"}, {"text", "not measured"}});
  ASSERT_TRUE(added["id"].is_number_integer());
  json listed = f.Call("outbox.list", json::object());
  ASSERT_EQ(listed["messages"].size(), 1u);
  EXPECT_EQ(listed["messages"][0]["text"], "not measured");
  EXPECT_EQ(CallApi(f.ctx, "outbox.mark", {{"id", added["id"]}}).status().code(), Code::kInvalidArgument);
  json marked = f.Call("outbox.mark", {{"id", added["id"]}, {"delivered", true}});
  EXPECT_EQ(marked["delivered"], true);
  EXPECT_TRUE(f.Call("outbox.list", {{"undelivered", true}})["messages"].empty());
}

TEST(AgentApi, ConversationOpenStartsTheGoalsConversationAndRefusesWithoutAGoal) {
  Workflow f;
  json view = f.Call("conversation.open", json::object());
  EXPECT_EQ(view, f.Call("conversation.show", json::object()));
  EXPECT_EQ(f.Call("conversation.open", json::object()), view) << "opening again changes nothing";

  testing::TempDir dir;
  FixedClockEnv env(DefaultEnv(), testing::T("2026-10-07T12:00:00Z"));
  std::string ws = testing::MakeWorkspace(dir, "plain", R"({"pulse": {"enabled": true}})");
  Result<OpenedWorkflow> plain = OpenWorkflow(env, ws, "plain");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ApiContext ctx = ServerContext(*plain, env);
  Result<json> refused = CallApi(ctx, "conversation.open", json::object());
  EXPECT_EQ(refused.status().code(), Code::kRefused);
  EXPECT_NE(refused.status().message().find("has no goal"), std::string::npos) << refused.status().message();
}

}  // namespace
}  // namespace pulse

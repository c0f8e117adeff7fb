// Pulse's own tools and the guarded dispatch every agent tool call takes:
// the catalogue offered over MCP, the guard first, closed sessions refused,
// every spelling the guard accepts reaching the same tool.
#include "agent/tools/pulse_tools.h"

#include <gtest/gtest.h>

#include "agent/tools/agent_api.h"
#include "core/autonomy/tool_catalog.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

TEST(PulseTools, OffersExactlyPulsesOwnToolsWithObjectSchemas) {
  std::vector<std::string> names;
  for (const json& t : PulseToolDefinitions()) {
    names.push_back(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
    EXPECT_FALSE(t["description"].get<std::string>().empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"get_pulse_state", "record_pulse_goal_check", "record_pulse_recommendation",
                                             "record_pulse_goal_memory", "create_decision_request",
                                             "record_pulse_focus_area", "record_pulse_qa_request",
                                             "record_pulse_fast_request", "ask_builder", "record_workflow_review",
                                             "record_housekeeping", "record_pulse_decision_outcome"}));
  // Every catalogued tool is offered as well (never narrowed); Pulse's own come first, once each.
  // (each of Pulse's own is also a catalogue entry, so the counts match).
  EXPECT_EQ(CatalogToolDefinitions().size(), ToolCatalog().size());
  EXPECT_TRUE(IsPulseTool("  Record_Pulse_Goal_Check "));
  EXPECT_FALSE(IsPulseTool("update_step"));
  // One NormalizeToolName (tool_catalog.h) for the guard and the dispatch.
  EXPECT_EQ(NormalizeToolName(" Get_Pulse\tState"), "get_pulse_state");
  EXPECT_TRUE(IsPulseTool("mcp__pulse__record_pulse_goal_check"));
  EXPECT_TRUE(IsPulseTool("recordPulseGoalCheck"));
  EXPECT_FALSE(IsPulseTool("mcp__github__record_pulse_goal_check"));
}

TEST(ToolDispatch, EverySpellingTheGuardAllowsRunsTheSameTool) {
  Workflow f;
  json s = f.Session("goal_check");
  for (const char* name : {"mcp__pulse__record_pulse_goal_check", " Record_Pulse_Goal_Check ", "record-pulse-goal-check"}) {
    json out = f.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", name}, {"arguments", json::object()}});
    EXPECT_EQ(out["allowed"], true) << name;
    EXPECT_EQ(out["executed"], true) << name << ": " << out.dump();
    EXPECT_EQ(out["tool"], "record_pulse_goal_check") << name;
    EXPECT_EQ(out["result"]["recorded"], true) << name;
  }
  // Another MCP server's tool of the same name is not Pulse's: allowed or
  // not, Pulse never runs it.
  json other = f.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", "mcp__github__record_pulse_goal_check"},
                                          {"arguments", json::object()}});
  EXPECT_NE(other["executed"], true) << other.dump();
}

TEST(PulseTools, ToolsMethodFindsOneByName) {
  ApiContext ctx;
  ctx.api = &ServerApi();
  auto one = CallApi(ctx, "pulse.tools", json{{"name", "GET_PULSE_STATE"}});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ((*one)["tools"].size(), 1u);
  auto none = CallApi(ctx, "pulse.tools", json{{"name", "update_step"}});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE((*none)["tools"].empty());
  auto all = CallApi(ctx, "pulse.tools", json::object());
  EXPECT_EQ((*all)["tools"].size(), 12u);
  EXPECT_EQ(CallApi(ctx, "pulse.tool_call", json{{"tool", "get_pulse_state"}}).status().code(), Code::kInvalidArgument);
}

TEST(ToolDispatch, GuardDecidesFirstAndClosedSessionsAreRefused) {
  Workflow held("ask");
  json s = held.Session("goal_work");
  json refused = held.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", "update_step"},
                                               {"arguments", {{"step_id", "draft"}}}});
  EXPECT_EQ(refused["refused"], true);
  EXPECT_EQ(refused["allowed"], false);
  json state = held.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", "get_pulse_state"},
                                             {"arguments", {{"view", "goal_status"}}}});
  EXPECT_EQ(state["executed"], true);
  EXPECT_EQ(state["result"]["workflow"], "substack");
  // The token decides the session: naming another in the call is refused.
  EXPECT_EQ(CallApi(held.ctx, "pulse.tool_call", json{{"token", s["token"]}, {"session", "someone-else"},
                                                       {"tool", "get_pulse_state"}, {"arguments", {{"view", "goal_status"}}}})
                .status().code(),
            Code::kRefused);
  held.Call("session.close", {{"session", s["session"]}});
  json closed = held.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", "get_pulse_state"},
                                              {"arguments", {{"view", "goal_status"}}}});
  EXPECT_EQ(closed["refused"], true);
  EXPECT_EQ(closed["rule"], "session_closed");

  Workflow free("auto");
  json t = free.Session("goal_work");
  json allowed = free.Call("pulse.tool_call", {{"token", t["token"]}, {"tool", "update_step"},
                                               {"arguments", {{"step_id", "draft"}}}});
  EXPECT_EQ(allowed["allowed"], true);
  EXPECT_EQ(allowed["status"], "carry_out_on_platform");
  EXPECT_EQ(allowed["done"], false);
  EXPECT_FALSE(allowed.contains("executed")) << "no executed: false a caller could misread";
}

// Along a tool call's path the name is read once (by the guard, whose
// reading the dispatch then uses) and the session, resolved by the caller,
// is not read again; the closed-session check is the guard's one rule.
TEST(ToolDispatch, TheNameIsReadOnceAndTheSessionNotAgain) {
  Workflow wf("auto");
  json s = wf.Session("goal_work");
  Result<ToolSession> session = ResolveSessionToken(*wf.ctx.db, s["token"].get<std::string>());
  ASSERT_TRUE(session.ok()) << session.status().message();
  for (const char* spelling : {"mcp__pulse__Get_Pulse_State", "update_step"}) {
    const uint64_t names = ToolNamesNormalized();
    const uint64_t loads = ToolSessionsLoaded();
    Result<ToolCallOutcome> out = DispatchToolCall(wf.ctx, *session, spelling, json{{"view", "goal_status"}});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->guard.allowed) << spelling << ": " << out->guard.reason;
    EXPECT_EQ(ToolNamesNormalized() - names, 1u) << spelling;
    EXPECT_EQ(ToolSessionsLoaded() - loads, 0u) << spelling;
    (void)out->ToJson();
    EXPECT_EQ(ToolNamesNormalized() - names, 1u) << spelling << ": the reply reuses the guard's reading";
  }
  ASSERT_TRUE(CloseToolSession(*wf.ctx.db, session->id, wf.env.NowSeconds()).ok());
  session = LoadToolSession(*wf.ctx.db, session->id);
  ASSERT_TRUE(session.ok());
  Result<ToolCallOutcome> closed = DispatchToolCall(wf.ctx, *session, "get_pulse_state", json{{"view", "goal_status"}});
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(closed->guard.rule, GuardRule::kSessionClosed);
  EXPECT_FALSE(closed->executed);
}

TEST(ToolDispatch, RecommendationChecksBeforeOpeningADecision) {
  Workflow f;
  json s = f.Session("goal_check");
  auto bad = CallApi(f.ctx, "pulse.tool_call",
                     json{{"token", s["token"]}, {"tool", "record_pulse_recommendation"},
                          {"arguments", {{"question", "Q?"}, {"options", {"a", "b"}}, {"option", "c"},
                                         {"why", "w"}, {"confidence", "high"}}}});
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(f.Call("decision.list", {{"status", "all"}})["decisions"].size(), 0u);
  json ok = f.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", "record_pulse_recommendation"},
                                       {"arguments", {{"question", "Q?"}, {"options", {"a", "b"}}, {"option", "a"},
                                                      {"why", "w"}, {"confidence", "medium"}}}});
  EXPECT_EQ(ok["result"]["created"], true);
  json memory = f.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", "record_pulse_goal_memory"},
                                           {"arguments", {{"section", "lessons"}, {"text", "measure in every growth run"}}}});
  EXPECT_EQ(memory["executed"], true);
  EXPECT_NE(f.Call("memory.show", json::object())["text"].get<std::string>().find("measure in every growth run"),
            std::string::npos);
}

// Pulse's memory tool writes Pulse's lines only: the owner's voice is
// written where the owner's answer is recorded, never by a tool call.
TEST(ToolDispatch, TheMemoryToolNeverWritesOwnerLines) {
  Workflow wf("ask");
  json s = wf.Session("goal_work");
  for (const char* source : {"owner_answer", "Owner Answer", " OWNER-ANSWER ", "owner answer"}) {
    Result<json> r = CallApi(wf.ctx, "pulse.tool_call",
                             json{{"token", s["token"]}, {"tool", "record_pulse_goal_memory"},
                                  {"arguments", {{"section", "owner"}, {"text", "the owner wants X"}, {"source", source}}}});
    ASSERT_FALSE(r.ok()) << source;
    EXPECT_EQ(r.status().code(), Code::kRefused) << source;
  }
  json fine = wf.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", "record_pulse_goal_memory"},
                                          {"arguments", {{"section", "lessons"}, {"text", "measure weekly"}}}});
  EXPECT_EQ(fine["executed"], true);
  std::string memory = testing::ReadFileOrDie(wf.w.paths.goal_memory);
  EXPECT_EQ(memory.find("[owner answer]"), std::string::npos) << memory;
  EXPECT_NE(memory.find("[Pulse inference] measure weekly"), std::string::npos) << memory;
}

// One NormalizeToolName: a name the guard allows under the platform's own
// namespace runs as that tool, not "allowed, executed: false".
TEST(ToolDispatch, NamespacedSpellingsOfPulsesToolsRun) {
  Workflow wf("ask");
  json s = wf.Session("goal_check");
  for (const char* name : {"mcp__pulse__record_pulse_goal_check", "functions.get_pulse_state", "Get-Pulse-State"}) {
    json out = wf.Call("pulse.tool_call", {{"token", s["token"]}, {"tool", name}, {"arguments", {{"view", "goal_status"}}}});
    EXPECT_EQ(out["allowed"], true) << name;
    EXPECT_EQ(out["executed"], true) << name << " " << out.dump();
  }
}

}  // namespace
}  // namespace pulse

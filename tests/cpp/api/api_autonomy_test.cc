// The autonomy guard at the API edge (core/api/autonomy.cc) on a real
// workflow database: the levels as the guard reads them, one call decided by
// turn or by session (the session's record deciding the turn), sessions
// opened, resolved by token and closed with their helpers, the catalog and
// the recorded decisions.
#include "core/api/autonomy.h"

#include "core/autonomy/tool_catalog.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

std::string Refusal(Workflow& wf, const std::string& method, const json& args) {
  Result<json> r = CallApi(wf.ctx, method, args);
  return r.ok() ? "ok: " + r->dump() : r.status().message();
}

TEST(ApiAutonomy, TheLevelsAsTheGuardReadsThem) {
  Workflow wf("auto");
  EXPECT_EQ(wf.Call("autonomy.levels", json::object()),
            (json{{"run", "ask"}, {"outward", "ask"}, {"change", "auto"}, {"answer", "recommend"},
                  {"unclassified", AutonomyLevelsJson(wf.ctx.config)["unclassified"]}, {"schedules_paused", false}}));
}

TEST(ApiAutonomy, ACallIsDecidedByTurnOrBySessionAndRecorded) {
  Workflow wf("ask");
  EXPECT_EQ(Refusal(wf, "autonomy.guard", {{"turn", "goal_work"}}), "autonomy.guard: \"tool\" is required");
  EXPECT_EQ(Refusal(wf, "autonomy.guard", {{"tool", "update_step"}}),
            "autonomy.guard: \"turn\" is required (or give a session)");
  EXPECT_NE(Refusal(wf, "autonomy.guard", {{"tool", "update_step"}, {"turn", "nap"}}).find("nap"), std::string::npos);
  EXPECT_EQ(Refusal(wf, "autonomy.guard", {{"tool", "update_step"}, {"turn", "goal_work"}, {"args", "draft"}}),
            "autonomy.guard: \"args\" must be a JSON object");

  json by_turn = wf.Call("autonomy.guard", {{"tool", "update_step"}, {"turn", "goal_work"},
                                            {"args", {{"step_id", "draft"}}}});
  EXPECT_EQ(by_turn["allowed"], false);
  EXPECT_EQ(by_turn["turn"], "goal_work");
  EXPECT_EQ(by_turn["recorded"], true);

  json s = wf.Session("workflow_step");
  json by_session = wf.Call("autonomy.guard", {{"tool", "update_step"}, {"turn", "goal_work"},
                                               {"session", s["session"]}, {"token", s["token"]}});
  EXPECT_EQ(by_session["turn"], "workflow_step") << "the session's record decides the turn";
  EXPECT_EQ(by_session["allowed"], true);
  EXPECT_EQ(by_session["session"], s["session"]);
  Result<json> wrong = CallApi(wf.ctx, "autonomy.guard", {{"tool", "update_step"}, {"session", s["session"]},
                                                          {"token", "not-the-token"}});
  EXPECT_FALSE(wrong.ok());

  json all = wf.Call("autonomy.decisions", json::object());
  EXPECT_EQ(all["decisions"].size(), 2u);
  json mine = wf.Call("autonomy.decisions", {{"session", s["session"]}});
  ASSERT_EQ(mine["decisions"].size(), 1u);
  EXPECT_EQ(mine["decisions"][0]["tool"], "update_step");
  EXPECT_EQ(Refusal(wf, "autonomy.decisions", {{"limit", 0}}),
            "autonomy.decisions: \"limit\" must be between 1 and 100000, not 0");
}

TEST(ApiAutonomy, SessionsOpenResolveAndCloseWithTheirHelpers) {
  Workflow wf;
  EXPECT_EQ(Refusal(wf, "session.open", json::object()),
            "session.open: \"turn\" is required (a helper may give parent instead)");
  json root = wf.Call("session.open", {{"turn", "goal_check"}});
  EXPECT_EQ(root["turn"], "goal_check");
  EXPECT_EQ(root["open"], true);
  EXPECT_EQ(root["root"], root["session"]);
  json helper = wf.Call("session.open", {{"parent", root["session"]}});
  EXPECT_EQ(helper["turn"], "goal_check") << "a helper takes its root's turn";
  EXPECT_EQ(helper["parent"], root["session"]);
  EXPECT_EQ(helper["root"], root["session"]);
  EXPECT_NE(helper["token"], root["token"]);

  json resolved = wf.Call("session.resolve", {{"token", helper["token"]}});
  EXPECT_EQ(resolved["session"], helper["session"]);
  EXPECT_FALSE(resolved.contains("token")) << "a token is shown once, at open";
  EXPECT_FALSE(CallApi(wf.ctx, "session.resolve", {{"token", "no-such-token"}}).ok());

  json closed = wf.Call("session.close", {{"session", root["session"]}});
  EXPECT_EQ(closed["open"], false);
  EXPECT_EQ(closed["closed_at"], "2026-10-07T12:00:00Z");
  EXPECT_EQ(closed["closed"].size(), 2u) << closed.dump();
  for (const char* m : {"session.open", "session.resolve", "session.close"}) {
    EXPECT_EQ(CoreApi().AccessFor(m, json::object()), Access::kServer) << m;
  }
}

TEST(ApiAutonomy, TheCatalogListsEveryToolAndTurn) {
  Workflow wf;
  json c = wf.Call("autonomy.catalog", json::object());
  ASSERT_EQ(c["tools"].size(), ToolCatalog().size());
  for (size_t i = 0; i < ToolCatalog().size(); ++i) {
    EXPECT_EQ(c["tools"][i]["name"], ToolCatalog()[i].name);
    EXPECT_EQ(c["tools"][i]["class"], ToolClassName(ToolCatalog()[i].cls));
  }
  ASSERT_EQ(c["turns"].size(), AllTurnKinds().size());
  EXPECT_EQ(c["turns"][0], TurnKindName(AllTurnKinds()[0]));
}

}  // namespace
}  // namespace pulse

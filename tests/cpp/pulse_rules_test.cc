// The built-in rules runner and the guarded tool dispatch, on a real
// database with the goal, decisions, autonomy and agent-log modules.
#include <gtest/gtest.h>

#include "core/api.h"
#include "core/pulse_tools.h"
#include "core/pulse_turns.h"
#include "core/schema.h"
#include "core/workflow_config.h"
#include "core/workspace.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::TempDir;

std::string Config(const std::string& change) {
  return R"({"pulse": {"enabled": true, "autonomy": {"run": "ask", "outward": "ask", "change": ")" + change +
         R"(", "answer": "recommend"}},
    "goal": {"primary_metric": {"name": "subscribers", "route": "growth_funnel", "direction": "increase",
      "target": 1000, "baseline": 200, "baseline_at": "2026-08-01T00:00:00Z", "deadline": "2026-12-31T00:00:00Z"}},
    "schedules": [{"id": "daily", "cron": "0 9 * * *", "enabled": true}]})";
}

struct Workflow {
  TempDir dir;
  FixedClockEnv env{DefaultEnv(), T("2026-10-07T12:00:00Z")};
  OpenedWorkflow w;
  ApiContext ctx;
  explicit Workflow(const std::string& change = "ask") {
    std::string ws = testing::MakeWorkspace(dir, "substack", Config(change));
    auto opened = OpenWorkflow(env, ws, "substack");
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    w = std::move(opened).value();
    ctx = ApiContext{w.db.get(), &env, "substack", w.config, w.paths.dir};
  }
  json Call(const std::string& method, const json& args) {
    auto r = CallApi(ctx, method, args);
    EXPECT_TRUE(r.ok()) << method << ": " << r.status().message();
    return r.ok() ? *r : json();
  }
  // Last measured by a run on 17 Sep; a growth run since without a reading.
  void NotMeasured() {
    Call("goal.record_run", {{"run", {{"run_id", "r-1"}, {"started_at", "2026-09-17T09:00:00Z"},
                                      {"finished_at", "2026-09-17T09:30:00Z"}, {"status", "completed"},
                                      {"trigger", "schedule:daily"}, {"error", ""}}},
                             {"route", "growth_funnel"}});
    Call("goal.observe", {{"metric", "subscribers"}, {"value", 380}, {"at", "2026-09-17T09:20:00Z"},
                          {"source", "workflow_run"}, {"run_id", "r-1"}});
    Call("goal.record_run", {{"run", {{"run_id", "r-2"}, {"started_at", "2026-10-05T09:00:00Z"},
                                      {"finished_at", "2026-10-05T09:30:00Z"}, {"status", "completed"},
                                      {"trigger", "schedule:daily"}, {"error", ""}}},
                             {"route", "growth_funnel"}});
  }
  void OnTrack() {
    Call("goal.record_run", {{"run", {{"run_id", "r-9"}, {"started_at", "2026-10-06T09:00:00Z"},
                                      {"finished_at", "2026-10-06T09:30:00Z"}, {"status", "completed"},
                                      {"trigger", "schedule:daily"}, {"error", ""}}},
                             {"route", "growth_funnel"}});
    Call("goal.observe", {{"metric", "subscribers"}, {"value", 900}, {"at", "2026-10-06T09:20:00Z"},
                          {"source", "workflow_run"}, {"run_id", "r-9"}});
  }
  json Session(const std::string& turn) { return Call("session.open", {{"turn", turn}}); }
  json Rules(const json& session, const std::string& kind, const std::string& run_id) {
    return Call("turn.rules", {{"kind", kind}, {"session", session["session"]}, {"pulse_run_id", run_id}});
  }
};

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
  EXPECT_EQ(allowed["executed"], false);
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

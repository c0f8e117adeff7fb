// A workflow on a real database with every module and the server's API
// table, for the agent library's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "core/store/workspace.h"
#include "tests/cpp/test_util.h"

namespace pulse::testing {

using nlohmann::json;

inline std::string AgentConfig(const std::string& change) {
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
    std::string ws = MakeWorkspace(dir, "substack", AgentConfig(change));
    auto opened = OpenWorkflow(env, ws, "substack");
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    w = std::move(opened).value();
    ctx = ServerContext(w, env);
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

}  // namespace pulse::testing

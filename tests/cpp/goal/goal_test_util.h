// A workflow database in a temp dir with a fixed clock, for the goal tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/api/api.h"
#include "core/store/db.h"
#include "core/goal/goal_check.h"
#include "core/goal/goal_facts.h"
#include "core/store/schema.h"
#include "core/workflow/workflow_config.h"
#include "core/store/workspace.h"
#include "tests/cpp/test_util.h"

namespace pulse::testing {

// workflow.json text with a primary metric; `extra` is spliced into the
// primary_metric object, `schedules` is the schedules array.
inline std::string GoalConfigJson(const std::string& metric_extra = "",
                                  const std::string& schedules =
                                      R"([{"id": "daily", "cron": "0 9 * * *", "enabled": true}])",
                                  const std::string& goal_check = "") {
  return std::string(R"({"pulse": {"enabled": true)") +
         (goal_check.empty() ? "" : ", \"goal_check\": " + goal_check) +
         R"(}, "goal": {"primary_metric": {"name": "subscribers", "route": "growth_funnel")" + metric_extra +
         R"(}}, "schedules": )" + schedules + "}";
}

class GoalDb {
 public:
  explicit GoalDb(const std::string& config_json, const std::string& now = "2026-10-07T12:00:00Z")
      : env_(DefaultEnv(), T(now)) {
    auto parsed = ParseWorkflowConfig(config_json, "workflow.json");
    EXPECT_TRUE(parsed.ok()) << parsed.status().message();
    if (parsed.ok()) config_ = *parsed;
    auto db = Db::Open(dir_.Join("db.sqlite"));
    EXPECT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
    EXPECT_TRUE(EnsureSchema(*db_).ok());
    EXPECT_TRUE(StoreConfigSnapshot(*db_, "wf", config_json, "", env_.NowSeconds()).ok());
  }

  Db& db() { return *db_; }
  FixedClockEnv& env() { return env_; }
  const WorkflowConfig& config() const { return config_; }
  const TempDir& dir() const { return dir_; }

  void Run(const std::string& id, const std::string& route, const std::string& start, const std::string& finish,
           const std::string& status = "completed") {
    RunRecord r;
    r.run_id = id;
    r.route = route;
    r.started_at = T(start);
    r.finished_at = T(finish);
    r.status = status;
    r.trigger = "schedule:daily";
    r.schedule_id = "daily";
    auto out = RecordRunFacts(*db_, config_, r, env_.NowSeconds());
    ASSERT_TRUE(out.ok()) << out.status().message();
  }

  void Read(double value, const std::string& at, const std::string& source = "workflow_run",
            const std::string& run_id = "", const std::string& metric = "subscribers") {
    Observation o;
    o.metric = metric;
    o.value = value;
    o.at = T(at);
    auto src = ParseReadingSource(source);
    ASSERT_TRUE(src.ok());
    o.source = *src;
    o.run_id = run_id;
    ASSERT_TRUE(RecordObservation(*db_, config_, o, env_.NowSeconds()).ok());
  }

  GoalCheck Check(const std::string& now, bool record = false) {
    auto c = RunGoalCheck(*db_, config_, "wf", T(now), record);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? *c : GoalCheck{};
  }

  int64_t Count(const std::string& sql) {
    auto n = db_->QueryInt64(sql);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : -1;
  }

 private:
  TempDir dir_;
  FixedClockEnv env_;
  WorkflowConfig config_;
  std::unique_ptr<Db> db_;
};

inline const Alarm* FindAlarm(const GoalCheck& c, const std::string& kind) {
  for (const Alarm& a : c.alarms) {
    if (AlarmKindName(a.kind) == kind) return &a;
  }
  return nullptr;
}

}  // namespace pulse::testing

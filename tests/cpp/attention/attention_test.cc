// Attention: each kind from a real workflow database (the inbox case: an
// expired Gmail login, an error-rate spike, a cost spike; a late schedule, a
// decision waiting two days, a delivery given up, a broken Workflow Review),
// the schedules watched as Healthchecks watches a job, the overview's rank,
// a recorded check that does not empty what a reader sees, and the owner's
// snoozes (until a time, until the item changes) through attention.snooze.
#include "core/attention/attention.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "core/api/facts.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::Workflow;

Schedule Daily(const std::string& cron = "0 8 * * *", bool enabled = true) {
  Schedule s;
  s.id = "daily";
  s.cron = cron;
  s.enabled = enabled;
  return s;
}

TEST(ScheduleWatch, ExpectedAfterTheLastRunLateOnlyPastTheGrace) {
  // Ran yesterday at 08:00: today's 08:00 is expected; late from 09:00.
  ScheduleWatch w = WatchSchedule(Daily(), T("2026-10-06T08:00:20Z"), T("2026-10-07T08:59:59Z"));
  EXPECT_EQ(w.state, ScheduleState::kOnTime) << "still within the hour's grace";
  EXPECT_EQ(FormatTime(*w.expected_at), "2026-10-07T08:00:00Z");
  EXPECT_EQ(FormatTime(*w.next_at), "2026-10-08T08:00:00Z");
  w = WatchSchedule(Daily(), T("2026-10-06T08:00:20Z"), T("2026-10-07T09:00:00Z"));
  EXPECT_EQ(w.state, ScheduleState::kLate);
  EXPECT_EQ(w.missed, 1);
  // Three days without a run: three fires missed.
  w = WatchSchedule(Daily(), T("2026-10-04T08:00:00Z"), T("2026-10-07T12:00:00Z"));
  EXPECT_EQ(w.missed, 3);
  EXPECT_EQ(FormatTime(*w.expected_at), "2026-10-05T08:00:00Z");
  // A run started a few seconds before its minute covers that fire.
  w = WatchSchedule(Daily(), T("2026-10-07T07:59:30Z"), T("2026-10-07T12:00:00Z"));
  EXPECT_EQ(w.state, ScheduleState::kOnTime);
  EXPECT_EQ(FormatTime(*w.expected_at), "2026-10-08T08:00:00Z");
}

TEST(ScheduleWatch, PausedNewAndInvalidAreNeverLate) {
  EXPECT_EQ(WatchSchedule(Daily("0 8 * * *", false), T("2026-09-01T08:00:00Z"), T("2026-10-07T12:00:00Z")).state,
            ScheduleState::kPaused);
  EXPECT_EQ(WatchSchedule(Daily(), std::nullopt, T("2026-10-07T12:00:00Z")).state, ScheduleState::kNew);
  ScheduleWatch bad = WatchSchedule(Daily("0 25 * * *"), T("2026-10-06T08:00:00Z"), T("2026-10-07T12:00:00Z"));
  EXPECT_EQ(bad.state, ScheduleState::kInvalid);
  EXPECT_NE(bad.problem.find("schedule daily"), std::string::npos) << bad.problem;
}

TEST(AttentionRank, WorstFirstByStatusAndItems) {
  EXPECT_EQ(AttentionRank(GoalStatus::kOnTrack, std::nullopt), 3);
  EXPECT_EQ(AttentionRank(GoalStatus::kOnTrack, Severity::kCritical), 1) << "an expired login outranks on track";
  EXPECT_EQ(AttentionRank(GoalStatus::kOnTrack, Severity::kWarning), 2);
  EXPECT_EQ(AttentionRank(GoalStatus::kOnTrack, Severity::kInfo), 3) << "an info item never raises a workflow";
  EXPECT_EQ(AttentionRank(GoalStatus::kNotMeasured, std::nullopt), 1);
  EXPECT_EQ(AttentionRank(GoalStatus::kAtRisk, std::nullopt), 2);
  EXPECT_EQ(AttentionRank(GoalStatus::kNoGoal, Severity::kWarning), 2);
  EXPECT_EQ(AttentionRank(GoalStatus::kNoGoal, std::nullopt), 4);
  EXPECT_EQ(ParseAttentionKind("schedule_late"), AttentionKind::kScheduleLate);
  EXPECT_FALSE(ParseAttentionKind("schedule-late").has_value());
}

// The inbox case on a workflow whose goal is measured every day: on track,
// yet four triage runs failed with an expired Gmail login two days ago and
// yesterday's run cost four times the median.
struct Inbox : Workflow {
  Inbox() {
    for (int d = 10; d >= 1; --d) {
      const std::string day = FormatDate(T("2026-10-07T12:00:00Z") - d * kSecondsPerDay);
      Run("r-" + std::to_string(d), day + "T09:00:00Z", "completed", "", "growth_funnel");
      Call("goal.observe", {{"metric", "subscribers"}, {"value", 850 + 10 * (10 - d)}, {"at", day + "T09:20:00Z"},
                            {"source", "workflow_run"}, {"run_id", "r-" + std::to_string(d)}});
    }
    const char* errors[] = {"gmail: token refresh failed: invalid_grant", "HTTP 401 Unauthorized from gmail.googleapis.com",
                            "gmail: token refresh failed: invalid_grant", "MCP server gmail: connection refused"};
    for (int i = 0; i < 4; ++i) Run("t-" + std::to_string(i), "2026-10-05T1" + std::to_string(i) + ":00:00Z", "failed", errors[i], "triage");
    Run("t-4", "2026-10-05T14:00:00Z", "completed", "", "triage");
    // The ledger: every run $0.80, yesterday's $3.20.
    const std::string path = w.paths.dir + "/costs/costs.sqlite";
    testing::WriteFile(path, "");  // its folder
    std::remove(path.c_str());
    auto ledger = Db::Open(path, NoWal());
    EXPECT_TRUE(ledger.ok());
    EXPECT_TRUE((*ledger)->Exec("CREATE TABLE cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL)").ok());
    for (int d = 10; d >= 1; --d) {
      const std::string day = FormatDate(T("2026-10-07T12:00:00Z") - d * kSecondsPerDay);
      EXPECT_TRUE((*ledger)->Exec("INSERT INTO cost_events VALUES('" + day + "T09:25:00Z', 'r-" + std::to_string(d) +
                                  "', 'run', " + (d == 1 ? "3.2" : "0.8") + ")").ok());
    }
  }
  static OpenOptions NoWal() {
    OpenOptions o;
    o.wal = false;
    return o;
  }
  void Run(const std::string& id, const std::string& start, const std::string& status, const std::string& error,
           const std::string& route) {
    Call("goal.record_run", {{"run", {{"run_id", id}, {"started_at", start}, {"finished_at", start},
                                      {"status", status}, {"trigger", "schedule:daily"}, {"error", error}}},
                             {"route", route}});
  }
  json Doc() { return Call("goal.check", json::object()); }
  static const json* Item(const json& doc, const std::string& kind) {
    for (const json& it : doc["attention"]) {
      if (it["kind"] == kind) return &it;
    }
    return nullptr;
  }
};

TEST(Attention, TheInboxCaseIsFlaggedThoughItsGoalIsOnTrack) {
  Inbox wf;
  json doc = wf.Doc();
  EXPECT_EQ(doc["status"], "on_track") << doc.dump();
  const json* reauth = Inbox::Item(doc, "needs_reauth");
  ASSERT_NE(reauth, nullptr) << doc["attention"].dump();
  EXPECT_EQ((*reauth)["severity"], "critical");
  EXPECT_NE((*reauth)["text"].get<std::string>().find("invalid_grant"), std::string::npos);
  EXPECT_EQ((*reauth)["link"], "#/w/substack/run-health");
  EXPECT_EQ((*reauth)["since"], "2026-10-05T10:00:00Z");
  const json* spike = Inbox::Item(doc, "error_rate_spike");
  ASSERT_NE(spike, nullptr);
  EXPECT_EQ((*spike)["text"], "4 of 11 runs failed since 30 Sep (36%, against 0% on the median day of the last 14).");
  const json* cost = Inbox::Item(doc, "cost_spike");
  ASSERT_NE(cost, nullptr);
  EXPECT_EQ((*cost)["text"], "Run r-1 cost $3.20, 4.0× the 14-day median run ($0.80), on route growth_funnel.");
  // The daily schedule last ran yesterday: today's 09:00 run is late.
  const json* late = Inbox::Item(doc, "schedule_late");
  ASSERT_NE(late, nullptr);
  EXPECT_EQ((*late)["text"], "Schedule daily (0 9 * * *, UTC) was expected to run at 7 Oct 09:00 UTC and has not; "
                             "next expected 8 Oct 09:00 UTC.");
  EXPECT_EQ(doc["schedules"][0]["state"], "late");
  EXPECT_EQ(doc["schedules"][0]["time_zone"], "UTC");
  EXPECT_EQ(doc["attention"][0]["severity"], "critical") << "worst first";
  EXPECT_EQ(doc["rank"], 1);
  EXPECT_EQ(doc["needs_attention"], true);
}

TEST(Attention, TheCheckJustRecordedDoesNotEmptyWhatAReaderSees) {
  Inbox wf;
  json recorded = wf.Call("goal.check", {{"record", true}});
  ASSERT_NE(Inbox::Item(recorded, "needs_reauth"), nullptr);
  json read = wf.Doc();
  EXPECT_EQ(read["facts"]["window"], "previous_check");
  EXPECT_EQ(read["facts"]["latest_check_at"], "2026-10-07T12:00:00Z");
  EXPECT_EQ(read["facts"]["since"], "2026-09-30T12:00:00Z") << "the 7 days before the only recorded check";
  EXPECT_NE(Inbox::Item(read, "needs_reauth"), nullptr) << read["attention"].dump();
  EXPECT_EQ(read["facts"]["login_hints"].size(), recorded["facts"]["login_hints"].size());
  // A turn about to check reads what is new since the latest check: nothing.
  Result<json> turn = GoalStatusDocument(wf.ctx, false, FactsWindow::kSinceLatestCheck);
  ASSERT_TRUE(turn.ok());
  EXPECT_EQ((*turn)["facts"]["login_hints"].size(), 0u);
  // A second recorded check a day later starts the reader's window at the first.
  wf.env.Set(T("2026-10-08T12:00:00Z"));
  wf.Call("goal.check", {{"record", true}});
  EXPECT_EQ(wf.Doc()["facts"]["since"], "2026-10-07T12:00:00Z");
}

TEST(Attention, SnoozedUntilItChangesThenBackWhenItDoes) {
  Inbox wf;
  json out = wf.Call("attention.snooze", {{"key", "error_rate_spike"}});
  const json* spike = Inbox::Item(out, "error_rate_spike");
  ASSERT_NE(spike, nullptr) << out.dump();
  EXPECT_EQ((*spike)["snoozed"], true);
  EXPECT_EQ((*spike)["snooze"], "until_it_changes");
  EXPECT_FALSE(spike->contains("snoozed_until"));
  EXPECT_EQ(Inbox::Item(wf.Doc(), "error_rate_spike")->value("snoozed", false), true);
  // Another failed run: the spike changed, so it needs attention again.
  wf.Run("t-5", "2026-10-06T15:00:00Z", "failed", "quota exceeded", "triage");
  EXPECT_EQ(Inbox::Item(wf.Doc(), "error_rate_spike")->value("snoozed", true), false);
}

TEST(Attention, SnoozedUntilATimeAndRefusals) {
  Inbox wf;
  json out = wf.Call("attention.snooze", {{"key", "needs_reauth"}, {"until", "2026-10-08T09:00:00Z"}});
  const json* reauth = Inbox::Item(out, "needs_reauth");
  ASSERT_NE(reauth, nullptr);
  EXPECT_EQ((*reauth)["snoozed_until"], "2026-10-08T09:00:00Z");
  EXPECT_EQ(out["attention"].back()["key"], "needs_reauth") << "snoozed items come after the open ones";
  // A snoozed critical item no longer makes the workflow critical.
  json doc = wf.Doc();
  EXPECT_EQ(doc["rank"], 2) << "the warnings left: the spikes and the late schedule";
  wf.env.Set(T("2026-10-08T09:00:00Z"));
  EXPECT_EQ(Inbox::Item(wf.Doc(), "needs_reauth")->value("snoozed", true), false) << "the time has come";

  Result<json> unknown = CallApi(wf.ctx, "attention.snooze", {{"key", "needs_reauth:nope"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Code::kNotFound);
  EXPECT_NE(unknown.status().message().find("needs_reauth:nope"), std::string::npos);
  Result<json> past = CallApi(wf.ctx, "attention.snooze", {{"key", "cost_spike"}, {"until", "2026-10-01T00:00:00Z"}});
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), Code::kInvalidArgument);
  Result<json> none = CallApi(wf.ctx, "attention.unsnooze", {{"key", "cost_spike"}});
  EXPECT_EQ(none.status().code(), Code::kNotFound);
  wf.Call("attention.snooze", {{"key", "cost_spike"}});
  json lifted = wf.Call("attention.unsnooze", {{"key", "cost_spike"}});
  EXPECT_EQ(Inbox::Item(lifted, "cost_spike")->value("snoozed", true), false);
  EXPECT_EQ(CoreApi().Find("attention.snooze")->access, Access::kOwner);
}

TEST(Attention, DecisionsWaitingOverADayDeliveriesGivenUpAndABrokenReview) {
  Workflow wf;
  wf.OnTrack();
  // Today's scheduled run came: the schedule is on time.
  wf.Call("goal.record_run", {{"run", {{"run_id", "r-10"}, {"started_at", "2026-10-07T09:00:00Z"},
                                       {"finished_at", "2026-10-07T09:30:00Z"}, {"status", "completed"},
                                       {"trigger", "schedule:daily"}, {"error", ""}}},
                              {"route", "publish"}});
  wf.env.Set(T("2026-10-05T09:00:00Z"));
  wf.Call("decision.create", {{"question", "Resume the schedules?"}});
  wf.env.Set(T("2026-10-07T11:00:00Z"));
  wf.Call("decision.create", {{"question", "Raised an hour ago?"}});
  wf.env.Set(T("2026-10-07T12:00:00Z"));
  // A message given up on Slack after its retries; a webhook delivered later.
  ASSERT_TRUE(wf.ctx.db->Exec(
      "INSERT INTO pulse_outbox(id, kind, title, text, created_at) VALUES(1, 'pulse_summary', 't', 'x', '2026-10-07T09:00:00Z');"
      "INSERT INTO pulse_outbox_delivery(message_id, target, state, attempts, error, last_attempt_at)"
      " VALUES(1, 'slack:#growth', 'failed', 6, 'Slack: channel_not_found', '2026-10-07T10:00:00Z');"
      "INSERT INTO pulse_outbox_delivery(message_id, target, state, attempts, error, last_attempt_at, delivered_at)"
      " VALUES(1, 'webhook', 'delivered', 1, '', '2026-10-07T09:01:00Z', '2026-10-07T09:01:00Z');").ok());
  testing::WriteFile(wf.w.paths.dir + "/planning/workflow_review.json", R"({"reviews": [{"revision": ")" +
      std::string(64, 'a') + R"(", "outcome": "broken", "started_at": "2026-10-06T16:00:00Z",
      "finished_at": "2026-10-06T16:05:00Z", "broken": [{"step": "growth_funnel",
      "reason": "depends on subscriber_export_v1, which is not a step of the plan"}]}]})");
  json doc = wf.Call("goal.check", json::object());
  std::vector<std::string> kinds;
  for (const json& it : doc["attention"]) kinds.push_back(it["kind"].get<std::string>() + " " + it["text"].get<std::string>());
  ASSERT_EQ(kinds.size(), 3u) << doc["attention"].dump(1);
  EXPECT_EQ(kinds[0], "review_broken Workflow Review found the plan broken (growth_funnel: depends on subscriber_export_v1, "
                      "which is not a step of the plan); runs that touch these steps stop.");
  EXPECT_EQ(kinds[1], "delivery_failed A message to Slack #growth was not delivered after 6 attempts (Slack: channel_not_found).");
  EXPECT_EQ(kinds[2], "decision_waiting A decision has waited 2 days for your answer: Resume the schedules?");
  // The browser has the database alone: the same items.
  Result<ApiContext> browser = ContextFromDb(*wf.ctx.db, wf.env);
  ASSERT_TRUE(browser.ok());
  Result<json> copy = CallApi(*browser, "goal.check", json::object());
  ASSERT_TRUE(copy.ok()) << copy.status().message();
  EXPECT_EQ((*copy)["attention"], doc["attention"]);
}

}  // namespace
}  // namespace pulse

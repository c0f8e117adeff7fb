// Evidence and the pruning rule: `agent_log.prune` keeps every row a pending
// or answered decision, a failed run in the goal check's window or a cost
// spike points to, however old, and says why; everything else old enough
// goes as before. A real database in a temp dir, through the API method the
// command line and the WASM module call.
#include "core/agent_log/evidence.h"

#include <gtest/gtest.h>

#include "core/api/api.h"
#include "core/facts/fact_snapshot.h"
#include "core/base/time_util.h"
#include "tests/cpp/goal/goal_test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::GoalConfigJson;
using testing::GoalDb;
using testing::T;

const char kNow[] = "2026-10-07T12:00:00Z";

std::string DaysAgo(int days) { return FormatTime(T(kNow) - days * kSecondsPerDay); }

class PruneEvidence : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = ContextFromDb(g_.db(), g_.env());
    ASSERT_TRUE(made.ok()) << made.status().message();
    ctx_ = *made;
  }
  json Call(const std::string& method, const json& args) {
    auto r = CallApi(ctx_, method, args);
    EXPECT_TRUE(r.ok()) << method << ": " << r.status().message();
    return r.ok() ? *r : json();
  }
  // One finished agent row, `days` old.
  void Agent(const std::string& session, const std::string& agent, int days, const std::string& status = "completed",
             const std::string& run = "") {
    Call("agent_log.started", {{"session", session}, {"agent", agent}, {"at", DaysAgo(days)}, {"pulse_run_id", run}});
    Call("agent_log.completed", {{"session", session}, {"agent", agent}, {"at", DaysAgo(days)}, {"status", status}});
  }
  std::map<std::string, std::string> Kept(const json& report) {
    std::map<std::string, std::string> out;
    for (const json& k : report["kept"]) out[k["agent_id"]] = k["kept_because"];
    return out;
  }
  std::vector<std::string> Removed(const json& report) {
    std::vector<std::string> out;
    for (const json& r : report["removed"]) out.push_back(r["agent_id"]);
    std::sort(out.begin(), out.end());
    return out;
  }

  GoalDb g_{GoalConfigJson(), kNow};
  ApiContext ctx_;
};

TEST(Evidence, CollectIdsFindsSessionAndRunIdsInText) {
  std::map<std::string, std::string> ids;
  CollectIds("run r-0042 failed. See schedule-goallead--dc77e3afb5bbf2d7-g1: \"s-9\"", "why", &ids);
  EXPECT_TRUE(ids.count("r-0042"));
  EXPECT_TRUE(ids.count("schedule-goallead--dc77e3afb5bbf2d7-g1"));
  EXPECT_TRUE(ids.count("s-9"));
  EXPECT_FALSE(ids.count("failed."));
  EXPECT_TRUE(ids.count("failed"));
}

TEST_F(PruneEvidence, DecisionsPendingOrAnsweredKeepTheirRowsADismissedOneDoesNot) {
  Agent("s-pending", "a-pending", 40);
  Agent("s-answered", "a-answered", 40);
  Agent("s-dismissed", "a-dismissed", 40);
  Agent("s-plain", "a-plain", 40);
  json pending = Call("decision.create", {{"question", "Resume the schedules? (asked in session s-pending)"}});
  json answered = Call("decision.create", {{"question", "Post twice a week?"}, {"options", {"yes", "no"}}});
  Call("decision.recommend", {{"id", answered["id"]}, {"option", "yes"}, {"why", "growth"},
                              {"evidence", "agents of s-answered found it"}, {"confidence", "medium"}});
  Call("decision.answer", {{"id", answered["id"]}, {"accept", true}});
  json dismissed = Call("decision.create", {{"question", "Ignore s-dismissed?"}});
  Call("decision.answer", {{"id", dismissed["id"]}, {"dismiss", true}});

  json report = Call("agent_log.prune", {{"older_than_days", 30}});
  std::map<std::string, std::string> kept = Kept(report);
  ASSERT_EQ(kept.size(), 2u) << report.dump(2);
  EXPECT_EQ(kept["a-pending"], "decision " + std::to_string(pending["id"].get<int64_t>()) + " (pending) points to it");
  EXPECT_EQ(kept["a-answered"], "decision " + std::to_string(answered["id"].get<int64_t>()) + " (answered) points to it");
  EXPECT_EQ(Removed(report), (std::vector<std::string>{"a-dismissed", "a-plain"}));
  // The kept rows are still there; a second prune keeps them again.
  EXPECT_EQ(Kept(Call("agent_log.prune", {{"older_than_days", 30}})).size(), 2u);
}

// Pulse's conversation is one session over many turns: the turn that
// recommended is kept, not the whole conversation.
TEST_F(PruneEvidence, TheTurnThatRecommendedIsKeptNotItsWholeSession) {
  auto turn = [&](const std::string& agent, const std::string& start, const std::string& end) {
    Call("agent_log.started", {{"session", "conv-g1"}, {"agent", agent}, {"at", start}, {"pulse_run_id", agent}});
    Call("agent_log.completed", {{"session", "conv-g1"}, {"agent", agent}, {"at", end}});
  };
  turn("turn-1", "2026-08-20T09:00:00Z", "2026-08-20T09:05:00Z");
  turn("turn-2", "2026-08-21T09:00:00Z", "2026-08-21T09:05:00Z");
  turn("turn-3", "2026-08-22T09:00:00Z", "2026-08-22T09:05:00Z");
  g_.env().Set(T("2026-08-20T09:02:00Z"));
  json d = Call("decision.create", {{"question", "Resume the schedules?"}, {"options", {"yes", "no"}}});
  Call("decision.recommend", {{"id", d["id"]}, {"option", "yes"}, {"why", "growth needs runs"},
                              {"confidence", "medium"}, {"session", "conv-g1"}});
  g_.env().Set(T("2026-08-22T09:03:00Z"));
  json other = Call("decision.create", {{"question", "Drop the digest?"}});
  Call("decision.recommend", {{"id", other["id"]}, {"text", "no"}, {"why", "readers open it"},
                              {"confidence", "low"}, {"session", "conv-g1"}});
  Call("decision.answer", {{"id", other["id"]}, {"dismiss", true}});
  g_.env().Set(T(kNow));
  Call("decision.answer", {{"id", d["id"]}, {"accept", true}});
  json report = Call("agent_log.prune", {{"older_than_days", 30}});
  std::map<std::string, std::string> kept = Kept(report);
  ASSERT_EQ(kept.size(), 1u) << report.dump(2);
  EXPECT_EQ(kept["turn-1"], "decision " + std::to_string(d["id"].get<int64_t>()) + " (answered) points to it");
  EXPECT_EQ(Removed(report), (std::vector<std::string>{"turn-2", "turn-3"})) << "turn-3 recommended on a dismissed one";
}

TEST_F(PruneEvidence, AFailedRunInTheWindowKeepsItsRowsAndFailedRowsInTheWindowStay) {
  // The last recorded check was 45 days ago: the next check reads from then.
  g_.Check(DaysAgo(45), /*record=*/true);
  g_.Run("r-failed", "growth_funnel", DaysAgo(35), DaysAgo(35), "failed");
  g_.Run("r-old-failed", "growth_funnel", DaysAgo(50), DaysAgo(50), "failed");
  g_.Run("r-ok", "growth_funnel", DaysAgo(34), DaysAgo(34));
  Agent("run-session", "fixer", 35, "completed", "r-failed");
  Agent("run-session", "before-window", 50, "completed", "r-old-failed");
  Agent("other", "crashed", 40, "failed");
  Agent("other", "crashed-long-ago", 60, "failed");
  Agent("ok-session", "fine", 34, "completed", "r-ok");

  json dry = Call("agent_log.prune", {{"older_than_days", 30}, {"dry_run", true}});
  std::map<std::string, std::string> kept = Kept(dry);
  ASSERT_EQ(kept.size(), 2u) << dry.dump(2);
  EXPECT_NE(kept["fixer"].find("run r-failed failed at " + DaysAgo(35)), std::string::npos) << kept["fixer"];
  EXPECT_EQ(kept["crashed"], "a failed agent in the goal check's window (since " + DaysAgo(45) + ")");
  EXPECT_EQ(Removed(dry), (std::vector<std::string>{"before-window", "crashed-long-ago", "fine"}));
  EXPECT_TRUE(dry["dry_run"].get<bool>());

  // With a recent check, the window is the 14 days of the medians: all old.
  g_.Check(DaysAgo(1), true);
  EXPECT_TRUE(Call("agent_log.prune", {{"older_than_days", 30}, {"dry_run", true}})["kept"].empty());
}

TEST_F(PruneEvidence, ACostSpikeKeepsTheRowsOfItsRun) {
  // Three 1-dollar runs and a 5-dollar one in the ledger's 14 days: r-big
  // is a spike; a short --older-than makes its rows old enough to go.
  std::string ledger = g_.dir().Join("costs/costs.sqlite");
  testing::WriteFile(ledger, "");
  std::remove(ledger.c_str());
  {
    auto db = Db::Open(ledger);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL);"
                            "INSERT INTO cost_events VALUES('" + DaysAgo(5) + "', 'r-1', 'run', 1),"
                            "('" + DaysAgo(4) + "', 'r-2', 'run', 1), ('" + DaysAgo(3) + "', 'r-3', 'run', 1),"
                            "('" + DaysAgo(2) + "', 'r-big', 'run', 5)").ok());
  }
  CapturingEnv env(DefaultEnv(), T(kNow));
  SnapshotOutsideFiles(env, g_.db(), g_.dir().path(), T(kNow));
  Agent("pass-big", "gate", 2, "completed", "r-big");
  Agent("pass-small", "gate", 3, "completed", "r-3");
  json report = Call("agent_log.prune", {{"older_than_days", 1}});
  std::map<std::string, std::string> kept = Kept(report);
  ASSERT_EQ(kept.size(), 1u) << report.dump(2);
  EXPECT_EQ(report["kept"][0]["session_id"], "pass-big");
  EXPECT_EQ(kept["gate"], "run r-big is a cost spike since the last check");
  EXPECT_EQ(report["removed"].size(), 1u);
  EXPECT_EQ(report["removed"][0]["session_id"], "pass-small");
}

}  // namespace
}  // namespace pulse

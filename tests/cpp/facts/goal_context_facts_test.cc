// The goal check's context facts: each rule on a fixture with known answers
// (spikes at exactly 2× and at 1.99×, the median of one run, events without
// a run id, the error-rate minimum, window edges, the login patterns and
// their near misses), and the snapshot of hostile outside files (bad lines
// skipped and counted, a ledger that is not SQLite, nothing stored lost).
#include <gtest/gtest.h>

#include <sqlite3.h>

#include "core/api/facts.h"
#include "core/facts/fact_snapshot.h"
#include "core/facts/goal_context_facts.h"
#include "tests/cpp/goal/goal_test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::GoalConfigJson;
using testing::GoalDb;
using testing::T;
using testing::WriteFile;

const char kNow[] = "2026-10-07T12:00:00Z";

// A workflow folder beside the database, its outside files written by tests.
class FactsFixture {
 public:
  FactsFixture() : g_(GoalConfigJson(), kNow), env_(DefaultEnv(), T(kNow)) {}
  GoalDb& g() { return g_; }
  std::string Dir() const { return g_.dir().path(); }
  void Write(const std::string& rel, const std::string& text) { WriteFile(g_.dir().Join(rel), text); }

  // A cost ledger with `rows` (at, run_id or "" for NULL, usd).
  void Ledger(const std::vector<std::tuple<std::string, std::string, double>>& rows) {
    std::string path = g_.dir().Join("costs/costs.sqlite");
    WriteFile(path, "");
    std::remove(path.c_str());
    OpenOptions rollback;  // the ledger's own journal mode is not Pulse's to choose
    rollback.wal = false;
    auto db = Db::Open(path, rollback);
    ASSERT_TRUE(db.ok()) << db.status().message();
    ASSERT_TRUE((*db)->Exec("CREATE TABLE IF NOT EXISTS cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL)").ok());
    for (auto& [at, run, usd] : rows) AddCost(**db, at, run, usd);
  }
  static void AddCost(Db& db, const std::string& at, const std::string& run, double usd) {
    auto put = db.Prepare("INSERT INTO cost_events(at, run_id, source, usd) VALUES(?, ?, 'run', ?)");
    ASSERT_TRUE(put.ok());
    put->Bind(1, at);
    if (run.empty()) put->BindNull(2);
    else put->Bind(2, run);
    put->Bind(3, usd);
    ASSERT_TRUE(put->Run().ok());
  }

  SnapshotReport Snapshot() { return SnapshotOutsideFiles(env_, g_.db(), Dir(), T(kNow)); }
  ContextFacts Facts() {
    auto f = GatherContextFacts(g_.db(), g_.config(), T(kNow));
    EXPECT_TRUE(f.ok()) << f.status().message();
    return f.ok() ? *f : ContextFacts{};
  }
  json FactsJson() { return ContextFactsJson(Facts()); }

 private:
  GoalDb g_;
  CapturingEnv env_;
};

TEST(GoalContextFacts, CostSpikeIsAtLeastTwiceTheMedian) {
  EXPECT_EQ(TwiceMedian({}), 0);
  EXPECT_EQ(TwiceMedian({5}), 10);
  EXPECT_EQ(TwiceMedian({1, 2}), 3);
  EXPECT_EQ(TwiceMedian({3, 1, 2}), 4);
  EXPECT_TRUE(IsCostSpike(UsdToMicros(2.00), TwiceMedian({UsdToMicros(1.00)})));
  EXPECT_FALSE(IsCostSpike(UsdToMicros(1.99), TwiceMedian({UsdToMicros(1.00)})));
  EXPECT_FALSE(IsCostSpike(UsdToMicros(5), 0));  // no median: no spike
}

TEST(GoalContextFacts, NoLedgerIsAnEmptyFactNotAnError) {
  FactsFixture fx;
  SnapshotReport r = fx.Snapshot();
  EXPECT_TRUE(r.warnings.empty());
  json f = fx.FactsJson();
  EXPECT_EQ(f["spend"]["ledger"], "missing");
  EXPECT_EQ(f["spend"]["last_7_days_usd"], 0.0);
  EXPECT_TRUE(f["spend"]["ratio"].is_null());
  EXPECT_TRUE(f["spend"]["budget"].is_null());
  EXPECT_TRUE(f["cost_spikes"].empty());
  EXPECT_TRUE(f["plan_changes"].empty());
  EXPECT_TRUE(f["builder_asks"].is_array());
  EXPECT_TRUE(f["builder_asks"].empty());
  EXPECT_FALSE(f["needs_reauth"].get<bool>());
}

TEST(GoalContextFacts, EmptyLedgerIsReadAndSpendsNothing) {
  FactsFixture fx;
  fx.Ledger({});
  EXPECT_TRUE(fx.Snapshot().warnings.empty());
  json f = fx.FactsJson();
  EXPECT_EQ(f["spend"]["ledger"], "ok");
  EXPECT_EQ(f["spend"]["events_last_7_days"], 0);
  EXPECT_EQ(f["spend"]["runs_14_days"], 0);
}

TEST(GoalContextFacts, SpendWindowsAndTheirEdges) {
  FactsFixture fx;
  fx.Ledger({{"2026-10-07T12:00:00Z", "", 1.0},    // now: the last 7 days
             {"2026-09-30T12:00:01Z", "", 2.0},    // one second inside the last 7 days
             {"2026-09-30T12:00:00Z", "", 4.0},    // exactly 7 days ago: the 7 before
             {"2026-09-23T12:00:00Z", "", 8.0},    // exactly 14 days ago: outside both
             {"2026-10-07T12:00:01Z", "", 16.0}}); // after now: not yet a fact
  fx.Snapshot();
  json s = fx.FactsJson()["spend"];
  EXPECT_EQ(s["last_7_days_usd"], 3.0);
  EXPECT_EQ(s["previous_7_days_usd"], 4.0);
  EXPECT_EQ(s["change_usd"], -1.0);
  EXPECT_EQ(s["ratio"], 0.75);
  EXPECT_EQ(s["events_last_7_days"], 2);
}

TEST(GoalContextFacts, SpikesGroupByRunIdAndEventsWithoutOneCountOnlyInTotals) {
  FactsFixture fx;
  fx.g().Run("r-goal", "growth_funnel", "2026-10-06T09:00:00Z", "2026-10-06T09:30:00Z");
  // Medians over r-1 (1.00), r-2 (1.00), r-3 (1.00), r-goal (2.00 in two
  // events), r-near (1.99): median 1.00, so r-goal (exactly 2×) is a spike
  // and r-near (1.99×) is not. The 50-dollar chat event has no run.
  fx.Ledger({{"2026-10-01T09:00:00Z", "r-1", 1.0},
             {"2026-10-02T09:00:00Z", "r-2", 1.0},
             {"2026-10-03T09:00:00Z", "r-3", 1.0},
             {"2026-10-06T09:10:00Z", "r-goal", 1.5},
             {"2026-10-06T09:20:00Z", "r-goal", 0.5},
             {"2026-10-06T10:00:00Z", "r-near", 1.99},
             {"2026-10-06T11:00:00Z", "", 50.0}});
  fx.Snapshot();
  json f = fx.FactsJson();
  ASSERT_EQ(f["cost_spikes"].size(), 1u) << f.dump(2);
  const json& s = f["cost_spikes"][0];
  EXPECT_EQ(s["run_id"], "r-goal");
  EXPECT_EQ(s["usd"], 2.0);
  EXPECT_EQ(s["median_run_usd"], 1.0);
  EXPECT_EQ(s["ratio"], 2.0);
  EXPECT_EQ(s["route"], "growth_funnel");
  EXPECT_TRUE(s["goal_route"].get<bool>());
  EXPECT_EQ(f["spend"]["runs_14_days"], 5);
  EXPECT_NEAR(f["spend"]["last_7_days_usd"].get<double>(), 56.99, 1e-9);  // r-1..r-3 too
}

TEST(GoalContextFacts, TheMedianOfOneRunIsNeverASpike) {
  FactsFixture fx;
  fx.Ledger({{"2026-10-06T09:00:00Z", "r-only", 9.0}});
  fx.Snapshot();
  json f = fx.FactsJson();
  EXPECT_TRUE(f["cost_spikes"].empty());
  EXPECT_EQ(f["spend"]["median_run_usd_14_days"], 9.0);
}

TEST(GoalContextFacts, HostileLedgerRowsAreSkippedAndCounted) {
  FactsFixture fx;
  fx.Ledger({{"2026-10-06T09:00:00Z", "r-1", 1.0},
             {"2026-10-06T09:00:00Z", "r-2", -3.0},
             {"yesterday", "r-3", 1.0}});
  {
    auto db = Db::Open(fx.g().dir().Join("costs/costs.sqlite"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO cost_events VALUES('2026-10-06T09:00:00Z', 'r-4', 'run', 'lots')").ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO cost_events VALUES('2026-10-06T09:00:00Z', 'r-5', 'run', 9e999)").ok());
  }
  SnapshotReport r = fx.Snapshot();
  ASSERT_EQ(r.warnings.size(), 4u);
  EXPECT_EQ(r.warnings[0], "costs/costs.sqlite: row 2: usd -3.000000 is negative, skipped");
  EXPECT_NE(r.warnings[1].find("costs/costs.sqlite: row 3: at"), std::string::npos) << r.warnings[1];
  EXPECT_NE(r.warnings[2].find("row 4: usd is not a number"), std::string::npos);
  EXPECT_NE(r.warnings[3].find("row 5: usd is not finite"), std::string::npos);
  json f = fx.FactsJson();
  EXPECT_EQ(f["spend"]["last_7_days_usd"], 1.0);
  json ledger;
  for (const json& s : f["sources"]) if (s["file"] == "costs/costs.sqlite") ledger = s;
  EXPECT_EQ(ledger["state"], "ok");
  EXPECT_EQ(ledger["skipped"], 4);
  const std::string said = "unreadable: costs/costs.sqlite: row 2: usd -3.000000 is negative (and 3 more skipped)";
  EXPECT_EQ(f["unreadable"], json::array({said}));
  // The next read copies only new rows; the skipped ones are still named.
  {
    auto db = Db::Open(fx.g().dir().Join("costs/costs.sqlite"));
    ASSERT_TRUE(db.ok());
    FactsFixture::AddCost(**db, "2026-10-06T10:00:00Z", "r-6", 1.0);
  }
  EXPECT_TRUE(fx.Snapshot().warnings.empty());
  EXPECT_EQ(fx.FactsJson()["unreadable"], json::array({said}));
}

TEST(GoalContextFacts, ALedgerThatIsNotSqliteIsUnreadableAndLosesNothingStored) {
  FactsFixture fx;
  fx.Ledger({{"2026-10-06T09:00:00Z", "r-1", 1.5}});
  fx.Snapshot();
  // Replaced by a truncated copy: the first bytes of a SQLite file only.
  std::string path = fx.g().dir().Join("costs/costs.sqlite");
  std::string bytes = testing::ReadFileOrDie(path);
  fx.Write("costs/costs.sqlite", bytes.substr(0, 100));
  SnapshotReport r = fx.Snapshot();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].find("costs/costs.sqlite: "), 0u) << r.warnings[0];
  json f = fx.FactsJson();
  EXPECT_EQ(f["spend"]["ledger"], "unreadable");
  EXPECT_EQ(f["spend"]["unreadable"].get<std::string>().find("unreadable: costs/costs.sqlite: "), 0u);
  EXPECT_EQ(f["spend"]["last_7_days_usd"], 1.5);  // the rows copied before are kept
  ASSERT_EQ(f["unreadable"].size(), 1u);
  // Not SQLite at all, and a table with the wrong columns: the same.
  fx.Write("costs/costs.sqlite", "this is a text file, not a ledger\n");
  fx.Snapshot();
  EXPECT_EQ(fx.FactsJson()["spend"]["ledger"], "unreadable");
  std::remove(path.c_str());
  {
    auto db = Db::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE cost_events(at TEXT, amount REAL)").ok());
  }
  r = fx.Snapshot();
  json s = fx.FactsJson()["spend"];
  EXPECT_EQ(s["ledger"], "unreadable");
  EXPECT_NE(s["unreadable"].get<std::string>().find("no such column"), std::string::npos) << s.dump();
  EXPECT_EQ(s["last_7_days_usd"], 1.5);
}

TEST(GoalContextFacts, TheLedgerIsNeverWritten) {
  FactsFixture fx;
  fx.Ledger({{"2026-10-06T09:00:00Z", "r-1", 1.5}});
  std::string path = fx.g().dir().Join("costs/costs.sqlite");
  std::string before = testing::ReadFileOrDie(path);
  auto listing = [&] {
    auto names = DefaultEnv()->ListDir(fx.g().dir().Join("costs"));
    return names.ok() ? *names : std::vector<std::string>{"(unlistable)"};
  };
  const std::vector<std::string> files = listing();
  fx.Snapshot();
  fx.Snapshot();
  EXPECT_EQ(testing::ReadFileOrDie(path), before);
  EXPECT_EQ(listing(), files) << "no journal, -wal or -shm file left beside the ledger";
}

TEST(GoalContextFacts, ChangelogBadLinesAreSkippedCountedAndNamed) {
  FactsFixture fx;
  fx.Write("planning/plan.json", R"({"routes": {"growth_funnel": {"steps": ["s-grow", {"id": "s-post"}]},
                                                "publish_review": {"steps": ["s-review"]}}})");
  fx.Write("chats.json", R"([{"session_id": "b-1", "kind": "builder", "account": "ana"}, {"kind": "run"}])");
  fx.Write("planning/changelog.jsonl",
           "{\"at\": \"2026-10-05T10:00:00Z\", \"tool\": \"update_step\", \"reason\": \"shorter intro\", "
           "\"steps\": [\"s-grow\"], \"who\": \"ana\", \"session\": \"b-1\"}\n"
           "not json at all\n"
           "\n"
           "{\"at\": \"someday\", \"tool\": \"update_step\"}\n"
           "{\"at\": \"2026-10-06T10:00:00Z\", \"tool\": \"update_step\", \"steps\": [\"s-review\"]}\n"
           "{\"at\": \"2026-10-06T11:00:00Z\", \"tool\": \"configure_goal_metrics\", \"reason\": \"x\"}\n"
           "{\"at\": \"2026-10-06T12:00:00Z\", \"tool\": \"update_step\", \"reason\": \"count Subscribers daily\"}\n"
           "[1, 2]\n");
  SnapshotReport r = fx.Snapshot();
  // chats.json's entry without a session, and three changelog lines.
  ASSERT_EQ(r.warnings.size(), 4u) << ::testing::PrintToString(r.warnings);
  EXPECT_EQ(r.warnings[0].find("planning/changelog.jsonl:2: malformed JSON"), 0u) << r.warnings[0];
  EXPECT_EQ(r.warnings[1].find("planning/changelog.jsonl:4: at"), 0u) << r.warnings[1];
  EXPECT_EQ(r.warnings[2], "planning/changelog.jsonl:8: expected a JSON object, skipped");
  json f = fx.FactsJson();
  ASSERT_EQ(f["plan_changes"].size(), 4u);
  const json& first = f["plan_changes"][0];
  EXPECT_TRUE(first["touches_goal"].get<bool>());
  EXPECT_EQ(first["goal_steps"], json::array({"s-grow"}));
  EXPECT_TRUE(first["builder_chat"].get<bool>());
  EXPECT_FALSE(f["plan_changes"][1]["touches_goal"].get<bool>());  // another route's step
  EXPECT_TRUE(f["plan_changes"][2]["touches_metric"].get<bool>());  // configure_goal_metrics
  EXPECT_TRUE(f["plan_changes"][3]["touches_metric"].get<bool>());  // names the metric
  json changelog;
  for (const json& s : f["sources"]) if (s["file"] == "planning/changelog.jsonl") changelog = s;
  EXPECT_EQ(changelog["state"], "ok");
  EXPECT_EQ(changelog["skipped"], 3);
  // The fact says what could not be read, and the rest of the check goes on.
  ASSERT_EQ(f["unreadable"].size(), 2u) << f["unreadable"].dump(2);
  EXPECT_EQ(f["unreadable"][0], "unreadable: chats.json: [1]: no session_id");
  std::string line = f["unreadable"][1];
  EXPECT_EQ(line.find("unreadable: planning/changelog.jsonl:2: malformed JSON"), 0u) << line;
  EXPECT_NE(line.find("(and 2 more skipped)"), std::string::npos) << line;
  // Read again after the file lost its lines: nothing stored is lost.
  fx.Write("planning/changelog.jsonl", "garbage\n");
  fx.Snapshot();
  EXPECT_EQ(fx.FactsJson()["plan_changes"].size(), 4u);
}

TEST(GoalContextFacts, PlanChangesRunFromTheLastRecordedCheck) {
  FactsFixture fx;
  fx.g().Check("2026-10-06T10:00:00Z", /*record=*/true);
  fx.Write("planning/changelog.jsonl",
           "{\"at\": \"2026-10-06T10:00:00Z\", \"tool\": \"at_the_check\"}\n"
           "{\"at\": \"2026-10-06T10:00:01Z\", \"tool\": \"after_the_check\"}\n");
  fx.Snapshot();
  json f = fx.FactsJson();
  EXPECT_EQ(f["since"], "2026-10-06T10:00:00Z");
  ASSERT_EQ(f["plan_changes"].size(), 1u);
  EXPECT_EQ(f["plan_changes"][0]["tool"], "after_the_check");
}

TEST(GoalContextFacts, AnOversizedChangelogIsUnreadableWithItsBound) {
  FactsFixture fx;
  fx.Write("planning/changelog.jsonl", std::string(200, 'x'));
  CapturingEnv env(DefaultEnv(), T(kNow));
  SnapshotLimits limits;
  limits.max_changelog_bytes = 100;
  SnapshotReport r = SnapshotOutsideFiles(env, fx.g().db(), fx.Dir(), T(kNow), limits);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "planning/changelog.jsonl: too large (200 bytes; the bound is 100)");
  EXPECT_EQ(env.lines, r.warnings);
}

TEST(GoalContextFacts, ErrorRateNeedsItsMinimumOfRuns) {
  EXPECT_FALSE(IsErrorRateSpike(2, 1, 0.0));   // one failed run of two
  EXPECT_FALSE(IsErrorRateSpike(4, 4, 0.0));   // under the minimum of runs
  EXPECT_FALSE(IsErrorRateSpike(5, 1, 0.0));   // one failure is not a spike
  EXPECT_TRUE(IsErrorRateSpike(5, 2, 0.0));
  EXPECT_TRUE(IsErrorRateSpike(5, 2, 0.2));    // 0.4 is exactly 2× 0.2
  EXPECT_FALSE(IsErrorRateSpike(5, 2, 0.25));  // 0.4 < 0.5
  EXPECT_TRUE(IsErrorRateSpike(6, 3, std::nullopt));
  EXPECT_EQ(MedianShare({}), std::nullopt);
  EXPECT_EQ(*MedianShare({0.5, 0.0, 0.1}), 0.1);
}

TEST(GoalContextFacts, ErrorRateFromRunsAgainstTheDailyMedian) {
  FactsFixture fx;
  // The 14 whole days before today, one completed run each: median daily
  // share 0. A run 15 days ago is outside.
  for (int d = 1; d <= 15; ++d) {
    std::string day = FormatTime(T("2026-10-07T09:00:00Z") - d * kSecondsPerDay);
    fx.g().Run("old-" + std::to_string(d), "publish_review", day, day, d == 15 ? "failed" : "completed");
  }
  fx.g().Check("2026-10-07T00:00:00Z", true);
  fx.Write("runs/iteration-1/default/run.json",
           R"({"run_id": "n-1", "started_at": "2026-10-07T08:00:00Z", "finished_at": "2026-10-07T08:10:00Z",
               "status": "failed", "error": "step fetch: HTTP 401 Unauthorized", "cost_usd": 0.4,
               "concerns": ["CONCERNS: the Substack session expired; re-authenticate"]})");
  fx.Write("runs/iteration-1/default/route_selection.json", R"({"route": "growth_funnel"})");
  for (int i = 2; i <= 5; ++i) {
    std::string n = std::to_string(i);
    fx.Write("runs/iteration-" + n + "/default/run.json",
             R"({"run_id": "n-)" + n + R"(", "started_at": "2026-10-07T09:00:00Z", "finished_at": "2026-10-07T09:0)" + n +
                 R"(:00Z", "status": ")" + (i == 2 ? "error" : "completed") + R"(", "error": ""})");
  }
  fx.Write("runs/iteration-6/default/run.json", "{\"run_id\": ");  // truncated: skipped, named
  SnapshotReport r = fx.Snapshot();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].find("runs/iteration-6/default/run.json: malformed JSON"), 0u) << r.warnings[0];
  json f = fx.FactsJson();
  const json& e = f["error_rate"];
  EXPECT_EQ(e["runs"], 5);
  EXPECT_EQ(e["failed"], 2);
  EXPECT_EQ(e["share"], 0.4);
  EXPECT_EQ(e["median_daily_share"], 0.0);
  EXPECT_EQ(e["days_with_runs"], 14);
  EXPECT_TRUE(e["spike"].get<bool>());
  const json& h = f["run_health"];
  EXPECT_EQ(h["failed"], 2);
  ASSERT_EQ(h["failed_runs"].size(), 2u);
  EXPECT_EQ(h["concerns"][0]["run_id"], "n-1");
  ASSERT_EQ(f["login_hints"].size(), 2u) << f["login_hints"].dump(2);
  EXPECT_EQ(f["login_hints"][0]["pattern"], "http_401");
  EXPECT_EQ(f["login_hints"][0]["where"], "error");
  EXPECT_EQ(f["login_hints"][1]["pattern"], "expired_login");
  EXPECT_EQ(f["login_hints"][1]["where"], "concerns");
  EXPECT_TRUE(f["needs_reauth"].get<bool>());
  ContextFacts facts = fx.Facts();
  EXPECT_EQ(NeedsReauthLine(facts),
            "Needs re-auth: re-connect what run n-1 uses (http_401 in its error: \"401\").");
}

// A run is its run.json row when it has one (wherever that row's time
// falls), else the after-run hook's row: counted once, in the window and in
// the daily shares; a schedule counts every after-run row.
TEST(GoalContextFacts, EachRunCountsOnceFromRunJsonOrTheAfterRunRow) {
  FactsFixture fx;
  for (int d = 1; d <= 4; ++d) {
    std::string at = "2026-10-0" + std::to_string(d) + "T09:00:00Z";
    fx.g().Run("h-" + std::to_string(d), "publish_review", at, at, d == 2 ? "failed" : "completed");
  }
  fx.g().Run("g-1", "growth_funnel", "2026-10-06T08:00:00Z", "2026-10-06T08:05:00Z", "failed");
  ASSERT_TRUE(fx.g().db().Exec("UPDATE goal_run_facts SET error = 'HTTP 403 from the API' WHERE run_id = 'g-1'").ok());
  fx.g().Run("g-2", "research", "2026-10-06T09:00:00Z", "2026-10-06T09:05:00Z");
  fx.g().Run("j-1", "research", "2026-10-06T09:50:00Z", "2026-10-06T10:00:00Z");
  // g-2's run.json finished long before the window; j-1's says it failed.
  fx.Write("runs/iteration-1/default/run.json",
           R"({"run_id": "g-2", "started_at": "2026-09-01T00:00:00Z", "finished_at": "2026-09-01T00:10:00Z",
               "status": "failed", "error": "step fetch: 401"})");
  fx.Write("runs/iteration-2/default/run.json",
           R"({"run_id": "j-1", "started_at": "2026-10-06T09:50:00Z", "finished_at": "2026-10-06T10:00:00Z",
               "status": "failed", "error": "step write: timeout"})");
  fx.Snapshot();
  json f = fx.FactsJson();
  const json& h = f["run_health"];
  EXPECT_EQ(h["runs"], 6);
  EXPECT_EQ(h["failed"], 3);
  ASSERT_EQ(h["failed_runs"].size(), 3u) << h.dump(2);
  EXPECT_EQ(h["failed_runs"][0]["run_id"], "j-1");
  EXPECT_EQ(h["failed_runs"][0]["error"], "step write: timeout");
  EXPECT_EQ(h["failed_runs"][1]["run_id"], "g-1");
  EXPECT_EQ(h["failed_runs"][1]["error"], "HTTP 403 from the API");
  EXPECT_EQ(h["failed_runs"][1]["route"], "growth_funnel");
  EXPECT_TRUE(h["failed_runs"][1]["goal_route"].get<bool>());
  EXPECT_EQ(h["failed_runs"][2]["run_id"], "h-2");
  ASSERT_EQ(f["login_hints"].size(), 1u) << f["login_hints"].dump(2);
  EXPECT_EQ(f["login_hints"][0]["run_id"], "g-1");
  EXPECT_EQ(f["login_hints"][0]["pattern"], "http_403");
  // Days 1 to 4 and 6 (g-1 and j-1 failed; g-2 counts on 1 Sep, outside).
  const json& e = f["error_rate"];
  EXPECT_EQ(e["days_with_runs"], 5);
  EXPECT_EQ(e["median_daily_share"], 0.0);
  ASSERT_FALSE(h["schedules"].empty());
  EXPECT_EQ(h["schedules"][0]["id"], "daily");
  EXPECT_EQ(h["schedules"][0]["runs"], 7);
  EXPECT_EQ(h["schedules"][0]["failed"], 2);
}

// Each labelled pattern: lines it must match, and two near misses of its
// own that must match nothing at all (a hint raises "needs re-auth").
struct PatternCases {
  const char* pattern;
  std::vector<const char*> matches;
  std::vector<const char*> near_misses;
};

TEST(GoalContextFacts, EachLoginPatternAndTwoNearMisses) {
  const PatternCases cases[] = {
      {"http_401", {"GET /feed returned 401", "HTTP 401: token rejected"},
       {"listening on port 4010", "version 2.401 released"}},
      {"http_403", {"status=403 forbidden", "got 403 from api.substack.com"},
       {"order #14031 shipped", "ticket PLAT-403 closed"}},
      {"unauthorized", {"request was Unauthorized", "unauthenticated: sign-in required"},
       {"authorized by ana", "unauthorized_retries=0 in the metrics"}},
      {"invalid_grant", {"token refresh failed: invalid_grant", "{\"error\":\"invalid_grant\"}"},
       {"invalid_grants_total=0", "no_invalid_grant_seen flag set"}},
      {"expired_login", {"Access token has expired", "session expired while posting", "expired login for ana@example.com"},
       {"the coupon expired yesterday", "trial expired; upgrade"}},
      {"reauthenticate", {"please re-authenticate the Gmail connection", "you need to log in again"},
       {"authenticated as ana", "reauth_count=0"}},
      {"mcp_connection", {"MCP server gmail: connection refused", "failed to connect to MCP server notion"},
       {"database connection refused", "MCP server started"}},
  };
  for (const PatternCases& c : cases) {
    EXPECT_EQ(c.near_misses.size(), 2u) << c.pattern;
    for (const char* line : c.matches) {
      std::vector<LoginMatch> m = MatchLoginHints(line);
      ASSERT_FALSE(m.empty()) << c.pattern << ": " << line;
      EXPECT_EQ(m[0].pattern, c.pattern) << line;
    }
    for (const char* line : c.near_misses) {
      std::vector<LoginMatch> m = MatchLoginHints(line);
      EXPECT_TRUE(m.empty()) << c.pattern << " near miss \"" << line << "\" matched " << (m.empty() ? "" : m[0].pattern);
    }
  }
}

TEST(GoalContextFacts, OwnerAnswersSinceTheLastCheck) {
  FactsFixture fx;
  ApiContext ctx;
  auto made = ContextFromDb(fx.g().db(), fx.g().env());
  ASSERT_TRUE(made.ok());
  ctx = *made;
  auto d = CallApi(ctx, "decision.create", json{{"question", "Post twice a week?"}, {"options", {"yes", "no"}}});
  ASSERT_TRUE(d.ok()) << d.status().message();
  auto a = CallApi(ctx, "decision.answer", json{{"id", (*d)["id"]}, {"option", "yes"}});
  ASSERT_TRUE(a.ok()) << a.status().message();
  json f = fx.FactsJson();
  ASSERT_EQ(f["owner_answers"].size(), 1u);
  EXPECT_EQ(f["owner_answers"][0]["question"], "Post twice a week?");
  EXPECT_EQ(f["owner_answers"][0]["answer"], "yes");
}

TEST(GoalContextFacts, GoalStatusDocumentCarriesFactsAndNeedsReauth) {
  FactsFixture fx;
  auto made = ContextFromDb(fx.g().db(), fx.g().env());
  ASSERT_TRUE(made.ok());
  ApiContext ctx = *made;
  ctx.workflow_dir = fx.Dir();
  ctx.outside_files = &ReadOutsideFiles;  // the folder at hand, as the native program has it
  fx.Write("runs/iteration-1/default/run.json",
           R"({"run_id": "n-1", "started_at": "2026-10-07T08:00:00Z", "finished_at": "2026-10-07T08:10:00Z",
               "status": "failed", "error": "oauth: invalid_grant"})");
  auto doc = CallApi(ctx, "goal.check", json::object());
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_TRUE((*doc)["needs_reauth"].get<bool>());
  EXPECT_EQ((*doc)["facts"]["login_hints"][0]["pattern"], "invalid_grant");
  // The browser's view: the same database, no folder, the same facts.
  ApiContext browser = *made;
  auto again = CallApi(browser, "goal.facts", json::object());
  ASSERT_TRUE(again.ok());
  json expected = (*doc)["facts"];
  expected["workflow"] = "wf";
  EXPECT_EQ(*again, expected);
}

}  // namespace
}  // namespace pulse

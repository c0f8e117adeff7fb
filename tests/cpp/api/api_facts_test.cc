// The goal check's context facts at the API edge (core/api/facts.cc): the
// typed facts as JSON (dollars from micro-dollars, ratios rounded, a
// skipped line named), goal.facts snapshotting the workflow's outside files
// where its folder is at hand and reading the database alone where not, and
// the goal status document that carries them.
#include "core/api/facts.h"

#include "core/facts/fact_snapshot.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::Workflow;

TEST(ApiFacts, TheTypedFactsAsJsonKeepDollarsExactAndNameWhatWasSkipped) {
  ContextFacts f;
  f.since = T("2026-10-06T12:00:00Z");
  f.now = T("2026-10-07T12:00:00Z");
  f.spend.last_7_days_micros = 4500000;
  f.spend.previous_7_days_micros = 3000000;
  f.spend.events_last_7_days = 9;
  f.cost_median = CostMedian{4, 1000000};
  f.cost_spikes.push_back(CostSpike{"r-9", 2000000, 1500000, T("2026-10-07T09:10:00Z"), "growth_funnel", true});
  f.error_rate.runs = 6;
  f.error_rate.failed = 2;
  f.error_rate.share = 1.0 / 3.0;
  f.sources.push_back(FactSource{kChangelogFile, "ok", "planning/changelog.jsonl:3: malformed JSON", 4, "t"});
  f.sources.push_back(FactSource{kLedgerFile, "unreadable", "costs/costs.sqlite: file is not a database", 0, "t"});
  json j = ContextFactsJson(f);
  EXPECT_EQ(j["since"], "2026-10-06T12:00:00Z");
  EXPECT_TRUE(j["last_check_at"].is_null());
  const json& s = j["spend"];
  EXPECT_EQ(s["last_7_days_usd"], 4.5);
  EXPECT_EQ(s["change_usd"], 1.5);
  EXPECT_EQ(s["ratio"], 1.5);
  EXPECT_EQ(s["median_run_usd_14_days"], 0.5);
  EXPECT_EQ(s["runs_14_days"], 4);
  EXPECT_EQ(s["ledger"], "unreadable");
  EXPECT_EQ(s["unreadable"], "unreadable: costs/costs.sqlite: file is not a database");
  EXPECT_EQ(j["cost_spikes"][0]["ratio"], 2.67);
  EXPECT_EQ(j["cost_spikes"][0]["median_run_usd"], 0.75);
  EXPECT_EQ(j["error_rate"]["share"], 0.3333);
  EXPECT_TRUE(j["error_rate"]["median_daily_share"].is_null());
  EXPECT_EQ(j["unreadable"], (json{"unreadable: planning/changelog.jsonl:3: malformed JSON (and 3 more skipped)",
                                   "unreadable: costs/costs.sqlite: file is not a database"}));
  EXPECT_EQ(j["needs_reauth"], false);

  f.spend.previous_7_days_micros = 0;
  f.sources.clear();
  f.last_check_at = T("2026-10-06T12:00:00Z");
  json k = ContextFactsJson(f);
  EXPECT_TRUE(k["spend"]["ratio"].is_null()) << "no ratio against nothing spent";
  EXPECT_EQ(k["spend"]["ledger"], "missing");
  EXPECT_EQ(k["last_check_at"], "2026-10-06T12:00:00Z");
}

TEST(ApiFacts, GoalFactsSnapshotsTheFolderWhereItIsAtHand) {
  Workflow wf;
  testing::WriteFile(wf.w.paths.dir + "/" + kChangelogFile,
                     R"({"at": "2026-10-07T08:00:00Z", "tool": "update_step", "steps": ["step-3"], "who": "ana"})" "\n");
  json facts = wf.Call("goal.facts", json::object());
  EXPECT_EQ(facts["workflow"], "substack");
  ASSERT_EQ(facts["plan_changes"].size(), 1u) << facts.dump();
  EXPECT_EQ(facts["plan_changes"][0]["tool"], "update_step");
  EXPECT_EQ(facts["plan_changes"][0]["steps"], json{"step-3"});
  bool listed = false;
  for (const json& s : facts["sources"]) listed = listed || (s["file"] == kChangelogFile && s["state"] == "ok");
  EXPECT_TRUE(listed) << facts["sources"].dump();

  // The browser has the database alone: what was copied stays, a file
  // written since is not read.
  Result<ApiContext> browser = ContextFromDb(*wf.w.db, wf.env);
  ASSERT_TRUE(browser.ok()) << browser.status().message();
  testing::WriteFile(wf.w.paths.dir + "/" + kChangelogFile,
                     R"({"at": "2026-10-07T08:00:00Z", "tool": "update_step", "steps": ["step-3"], "who": "ana"})" "\n"
                     R"({"at": "2026-10-07T09:00:00Z", "tool": "add_step", "steps": ["step-9"]})" "\n");
  Result<json> db_only = CallApi(*browser, "goal.facts", json::object());
  ASSERT_TRUE(db_only.ok()) << db_only.status().message();
  EXPECT_EQ((*db_only)["plan_changes"].size(), 1u);

  ApiContext none;
  none.env = &wf.env;
  Result<json> no_db = CallApi(none, "goal.facts", json::object());
  ASSERT_FALSE(no_db.ok());
  EXPECT_EQ(no_db.status().message(), "goal.facts: needs a database (a workflow's db/db.sqlite)");
}

TEST(ApiFacts, TheGoalStatusDocumentCarriesTheFactsAndRecordsOnlyWhenAsked) {
  Workflow wf;
  wf.OnTrack();
  Result<json> look = GoalStatusDocument(wf.ctx, false);
  ASSERT_TRUE(look.ok()) << look.status().message();
  EXPECT_EQ((*look)["status"], "on_track");
  EXPECT_TRUE((*look)["facts"].is_object());
  EXPECT_EQ((*look)["needs_reauth"], false);
  EXPECT_TRUE(wf.Call("goal.last_check", json::object())["checked_at"].is_null());
  ASSERT_TRUE(GoalStatusDocument(wf.ctx, true).ok());
  json last = wf.Call("goal.last_check", json::object());
  EXPECT_EQ(last["checked_at"], "2026-10-07T12:00:00Z");
  EXPECT_EQ(last["status"], "on_track");
}

}  // namespace
}  // namespace pulse

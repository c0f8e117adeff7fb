// Goal facts: readings, after-run facts (idempotent, reading by run id or
// window, either order), the schedule-runs.json import, bad input that
// records nothing, and the goal.* API methods' shapes.
#include <gtest/gtest.h>

#include "tests/cpp/goal/goal_test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::GoalConfigJson;
using testing::GoalDb;
using testing::T;

TEST(GoalFacts, FinalizingARunTwiceChangesNothing) {
  GoalDb g(GoalConfigJson());
  RunRecord r;
  r.run_id = "r-1";
  r.route = "growth_funnel";
  r.status = "completed";
  r.started_at = T("2026-10-07T09:00:00Z");
  r.finished_at = T("2026-10-07T09:30:00Z");
  auto first = RecordRunFacts(g.db(), g.config(), r, T("2026-10-07T09:31:00Z"));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, RecordOutcome::kInserted);
  auto second = RecordRunFacts(g.db(), g.config(), r, T("2026-10-07T10:00:00Z"));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, RecordOutcome::kUnchanged);
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts"), 1);
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts WHERE recorded_at = '2026-10-07T09:31:00Z'"
                    " AND primary_route = 1 AND completed = 1 AND primary_reading = 0"), 1);
}

TEST(GoalFacts, ScheduleRunsNeverOverrideARunsOwnFactsButAreReplacedByThem) {
  GoalDb g(GoalConfigJson());
  auto older = ParseScheduleRuns(json::parse(R"([
    {"run_id": "a", "schedule_id": "daily", "started_at": "2026-09-01T09:00:00Z",
     "finished_at": "2026-09-01T09:30:00Z", "status": "completed", "route": "growth_funnel"},
    {"run_id": "b", "schedule_id": "daily", "started_at": "2026-09-02T09:00:00Z",
     "finished_at": "2026-09-02T09:30:00Z", "status": "failed", "route": "research"},
    {"run_id": "b", "schedule_id": "daily", "started_at": "2026-09-02T09:00:00Z",
     "finished_at": "2026-09-02T09:30:00Z", "status": "failed", "route": "research"}])"), "schedule-runs.json");
  ASSERT_TRUE(older.ok()) << older.status().message();
  auto c1 = ImportScheduleRuns(g.db(), g.config(), *older, 0);
  ASSERT_TRUE(c1.ok());
  EXPECT_EQ(c1->imported, 2);
  auto c2 = ImportScheduleRuns(g.db(), g.config(), *older, 0);
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->imported, 0);
  EXPECT_EQ(c2->already, 2);
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts WHERE origin = 'schedule_runs'"), 2);
  // The run's own finalize replaces the imported row...
  g.Run("b", "research", "2026-09-02T09:00:00Z", "2026-09-02T09:35:00Z", "error");
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts WHERE run_id = 'b' AND origin = 'finalize_run'"
                    " AND status = 'error'"), 1);
  // ...and a later import leaves it alone.
  ASSERT_TRUE(ImportScheduleRuns(g.db(), g.config(), *older, 0).ok());
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts WHERE run_id = 'b' AND status = 'error'"), 1);
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts"), 2);
}

TEST(GoalFacts, ImportInBatchesTakesTheNewestRunsFirstUntilNoneRemain) {
  GoalDb g(GoalConfigJson());
  // Seven runs, out of order in the file; r5 and r6 finish at the same time
  // (the later start first), r0 is already known.
  g.Run("r0", "growth_funnel", "2026-09-01T09:00:00Z", "2026-09-01T09:30:00Z");
  g.Read(10, "2026-09-10T12:00:00Z", "workflow_run", "r3");   // names r3
  g.Read(11, "2026-09-05T09:10:00Z", "workflow_run");          // inside r1's window
  std::string text = "[";
  const char* runs[][3] = {{"r3", "2026-09-10T09:00:00Z", "2026-09-10T09:30:00Z"},
                           {"r1", "2026-09-05T09:00:00Z", "2026-09-05T09:30:00Z"},
                           {"r6", "2026-09-20T08:00:00Z", "2026-09-20T10:00:00Z"},
                           {"r0", "2026-09-01T09:00:00Z", "2026-09-01T09:30:00Z"},
                           {"r5", "2026-09-20T09:00:00Z", "2026-09-20T10:00:00Z"},
                           {"r2", "2026-09-07T09:00:00Z", "2026-09-07T09:30:00Z"},
                           {"r4", "2026-09-15T09:00:00Z", "2026-09-15T09:30:00Z"}};
  for (auto& r : runs) {
    text += std::string(text.size() > 1 ? "," : "") + R"({"run_id": ")" + r[0] + R"(", "schedule_id": "daily", )" +
            R"("started_at": ")" + r[1] + R"(", "finished_at": ")" + r[2] +
            R"(", "status": "completed", "route": "growth_funnel"})";
  }
  auto parsed = ParseScheduleRuns(json::parse(text + "]"), "schedule-runs.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const auto ids = [&] {
    std::string out;
    auto q = g.db().Prepare("SELECT run_id FROM goal_run_facts ORDER BY run_id");
    EXPECT_TRUE(q.ok());
    while (q.ok() && *q->Step()) out += q->Text(0) + " ";
    return out;
  };
  auto c1 = ImportScheduleRuns(g.db(), g.config(), *parsed, 0, 3);
  ASSERT_TRUE(c1.ok());
  EXPECT_EQ(c1->imported, 3);
  EXPECT_EQ(c1->already, 1);
  EXPECT_EQ(c1->remaining, 3);
  EXPECT_EQ(ids(), "r0 r4 r5 r6 ");  // the newest: r5 (same finish as r6, later start), r6, r4
  auto c2 = ImportScheduleRuns(g.db(), g.config(), *parsed, 0, 3);
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->imported, 3);
  EXPECT_EQ(c2->already, 4);
  EXPECT_EQ(c2->remaining, 0);
  EXPECT_EQ(ids(), "r0 r1 r2 r3 r4 r5 r6 ");
  auto c3 = ImportScheduleRuns(g.db(), g.config(), *parsed, 0, 3);
  ASSERT_TRUE(c3.ok());
  EXPECT_EQ(c3->imported, 0);
  EXPECT_EQ(c3->remaining, 0);
  // An imported run's primary reading: by run id (r3) or inside its window (r1).
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts WHERE primary_reading = 1 AND run_id IN ('r1', 'r3')"), 2);
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts WHERE primary_reading = 1"), 2);
  // Without a limit everything comes in at once.
  GoalDb all(GoalConfigJson());
  auto c = ImportScheduleRuns(all.db(), all.config(), *parsed, 0);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->imported, 7);
  EXPECT_EQ(c->remaining, 0);
}

TEST(GoalFacts, PrimaryReadingByRunIdOrWindowInEitherOrder) {
  GoalDb g(GoalConfigJson());
  // Reading first, then the run: matched by run id.
  g.Read(10, "2026-10-01T12:00:00Z", "workflow_run", "by-id");
  g.Run("by-id", "growth_funnel", "2026-10-01T09:00:00Z", "2026-10-01T09:30:00Z");  // reading outside its window
  // Reading without a run id, inside the window.
  g.Read(11, "2026-10-02T09:10:00Z", "workflow_run");
  g.Run("window", "growth_funnel", "2026-10-02T09:00:00Z", "2026-10-02T09:30:00Z");
  // Run first, reading after finalize.
  g.Run("late", "growth_funnel", "2026-10-03T09:00:00Z", "2026-10-03T09:30:00Z");
  g.Read(12, "2026-10-03T09:20:00Z", "workflow_run", "late");
  // A reading naming another run does not count for a run whose window holds it.
  g.Run("other", "growth_funnel", "2026-10-04T09:00:00Z", "2026-10-04T09:30:00Z");
  g.Read(13, "2026-10-04T09:20:00Z", "workflow_run", "someone-else");
  // Builder-chat readings and other metrics never count.
  g.Run("chat", "growth_funnel", "2026-10-05T09:00:00Z", "2026-10-05T09:30:00Z");
  g.Read(14, "2026-10-05T09:20:00Z", "builder_chat");
  g.Read(15, "2026-10-05T09:21:00Z", "workflow_run", "", "pageviews");
  for (const char* id : {"by-id", "window", "late"}) {
    EXPECT_EQ(g.Count(std::string("SELECT primary_reading FROM goal_run_facts WHERE run_id = '") + id + "'"), 1) << id;
  }
  for (const char* id : {"other", "chat"}) {
    EXPECT_EQ(g.Count(std::string("SELECT primary_reading FROM goal_run_facts WHERE run_id = '") + id + "'"), 0) << id;
  }
}

TEST(GoalFacts, ReadingsAreIdempotentAndValidated) {
  GoalDb g(GoalConfigJson());
  g.Read(10, "2026-10-01T12:00:00Z", "manual");
  g.Read(11, "2026-10-01T12:00:00Z", "manual");  // same reading again, corrected
  EXPECT_EQ(g.Count("SELECT count(*) FROM pulse_goal_observations"), 1);
  EXPECT_EQ(g.Count("SELECT value FROM pulse_goal_observations"), 11);
  EXPECT_FALSE(ParseReadingSource("slack").ok());
  auto ctx = ContextFromDb(g.db(), g.env());
  ASSERT_TRUE(ctx.ok());
  auto bad_source = CallApi(*ctx, "goal.observe", {{"metric", "subscribers"}, {"value", 1}, {"source", "slack"}});
  EXPECT_EQ(bad_source.status().code(), Code::kInvalidArgument);
  auto bad_at = CallApi(*ctx, "goal.observe",
                        {{"metric", "subscribers"}, {"value", 1}, {"source", "manual"}, {"at", "yesterday"}});
  EXPECT_NE(bad_at.status().message().find("at: "), std::string::npos);
  auto bad_value = CallApi(*ctx, "goal.observe", {{"metric", "subscribers"}, {"value", "many"}, {"source", "manual"}});
  EXPECT_FALSE(bad_value.ok());
  EXPECT_EQ(g.Count("SELECT count(*) FROM pulse_goal_observations"), 1);
}

TEST(GoalFacts, BadRunFilesAreRejectedNamingTheFileAndTheProblem) {
  EXPECT_NE(ParseJsonText("{\"run_id\": ", "x/run.json").status().message().find("x/run.json: malformed JSON"),
            std::string::npos);
  auto no_id = ParseRunJson(json::parse(R"({"started_at": "2026-10-01T09:00:00Z"})"), "x/run.json");
  EXPECT_EQ(no_id.status().message(), "x/run.json: run.run_id: missing");
  auto bad_status = ParseRunJson(json::parse(R"({"run_id": "r", "started_at": "2026-10-01T09:00:00Z",
      "finished_at": "2026-10-01T09:30:00Z", "status": "ok"})"), "x/run.json");
  EXPECT_NE(bad_status.status().message().find("x/run.json: run.status: expected completed"), std::string::npos);
  auto backwards = ParseRunJson(json::parse(R"({"run_id": "r", "started_at": "2026-10-01T09:00:00Z",
      "finished_at": "2026-10-01T08:30:00Z", "status": "completed"})"), "x/run.json");
  EXPECT_NE(backwards.status().message().find("is before started_at"), std::string::npos);
  EXPECT_FALSE(ParseRouteSelection(json::parse(R"({"route": 3})"), "x/route_selection.json").ok());
  EXPECT_FALSE(ParseRouteSelection(json::parse(R"([])"), "x/route_selection.json").ok());
  // One bad entry rejects the whole schedule-runs.json, and nothing is imported.
  auto runs = ParseScheduleRuns(json::parse(R"([
    {"run_id": "a", "started_at": "2026-09-01T09:00:00Z", "finished_at": "2026-09-01T09:30:00Z", "status": "completed"},
    {"run_id": "b", "started_at": "soon", "finished_at": "2026-09-01T09:30:00Z", "status": "completed"}])"),
                                "w/schedule-runs.json");
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(runs.status().message().find("w/schedule-runs.json: [1].started_at"), std::string::npos);
  GoalDb g(GoalConfigJson());
  auto ctx = ContextFromDb(g.db(), g.env());
  ASSERT_TRUE(ctx.ok());
  auto api = CallApi(*ctx, "goal.import_schedule_runs", json{{"runs", json::parse(R"([
    {"run_id": "a", "started_at": "2026-09-01T09:00:00Z", "finished_at": "2026-09-01T09:30:00Z", "status": "completed"},
    {"run_id": "b", "started_at": "2026-09-01T09:00:00Z", "finished_at": "2026-09-01T09:30:00Z", "status": "done"}])")}});
  EXPECT_EQ(api.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts"), 0);
}

TEST(GoalFacts, FinalizeRecordsOlderRunsAndTheRunTogetherOrNotAtAll) {
  GoalDb g(GoalConfigJson());
  std::vector<RunRecord> older(2);
  older[0].run_id = "a";
  older[1].run_id = "b";
  for (RunRecord& r : older) {
    r.status = "completed";
    r.route = "research";
    r.started_at = T("2026-09-01T09:00:00Z");
    r.finished_at = T("2026-09-01T09:30:00Z");
  }
  RunRecord run = older[0];
  run.run_id = "boom";
  // A failure inside the transaction (here a trigger) leaves no row at all.
  ASSERT_TRUE(g.db().Exec("CREATE TEMP TRIGGER boom BEFORE INSERT ON goal_run_facts WHEN NEW.run_id = 'boom'"
                          " BEGIN SELECT RAISE(ABORT, 'refusing boom'); END").ok());
  auto failed = FinalizeRun(g.db(), g.config(), run, older, 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("refusing boom"), std::string::npos);
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts"), 0);
  ASSERT_TRUE(g.db().Exec("DROP TRIGGER boom").ok());
  auto done = FinalizeRun(g.db(), g.config(), run, older, 0);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(done->run, RecordOutcome::kInserted);
  EXPECT_EQ(done->imported.imported, 2);
  EXPECT_EQ(g.Count("SELECT count(*) FROM goal_run_facts"), 3);
}

TEST(GoalFacts, RunFolderAndScheduleRunsFilesThroughEnv) {
  testing::TempDir dir;
  Env* env = DefaultEnv();
  std::string run_dir = dir.Join("runs/iteration-1/default");
  EXPECT_EQ(ReadRunFolder(*env, run_dir).status().message(), run_dir + ": no such run folder");
  testing::WriteFile(run_dir + "/run.json", R"({"run_id": "r-1", "started_at": "2026-10-07T09:00:00Z",
      "finished_at": "2026-10-07T09:30:00Z", "status": "completed", "trigger": "schedule:daily", "error": ""})");
  EXPECT_EQ(ReadRunFolder(*env, run_dir + "/").status().message(), run_dir + "/route_selection.json: missing");
  testing::WriteFile(run_dir + "/route_selection.json", R"({"route": "growth_funnel"})");
  auto run = ReadRunFolder(*env, run_dir);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->run_id, "r-1");
  EXPECT_EQ(run->route, "growth_funnel");
  EXPECT_EQ(run->schedule_id, "daily");
  EXPECT_EQ(run->finished_at, T("2026-10-07T09:30:00Z"));
  // No schedule-runs.json: nothing to import; a broken one names itself.
  auto none = ReadScheduleRunsFile(*env, dir.Join("schedule-runs.json"));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  testing::WriteFile(dir.Join("schedule-runs.json"), "{}");
  EXPECT_EQ(ReadScheduleRunsFile(*env, dir.Join("schedule-runs.json")).status().message(),
            dir.Join("schedule-runs.json") + ": expected a JSON array of runs");
}

TEST(GoalApi, RecordRunReadingsAndRunsByRoute) {
  GoalDb g(GoalConfigJson(R"(, "target": 1000, "baseline": 200, "direction": "increase")"));
  auto ctx = ContextFromDb(g.db(), g.env());
  ASSERT_TRUE(ctx.ok());
  json run = {{"run_id", "r-1"}, {"started_at", "2026-10-07T09:00:00Z"}, {"finished_at", "2026-10-07T09:30:00Z"},
              {"status", "completed"}, {"trigger", "schedule:daily"}, {"error", ""}};
  ASSERT_TRUE(CallApi(*ctx, "goal.observe", {{"metric", "subscribers"}, {"value", 412}, {"at", "2026-10-07T09:10:00Z"},
                                             {"source", "workflow_run"}}).ok());
  auto rec = CallApi(*ctx, "goal.record_run", {{"run", run}, {"route", "growth_funnel"}});
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_EQ((*rec)["outcome"], "inserted");
  EXPECT_EQ((*rec)["primary_route"], true);
  EXPECT_EQ((*rec)["primary_reading"], true);
  EXPECT_EQ((*CallApi(*ctx, "goal.record_run", {{"run", run}, {"route", "growth_funnel"}}))["outcome"], "unchanged");
  run["run_id"] = "r-2";
  run["status"] = "failed";
  ASSERT_TRUE(CallApi(*ctx, "goal.record_run", {{"run", run}, {"route", "research"}}).ok());
  EXPECT_FALSE(CallApi(*ctx, "goal.record_run", {{"run", run}}).ok());  // route missing

  auto readings = CallApi(*ctx, "goal.readings", json::object());
  ASSERT_TRUE(readings.ok());
  EXPECT_EQ((*readings)["metric"], "subscribers");
  EXPECT_EQ((*readings)["target"], 1000);
  EXPECT_EQ((*readings)["baseline"], 200);
  EXPECT_TRUE((*readings)["deadline"].is_null());
  EXPECT_EQ((*readings)["direction"], "increase");
  EXPECT_EQ((*readings)["readings"], json::parse(R"([{"at": "2026-10-07T09:10:00Z", "value": 412,
      "source": "workflow_run", "run_id": "", "by_run": true}])"));

  auto routes = CallApi(*ctx, "goal.runs_by_route", json::object());
  ASSERT_TRUE(routes.ok());
  EXPECT_EQ((*routes)["routes"], json::parse(R"([
      {"route": "growth_funnel", "runs": 1, "completed": 1, "failed": 0, "primary": true},
      {"route": "research", "runs": 1, "completed": 0, "failed": 1, "primary": false}])"));
  auto none = CallApi(*ctx, "goal.runs_by_route", {{"since", "2026-10-08T00:00:00Z"}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)["routes"], json::array());
  EXPECT_FALSE(CallApi(*ctx, "goal.runs_by_route", {{"since", "later"}}).ok());
}

}  // namespace
}  // namespace pulse

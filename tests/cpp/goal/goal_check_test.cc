// The goal check: the Substack case from the seed, the
// silence alarms, "said once, then quiet", the status rule and its edges,
// and the daily check's due-ness. Fixed clock, real SQLite in a temp dir.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/cpp/goal/goal_test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::FindAlarm;
using testing::GoalConfigJson;
using testing::GoalDb;
using testing::T;

namespace fs = std::filesystem;

// tests/fixtures/substack, named by the build (tests/cpp/CMakeLists.txt).
std::string FixtureDir() { return (fs::path(PULSE_TEST_FIXTURES) / "substack").string(); }

json ReadJson(const std::string& path) {
  auto doc = ParseJsonText(testing::ReadFileOrDie(path), path);
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  return doc.ok() ? *doc : json();
}

// Builds the Substack rows with the core functions the CLI calls.
void LoadSubstack(GoalDb& g) {
  std::string wf = FixtureDir() + "/Workflow/substack";
  for (const json& r : ReadJson(FixtureDir() + "/readings.json")) {
    g.Read(r["value"].get<double>(), r["at"].get<std::string>(), r["source"].get<std::string>(),
           r.value("run_id", ""));
  }
  auto older = ParseScheduleRuns(ReadJson(wf + "/schedule-runs.json"), "schedule-runs.json");
  ASSERT_TRUE(older.ok()) << older.status().message();
  auto counts = ImportScheduleRuns(g.db(), g.config(), *older, g.env().NowSeconds());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->imported, 10);
  for (const auto& entry : fs::directory_iterator(wf + "/runs")) {
    std::string dir = entry.path().string() + "/default";
    auto run = ParseRunJson(ReadJson(dir + "/run.json"), dir + "/run.json");
    ASSERT_TRUE(run.ok()) << run.status().message();
    auto route = ParseRouteSelection(ReadJson(dir + "/route_selection.json"), "route_selection.json");
    ASSERT_TRUE(route.ok());
    run->route = *route;
    ASSERT_TRUE(RecordRunFacts(g.db(), g.config(), *run, g.env().NowSeconds()).ok());
  }
}

TEST(GoalCheck, SubstackCaseFromTheSeedPrintsItsFiveFindings) {
  GoalDb g(testing::ReadFileOrDie(FixtureDir() + "/Workflow/substack/workflow.json"));
  LoadSubstack(g);
  GoalCheck c = g.Check("2026-10-07T12:00:00Z");
  json doc = c.ToJson();
  doc["workflow"] = "substack";
  EXPECT_EQ(doc, ReadJson(FixtureDir() + "/expected_check_2026-10-07.json")) << doc.dump(2);
  ASSERT_EQ(c.alarms.size(), 4u);
  EXPECT_EQ(c.alarms[0].message, "not measured by a workflow run for 20 days (last reading 17 Sep)");
  EXPECT_EQ(c.alarms[1].message, "growth_funnel ran 6 times since 17 Sep without a reading");
  EXPECT_EQ(c.alarms[2].message,
            "growth work has not completed for 11 days (the 10 runs since: publish_review \u00d76, research \u00d72, "
            "write_article \u00d71, one failed growth run)");
  EXPECT_EQ(c.alarms[3].message, "no run for 7 days with schedules paused");
  ASSERT_EQ(c.outside_run_readings.size(), 1u);
  EXPECT_EQ(c.outside_run_readings[0].source, "builder_chat");
  EXPECT_EQ(c.status, GoalStatus::kNotMeasured);
}

TEST(GoalCheck, PauseIsSaidOnceThenQuietUntilARunEndsIt) {
  GoalDb g(testing::ReadFileOrDie(FixtureDir() + "/Workflow/substack/workflow.json"));
  LoadSubstack(g);
  // Unrecorded checks never make anything quiet.
  EXPECT_FALSE(g.Check("2026-10-07T11:00:00Z").quiet);
  EXPECT_FALSE(g.Check("2026-10-07T11:30:00Z").quiet);
  GoalCheck first = g.Check("2026-10-07T12:00:00Z", /*record=*/true);
  EXPECT_FALSE(first.quiet);
  EXPECT_EQ(g.Count("SELECT count(*) FROM pulse_goal_checks"), 1);
  // Next day: the days grew, nothing else changed: quiet.
  GoalCheck second = g.Check("2026-10-08T12:00:00Z", true);
  EXPECT_TRUE(second.quiet);
  EXPECT_EQ(second.alarms.size(), 4u);
  EXPECT_EQ(FindAlarm(second, "not_measured")->days, 21);
  EXPECT_TRUE(g.Check("2026-10-09T12:00:00Z", true).quiet);
  // A new run ends the quiet period (and the pause is now its own alarm).
  g.Run("r-0121", "research", "2026-10-09T13:00:00Z", "2026-10-09T13:30:00Z");
  GoalCheck after_run = g.Check("2026-10-09T14:00:00Z", true);
  EXPECT_FALSE(after_run.quiet);
  EXPECT_EQ(FindAlarm(after_run, "no_run"), nullptr);
  const Alarm* paused = FindAlarm(after_run, "schedules_paused");
  ASSERT_NE(paused, nullptr);
  EXPECT_EQ(paused->message, "schedules all paused (morning, afternoon)");
  // Said once again, then quiet again.
  EXPECT_TRUE(g.Check("2026-10-09T15:00:00Z", true).quiet);
  // A reading (even from outside a run) ends it too.
  g.Read(415, "2026-10-09T16:00:00Z", "builder_chat");
  EXPECT_FALSE(g.Check("2026-10-09T17:00:00Z", true).quiet);
  EXPECT_TRUE(g.Check("2026-10-09T18:00:00Z", true).quiet);
  // So does a change in the set of alarms: three days after that run, no_run returns.
  GoalCheck no_run_again = g.Check("2026-10-12T14:00:00Z", true);
  EXPECT_NE(FindAlarm(no_run_again, "no_run"), nullptr);
  EXPECT_FALSE(no_run_again.quiet);
}

TEST(GoalCheck, QuietNeedsAPause) {
  GoalDb g(GoalConfigJson());
  g.Run("r1", "research", "2026-09-01T09:00:00Z", "2026-09-01T09:30:00Z");
  EXPECT_FALSE(g.Check("2026-10-07T12:00:00Z", true).quiet);
  EXPECT_FALSE(g.Check("2026-10-08T12:00:00Z", true).quiet);
}

TEST(GoalCheck, BuilderChatReadingIsNotTheWorkflowMeasuring) {
  GoalDb g(GoalConfigJson(R"(, "target": 1000, "baseline": 200, "baseline_at": "2026-08-01T00:00:00Z")"));
  g.Run("r1", "growth_funnel", "2026-10-06T09:00:00Z", "2026-10-06T09:30:00Z");
  g.Read(500, "2026-10-07T08:00:00Z", "builder_chat");
  g.Read(501, "2026-10-07T09:00:00Z", "manual");
  GoalCheck c = g.Check("2026-10-07T12:00:00Z");
  EXPECT_EQ(c.status, GoalStatus::kNotMeasured);
  const Alarm* a = FindAlarm(c, "not_measured");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->days.has_value());
  EXPECT_EQ(a->message, "never measured by a workflow run");
  EXPECT_EQ(c.value, 501);
  EXPECT_FALSE(c.last_measured_by_run_at.has_value());
  ASSERT_EQ(c.outside_run_readings.size(), 2u);
  EXPECT_EQ(c.outside_run_readings[0].source, "builder_chat");
  EXPECT_EQ(c.outside_run_readings[1].source, "manual");
  EXPECT_EQ(FindAlarm(c, "goal_work_without_reading")->message, "growth_funnel ran once without a reading");
}

TEST(GoalCheck, NoReadingsEver) {
  GoalDb g(GoalConfigJson(R"(, "target": 1000)"));
  g.Run("r1", "growth_funnel", "2026-10-07T09:00:00Z", "2026-10-07T09:30:00Z");
  g.Run("r2", "growth_funnel", "2026-10-07T10:00:00Z", "2026-10-07T10:30:00Z");
  GoalCheck c = g.Check("2026-10-07T12:00:00Z");
  EXPECT_EQ(c.status, GoalStatus::kNotMeasured);
  EXPECT_FALSE(c.value.has_value());
  EXPECT_FALSE(c.last_measured_at.has_value());
  json doc = c.ToJson();
  EXPECT_TRUE(doc["metric"]["value"].is_null());
  EXPECT_TRUE(doc["metric"]["last_measured_by_run_at"].is_null());
  EXPECT_EQ(doc["alarms"][0]["kind"], "not_measured");
  EXPECT_TRUE(doc["alarms"][0]["days"].is_null());
  EXPECT_EQ(FindAlarm(c, "goal_work_without_reading")->message, "growth_funnel ran twice without a reading");
  EXPECT_EQ(FindAlarm(c, "no_run"), nullptr);
}

TEST(GoalCheck, NoRunsEver) {
  GoalDb g(GoalConfigJson(R"(, "target": 1000)"));
  g.Read(300, "2026-10-07T08:00:00Z", "workflow_run");
  GoalCheck c = g.Check("2026-10-07T12:00:00Z");
  const Alarm* a = FindAlarm(c, "no_run");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->message, "no run recorded yet");
  EXPECT_FALSE(a->days.has_value());
  EXPECT_EQ(a->ToJson()["schedules_paused"], false);
  EXPECT_EQ(FindAlarm(c, "goal_work_not_completed"), nullptr);
  EXPECT_EQ(FindAlarm(c, "goal_work_without_reading"), nullptr);
  EXPECT_EQ(c.status, GoalStatus::kAtRisk);  // one reading shows no trend yet, and an alarm
}

TEST(GoalCheck, NoPrimaryMetricIsNoGoalWithNoAlarms) {
  GoalDb g(R"({"schedules": [{"id": "daily", "enabled": false}]})");
  g.Run("r1", "research", "2026-09-01T09:00:00Z", "2026-09-01T09:30:00Z");
  GoalCheck c = g.Check("2026-10-07T12:00:00Z", true);
  EXPECT_EQ(c.status, GoalStatus::kNoGoal);
  EXPECT_TRUE(c.alarms.empty());
  json doc = c.ToJson();
  EXPECT_TRUE(doc["metric"].is_null());
  EXPECT_EQ(doc["alarms"], json::array());
  EXPECT_EQ(doc["quiet"], false);
}

TEST(GoalCheck, AReadingExactlyNDaysOldIsStillWithin) {
  GoalDb g(GoalConfigJson(R"(, "target": 1000, "baseline": 200, "baseline_at": "2026-08-01T00:00:00Z",)"
                          R"( "deadline": "2026-12-31T00:00:00Z")"));
  g.Run("r1", "growth_funnel", "2026-10-04T11:30:00Z", "2026-10-04T12:30:00Z");
  g.Read(800, "2026-10-04T12:00:00Z", "workflow_run", "r1");
  GoalCheck exact = g.Check("2026-10-07T12:00:00Z");
  EXPECT_EQ(FindAlarm(exact, "not_measured"), nullptr);
  EXPECT_NE(exact.status, GoalStatus::kNotMeasured);
  GoalCheck later = g.Check("2026-10-07T12:00:01Z");
  const Alarm* a = FindAlarm(later, "not_measured");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->days, 3);
  EXPECT_EQ(a->message, "not measured by a workflow run for 3 days (last reading 4 Oct)");
  EXPECT_EQ(later.status, GoalStatus::kNotMeasured);
  // The same boundary for no_run (finished 2026-10-04T12:30).
  EXPECT_EQ(FindAlarm(g.Check("2026-10-07T12:30:00Z"), "no_run"), nullptr);
  EXPECT_NE(FindAlarm(g.Check("2026-10-07T12:30:01Z"), "no_run"), nullptr);
}

TEST(GoalCheck, FutureDatedRowsAreNotYetFacts) {
  GoalDb g(GoalConfigJson(R"(, "target": 1000)"));
  g.Run("r1", "growth_funnel", "2026-10-06T09:00:00Z", "2026-10-06T09:30:00Z");
  g.Read(300, "2026-10-06T09:10:00Z", "workflow_run", "r1");
  // Rows from a skewed clock, dated after the check.
  g.Run("r-future", "research", "2026-10-09T09:00:00Z", "2026-10-09T09:30:00Z", "failed");
  g.Read(999, "2026-10-09T09:10:00Z", "workflow_run");
  g.Read(998, "2026-10-10T09:10:00Z", "builder_chat");
  GoalCheck c = g.Check("2026-10-07T12:00:00Z");
  EXPECT_EQ(c.value, 300);
  EXPECT_EQ(*c.last_measured_by_run_at, T("2026-10-06T09:10:00Z"));
  EXPECT_TRUE(c.outside_run_readings.empty());
  EXPECT_EQ(FindAlarm(c, "goal_work_not_completed"), nullptr);
  EXPECT_EQ(FindAlarm(c, "goal_work_without_reading"), nullptr);
  EXPECT_TRUE(c.alarms.empty());
  // Once their time has come they count.
  GoalCheck later = g.Check("2026-10-11T12:00:00Z");
  EXPECT_EQ(later.value, 998);
  EXPECT_EQ(*later.last_measured_by_run_at, T("2026-10-09T09:10:00Z"));
}

TEST(GoalCheck, GoalWorkSkippedWhileOtherRoutesRan) {
  GoalDb g(GoalConfigJson(R"(, "target": 1000)"));
  g.Run("g1", "growth_funnel", "2026-10-01T09:00:00Z", "2026-10-01T09:30:00Z");
  g.Read(300, "2026-10-01T09:10:00Z", "workflow_run", "g1");
  g.Run("p1", "publish_review", "2026-10-02T09:00:00Z", "2026-10-02T09:30:00Z");
  g.Run("g2", "growth_funnel", "2026-10-03T09:00:00Z", "2026-10-03T09:30:00Z", "error");
  g.Run("g3", "growth_funnel", "2026-10-04T09:00:00Z", "2026-10-04T09:30:00Z", "interrupted");
  g.Run("p2", "publish_review", "2026-10-07T09:00:00Z", "2026-10-07T09:30:00Z");
  GoalCheck c = g.Check("2026-10-07T12:00:00Z");
  const Alarm* a = FindAlarm(c, "goal_work_not_completed");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->days, 6);
  EXPECT_EQ(a->message,
            "growth work has not completed for 6 days (the 4 runs since: publish_review \u00d72, two failed growth runs)");
  EXPECT_EQ(a->ToJson()["failed_goal_runs"], 2);
  EXPECT_EQ(a->ToJson()["runs_since"], (json{{"publish_review", 2}}));
  // Two goal runs ran without a reading since 1 Oct.
  EXPECT_EQ(FindAlarm(c, "goal_work_without_reading")->message, "growth_funnel ran twice since 1 Oct without a reading");
  EXPECT_EQ(c.status, GoalStatus::kNotMeasured);
}

// ---- the status rule ----

PrimaryMetric Metric(bool increase, std::optional<double> target, std::optional<double> baseline,
                     std::optional<std::string> baseline_at, std::optional<std::string> deadline) {
  PrimaryMetric m;
  m.name = "m";
  m.route = "r";
  m.increase = increase;
  m.target = target;
  m.baseline = baseline;
  if (baseline_at) m.baseline_at = T(*baseline_at);
  if (deadline) m.deadline = T(*deadline);
  return m;
}

Reading R(double value, const std::string& at, const std::string& source = "workflow_run") {
  Reading r;
  r.value = value;
  r.at = T(at);
  r.source = source;
  return r;
}

StatusInputs In(Reading latest, std::vector<Reading> last_two = {}, bool alarm = false) {
  StatusInputs in;
  in.measured_by_run_recently = true;
  in.latest = latest;
  in.last_two_by_run = last_two.empty() ? std::vector<Reading>{latest} : last_two;
  in.any_alarm = alarm;
  return in;
}

TEST(GoalStatus, StraightLineThresholds) {
  // 0 -> 100 over 100 days: on day 50 the line expects 50.
  PrimaryMetric m = Metric(true, 100, 0, "2026-01-01T00:00:00Z", "2026-04-11T00:00:00Z");
  const std::string day50 = "2026-02-20T00:00:00Z";
  EXPECT_EQ(DecideGoalStatus(m, In(R(50, day50))), GoalStatus::kOnTrack);   // progress 1
  EXPECT_EQ(DecideGoalStatus(m, In(R(50, day50), {}, true)), GoalStatus::kAtRisk);  // 1 with an alarm
  EXPECT_EQ(DecideGoalStatus(m, In(R(40, day50))), GoalStatus::kAtRisk);    // 0.8
  EXPECT_EQ(DecideGoalStatus(m, In(R(39.9, day50))), GoalStatus::kOffTrack);
  EXPECT_EQ(DecideGoalStatus(m, In(R(80, day50))), GoalStatus::kOnTrack);
  StatusInputs stale = In(R(80, day50));
  stale.measured_by_run_recently = false;
  EXPECT_EQ(DecideGoalStatus(m, stale), GoalStatus::kNotMeasured);
}

TEST(GoalStatus, DirectionDecrease) {
  // Churn 10% -> 2% over 100 days: on day 50 the line expects 6%.
  PrimaryMetric m = Metric(false, 2, 10, "2026-01-01T00:00:00Z", "2026-04-11T00:00:00Z");
  const std::string day50 = "2026-02-20T00:00:00Z";
  EXPECT_EQ(DecideGoalStatus(m, In(R(6, day50))), GoalStatus::kOnTrack);
  EXPECT_EQ(DecideGoalStatus(m, In(R(5, day50))), GoalStatus::kOnTrack);
  EXPECT_EQ(DecideGoalStatus(m, In(R(6.7, day50))), GoalStatus::kAtRisk);   // progress 0.825
  EXPECT_EQ(DecideGoalStatus(m, In(R(7.5, day50))), GoalStatus::kOffTrack);
  EXPECT_EQ(DecideGoalStatus(m, In(R(11, day50))), GoalStatus::kOffTrack);  // moved away
  // No deadline: the trend of the last two run readings, direction-aware.
  PrimaryMetric open = Metric(false, 2, 10, "2026-01-01T00:00:00Z", std::nullopt);
  EXPECT_EQ(DecideGoalStatus(open, In(R(7, day50), {R(7, day50), R(8, "2026-02-10")})), GoalStatus::kOnTrack);
  EXPECT_EQ(DecideGoalStatus(open, In(R(9, day50), {R(9, day50), R(8, "2026-02-10")})), GoalStatus::kOffTrack);
  EXPECT_EQ(DecideGoalStatus(open, In(R(2, day50), {R(2, day50), R(3, "2026-02-10")})), GoalStatus::kOnTrack);  // reached
}

TEST(GoalStatus, NoDeadlineUsesTheLastTwoRunReadings) {
  PrimaryMetric m = Metric(true, 1000, 200, "2026-08-01T00:00:00Z", std::nullopt);
  const std::string a = "2026-10-01", b = "2026-10-05";
  EXPECT_EQ(DecideGoalStatus(m, In(R(420, b), {R(420, b), R(400, a)})), GoalStatus::kOnTrack);
  EXPECT_EQ(DecideGoalStatus(m, In(R(420, b), {R(420, b), R(400, a)}, true)), GoalStatus::kAtRisk);
  EXPECT_EQ(DecideGoalStatus(m, In(R(400, b), {R(400, b), R(400, a)})), GoalStatus::kAtRisk);
  EXPECT_EQ(DecideGoalStatus(m, In(R(380, b), {R(380, b), R(400, a)})), GoalStatus::kOffTrack);
  EXPECT_EQ(DecideGoalStatus(m, In(R(1000, b), {R(1000, b), R(1200, a)})), GoalStatus::kOnTrack);  // target reached
  EXPECT_EQ(DecideGoalStatus(m, In(R(1000, b), {R(1000, b), R(1200, a)}, true)), GoalStatus::kAtRisk);
  EXPECT_EQ(DecideGoalStatus(m, In(R(420, b))), GoalStatus::kAtRisk);  // one reading: no direction yet
}

TEST(GoalStatus, MissingBaselineIsTheFirstReading) {
  // No baseline: the first reading (100 on 1 Jan) starts the line to 200 on 11 Apr.
  PrimaryMetric m = Metric(true, 200, std::nullopt, std::nullopt, "2026-04-11T00:00:00Z");
  StatusInputs in = In(R(150, "2026-02-20T00:00:00Z"));
  in.first = R(100, "2026-01-01T00:00:00Z");
  EXPECT_EQ(DecideGoalStatus(m, in), GoalStatus::kOnTrack);
  in.latest = R(139, "2026-02-20T00:00:00Z");
  EXPECT_EQ(DecideGoalStatus(m, in), GoalStatus::kOffTrack);
  // The first reading is the only one: no line yet, no trend yet.
  StatusInputs only = In(R(100, "2026-01-01T00:00:00Z"));
  only.first = only.latest;
  EXPECT_EQ(DecideGoalStatus(m, only), GoalStatus::kAtRisk);
}

TEST(GoalCheck, StatusFromTheDatabaseEndToEnd) {
  GoalDb g(GoalConfigJson(R"(, "target": 1000, "baseline": 200, "baseline_at": "2026-08-01T00:00:00Z",)"
                          R"( "deadline": "2026-12-31T00:00:00Z")"));
  // The line from 200 (1 Aug) to 1000 (31 Dec) stands near 549 on 6 Oct, 555 on 7 Oct.
  g.Run("g1", "growth_funnel", "2026-10-06T09:00:00Z", "2026-10-06T09:30:00Z");
  g.Read(560, "2026-10-06T09:10:00Z", "workflow_run", "g1");
  EXPECT_EQ(g.Check("2026-10-07T12:00:00Z").status, GoalStatus::kOnTrack);
  EXPECT_TRUE(g.Check("2026-10-07T12:00:00Z").alarms.empty());
  g.Read(500, "2026-10-07T09:10:00Z", "manual");  // the key number is the latest reading (progress 0.85)
  EXPECT_EQ(g.Check("2026-10-07T12:00:00Z").status, GoalStatus::kAtRisk);
  g.Read(300, "2026-10-07T10:10:00Z", "manual");
  EXPECT_EQ(g.Check("2026-10-07T12:00:00Z").status, GoalStatus::kOffTrack);
}

TEST(GoalCheck, DirectionDecreaseAndNoDeadlineFromTheDatabase) {
  // Down from 500 (1 Sep) to 100 (1 Nov): the line stands near 303 on 1 Oct.
  GoalDb down(GoalConfigJson(R"(, "direction": "decrease", "target": 100, "baseline": 500,)"
                             R"( "baseline_at": "2026-09-01T00:00:00Z", "deadline": "2026-11-01T00:00:00Z")"));
  down.Run("g1", "growth_funnel", "2026-10-01T00:00:00Z", "2026-10-01T00:30:00Z");
  down.Read(290, "2026-10-01T00:00:00Z", "workflow_run", "g1");
  EXPECT_EQ(down.Check("2026-10-01T12:00:00Z").status, GoalStatus::kOnTrack);
  down.Read(340, "2026-10-01T00:00:00Z", "workflow_run", "g1");  // the same reading, corrected
  EXPECT_EQ(down.Check("2026-10-01T12:00:00Z").status, GoalStatus::kAtRisk);
  down.Read(350, "2026-10-01T00:00:00Z", "workflow_run", "g1");
  EXPECT_EQ(down.Check("2026-10-01T12:00:00Z").status, GoalStatus::kOffTrack);

  // No deadline: the last two readings by runs decide.
  GoalDb open(GoalConfigJson(R"(, "target": 1000, "baseline": 200)"));
  open.Run("g1", "growth_funnel", "2026-10-05T09:00:00Z", "2026-10-05T09:30:00Z");
  open.Read(400, "2026-10-05T09:10:00Z", "workflow_run", "g1");
  EXPECT_EQ(open.Check("2026-10-05T12:00:00Z").status, GoalStatus::kAtRisk);  // one reading
  open.Run("g2", "growth_funnel", "2026-10-06T09:00:00Z", "2026-10-06T09:30:00Z");
  open.Read(410, "2026-10-06T09:10:00Z", "workflow_run", "g2");
  EXPECT_EQ(open.Check("2026-10-06T12:00:00Z").status, GoalStatus::kOnTrack);
  open.Read(500, "2026-10-06T10:00:00Z", "builder_chat");  // not a run reading: the trend is unchanged
  EXPECT_EQ(open.Check("2026-10-06T12:00:00Z").status, GoalStatus::kOnTrack);
  open.Run("g3", "growth_funnel", "2026-10-07T09:00:00Z", "2026-10-07T09:30:00Z");
  open.Read(405, "2026-10-07T09:10:00Z", "workflow_run", "g3");
  EXPECT_EQ(open.Check("2026-10-07T12:00:00Z").status, GoalStatus::kOffTrack);
}

// ---- due-ness of the daily check ----

TEST(CheckDue, AtMostDailyNeverBesideAPulsePassWithinTheCap) {
  CheckDueInputs in;
  in.has_goal = true;
  in.now = T("2026-10-07T12:00:00Z");
  in.cap = 2;
  CheckDue d = DecideCheckDue(in);
  EXPECT_TRUE(d.due);
  EXPECT_FALSE(d.report_only);
  EXPECT_EQ(d.reason, "due");
  in.last_check_at = T("2026-10-07T00:00:01Z");
  EXPECT_EQ(DecideCheckDue(in).reason, "checked_today");
  in.last_check_at = T("2026-10-06T23:59:59Z");
  EXPECT_TRUE(DecideCheckDue(in).due);
  in.pulse_pass_active = true;
  EXPECT_EQ(DecideCheckDue(in).reason, "pulse_pass_active");
  in.pulse_pass_active = false;
  in.running_checks = 2;
  EXPECT_EQ(DecideCheckDue(in).reason, "concurrency_cap");
  in.running_checks = 1;
  EXPECT_TRUE(DecideCheckDue(in).due);
  in.has_goal = false;
  EXPECT_EQ(DecideCheckDue(in).reason, "no_goal");
  in.has_goal = true;
  in.pulse_enabled = false;
  EXPECT_EQ(DecideCheckDue(in).reason, "pulse_disabled");
}

TEST(CheckDue, APausedWorkflowGetsOneReportOnlyCheck) {
  CheckDueInputs in;
  in.has_goal = true;
  in.paused = true;
  in.now = T("2026-10-07T12:00:00Z");
  CheckDue d = DecideCheckDue(in);
  EXPECT_TRUE(d.due);
  EXPECT_TRUE(d.report_only);
  in.pause_already_reported = true;
  in.last_check_at = T("2026-10-06T12:00:00Z");
  EXPECT_FALSE(DecideCheckDue(in).due);
  EXPECT_EQ(DecideCheckDue(in).reason, "paused_already_reported");
}

TEST(CheckDue, ThroughTheApiOnTheSubstackDatabase) {
  GoalDb g(testing::ReadFileOrDie(FixtureDir() + "/Workflow/substack/workflow.json"));
  LoadSubstack(g);
  g.env().Set(T("2026-10-07T12:00:00Z"));
  auto ctx = ContextFromDb(g.db(), g.env());
  ASSERT_TRUE(ctx.ok());
  json args = {{"pulse_pass_active", false}, {"running_checks", 0}, {"cap", 1}};
  auto due = CallApi(*ctx, "goal.check_due", args);
  ASSERT_TRUE(due.ok()) << due.status().message();
  EXPECT_EQ(*due, (json{{"due", true}, {"report_only", true}, {"reason", "paused_report_only"}}));
  ASSERT_TRUE(CallApi(*ctx, "goal.check", json{{"record", true}}).ok());
  EXPECT_EQ((*CallApi(*ctx, "goal.check_due", args))["reason"], "checked_today");
  g.env().Set(T("2026-10-08T12:00:00Z"));
  EXPECT_EQ((*CallApi(*ctx, "goal.check_due", args))["reason"], "paused_already_reported");
  EXPECT_EQ((*CallApi(*ctx, "goal.check_due", {{"pulse_pass_active", true}}))["reason"], "pulse_pass_active");
  EXPECT_FALSE(CallApi(*ctx, "goal.check_due", {{"cap", 0}}).ok());
}

}  // namespace
}  // namespace pulse

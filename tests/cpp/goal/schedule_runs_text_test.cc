// ParseScheduleRunsText (no JSON tree) against ParseScheduleRuns on the
// tree ParseJsonBounded builds: the same runs, or the same error word for
// word, for good files and for every way a file can be bad.
#include "core/goal/schedule_runs_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base/json_limits.h"
#include "core/base/time_util.h"

namespace pulse {
namespace {

std::string Describe(const Result<std::vector<RunRecord>>& r) {
  if (!r.ok()) return "error: " + r.status().message();
  std::string out;
  for (const RunRecord& run : *r) {
    out += run.run_id + "|" + run.schedule_id + "|" + run.trigger + "|" + std::to_string(run.started_at) + "|" +
           std::to_string(run.finished_at) + "|" + run.status + "|" + run.route + "|" + run.error + "\n";
  }
  return out;
}

std::string ByTree(const std::string& text) {
  Result<nlohmann::json> doc = ParseJsonBounded(text, "schedule-runs.json");
  if (!doc.ok()) return "error: " + doc.status().message();
  return Describe(ParseScheduleRuns(*doc, "schedule-runs.json"));
}

std::string Direct(const std::string& text) { return Describe(ParseScheduleRunsText(text, "schedule-runs.json")); }

const char kRun[] =
    R"({"run_id": "r-1", "schedule_id": "daily", "started_at": "2026-10-01T09:00:00Z",)"
    R"( "finished_at": "2026-10-01T09:30:00Z", "status": "completed", "route": "publish"})";

TEST(ScheduleRunsText, SameRunsAndSameErrorsAsTheTree) {
  const std::vector<std::string> cases = {
      // good
      "[]",
      std::string("[") + kRun + "]",
      std::string("[") + kRun + "," + kRun + "]",
      R"([{"run_id": "a", "started_at": "2026-10-01T09:00:00Z", "finished_at": "2026-10-01T09:00:00Z",)"
      R"( "status": "failed", "schedule_id": null, "route": null, "extra": {"run_id": 5, "x": [1, {"y": 2}]},)"
      R"( "more": [[], {}], "n": 1.5e3, "b": true, "z": null}])",
      // a key twice: the last value counts
      R"([{"run_id": 7, "run_id": "b", "started_at": "2026-10-01T09:00:00Z",)"
      R"( "finished_at": "2026-10-01T10:00:00Z", "status": "error", "status": "interrupted"}])",
      R"([{"run_id": "b", "run_id": {"x": 1}, "started_at": "2026-10-01T09:00:00Z",)"
      R"( "finished_at": "2026-10-01T10:00:00Z", "status": "error"}])",
      "  [ ]  ",
      R"(["\u00e9"])",
      // not an array, or elements that are not runs
      "{}", R"({"runs": []})", "5", "\"text\"", "null", "true",
      R"([1])", R"([[]])", R"([null])", std::string("[") + kRun + ", 3]", std::string("[") + kRun + ", []]",
      // fields
      R"([{}])",
      R"([{"run_id": ""}])",
      R"([{"run_id": null, "status": "completed"}])",
      R"([{"run_id": 12}])",
      R"([{"run_id": "a", "schedule_id": 3}])",
      R"([{"run_id": "a", "started_at": "yesterday"}])",
      R"([{"run_id": "a", "started_at": "2026-10-01T09:00:00Z"}])",
      R"([{"run_id": "a", "started_at": "2026-10-01T09:00:00Z", "finished_at": ["2026"]}])",
      R"([{"run_id": "a", "started_at": "2026-10-01T09:00:00Z", "finished_at": "2026-10-01T09:30:00Z"}])",
      R"([{"run_id": "a", "started_at": "2026-10-01T09:00:00Z", "finished_at": "2026-10-01T09:30:00Z", "status": ""}])",
      R"([{"run_id": "a", "started_at": "2026-10-01T09:00:00Z", "finished_at": "2026-10-01T09:30:00Z", "status": "ok"}])",
      R"([{"run_id": "a", "started_at": "2026-10-01T09:00:00Z", "finished_at": "2026-10-01T08:30:00Z", "status": "failed"}])",
      R"([{"run_id": "a", "started_at": "2026-10-01T09:00:00Z", "finished_at": "2026-10-01T09:30:00Z", "status": "failed", "route": false}])",
      // the first bad run is the one named, however many follow
      std::string("[") + kRun + R"(, {"run_id": 1}, {"run_id": 2}])",
      std::string("[") + kRun + R"(, 4, {"run_id": 2}])",
      // malformed documents: the parser's complaint, even after a bad run
      "", "[", "[,]", R"([{"run_id": "a"})", R"([{"run_id": 1}, )", "[1] x", R"([{"a": 1e999}])",
      R"([{"run_id": "\ud800"}])", "[\"\xff\"]",
      std::string(100, '[') + std::string(100, ']'),
  };
  for (const std::string& text : cases) {
    EXPECT_EQ(Direct(text), ByTree(text)) << text;
  }
  // A few answers spelled out, so the two cannot agree on something wrong.
  EXPECT_EQ(Direct("{}"), "error: schedule-runs.json: expected a JSON array of runs");
  EXPECT_EQ(Direct(R"([{"run_id": 12}])"), "error: schedule-runs.json: [0].run_id: expected a string");
  EXPECT_EQ(Direct(std::string("[") + kRun + ", 3]"), "error: schedule-runs.json: [1]: expected an object");
  EXPECT_EQ(Direct("[1] x").rfind("error: schedule-runs.json: malformed JSON at byte ", 0), 0u) << Direct("[1] x");
  EXPECT_EQ(Direct(std::string("[") + kRun + "]"),
            "r-1|daily|schedule:daily|" + std::to_string(*ParseTime("2026-10-01T09:00:00Z")) + "|" +
                std::to_string(*ParseTime("2026-10-01T09:30:00Z")) + "|completed|publish|\n");
}

}  // namespace
}  // namespace pulse

// GoalCheck: the goal status, the key number and the silence alarms
// (`pulse check --json`, docs/goal.md).
//
// The check is split in two so the rule is testable without SQL:
//  - GatherGoalFacts reads only what the rule needs, each through an index
//    (a handful of point lookups and the runs since the last goal
//    completion), so a million-run history costs what a thousand-run one does;
//  - EvaluateGoalCheck applies the rule to those facts and the clock.
// The browser runs exactly this code over the same database file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/goal/goal_facts.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// The goal's status, in the check document's words (GoalStatusName).
enum class GoalStatus { kOnTrack, kAtRisk, kOffTrack, kNotMeasured, kNoGoal };
const char* GoalStatusName(GoalStatus status);  // "on_track", ...
// The owner's words: "on track", "not measured".
const char* GoalStatusWords(GoalStatus status);

// The silence alarms (AlarmKindName: not_measured, goal_work_without_reading,
// goal_work_not_completed, no_run, schedules_paused).
enum class AlarmKind { kNotMeasured, kGoalWorkWithoutReading, kGoalWorkNotCompleted, kNoRun, kSchedulesPaused };
const char* AlarmKindName(AlarmKind kind);

// One finding.
struct Alarm {
  AlarmKind kind = AlarmKind::kNotMeasured;
  std::optional<int64_t> days;          // null when "never"
  nlohmann::json fields = nlohmann::json::object();  // kind-specific (runs, runs_since, ...)
  std::string message;
  nlohmann::json ToJson() const;
};

// What the rule reads, gathered from the database (rows after `now` are
// ignored: a future-dated reading or run is not yet a fact).
struct GoalFacts {
  std::optional<Reading> latest_reading;        // any source
  std::optional<Reading> first_reading;         // any source; stands in for a missing baseline
  std::vector<Reading> last_two_by_run;         // workflow-run readings, newest first
  std::vector<Reading> outside_run_readings;    // not by a run, after the last run reading; oldest first
  int64_t goal_runs_without_reading = 0;        // primary-route runs since the last run reading, none taken
  std::optional<int64_t> last_goal_completed_at;
  std::map<std::string, int64_t> runs_since_by_route;  // other routes since the last goal completion
  int64_t failed_goal_runs = 0;                 // primary-route runs since then that did not complete
  std::optional<int64_t> last_run_at;           // finish of the latest run, any route
  int64_t max_run_rowid = 0;                    // change detectors for the fingerprint
  int64_t max_reading_rowid = 0;
  std::optional<RecordedCheck> last_recorded;
};

Result<GoalFacts> GatherGoalFacts(Db& db, const WorkflowConfig& config, int64_t now);

struct GoalCheck {
  std::string workflow;
  int64_t checked_at = 0;
  GoalStatus status = GoalStatus::kNoGoal;
  bool has_goal = false;
  std::string metric_name;
  std::optional<double> value;
  std::optional<double> target;
  std::optional<int64_t> last_measured_at;
  std::optional<int64_t> last_measured_by_run_at;
  std::vector<Alarm> alarms;
  std::vector<Reading> outside_run_readings;
  bool quiet = false;
  // Stored with a recorded check; equal fingerprints mean nothing (run,
  // reading, alarm set, pause) changed in between.
  std::string fingerprint;
  bool pause_reported = false;

  bool HasAlarm(AlarmKind kind) const;
  // Exactly the `pulse check --json` document (docs/goal.md).
  nlohmann::json ToJson() const;
};

// The rule itself: pure, no I/O.
GoalCheck EvaluateGoalCheck(const std::string& workflow, const WorkflowConfig& config, const GoalFacts& facts,
                            int64_t now);

// The status rule (docs/goal.md), separated for its own tests. `any_alarm`
// excludes not_measured, which decides the status on its own.
struct StatusInputs {
  bool measured_by_run_recently = false;
  std::optional<Reading> latest;
  std::optional<Reading> first;
  std::vector<Reading> last_two_by_run;  // newest first
  bool any_alarm = false;
};
GoalStatus DecideGoalStatus(const PrimaryMetric& metric, const StatusInputs& in);

// Gathers, evaluates and, when `record`, stores the check (one transaction).
Result<GoalCheck> RunGoalCheck(Db& db, const WorkflowConfig& config, const std::string& workflow, int64_t now,
                               bool record);

// Whether a check now would find the goal measured (its status not "not
// measured"), from the one reading that decides it rather than a whole check.
Result<bool> GoalMeasuredNow(Db& db, const WorkflowConfig& config, int64_t now);

// ---- the daily check's due-ness (the scheduler asks this every tick) ----
struct CheckDueInputs {
  bool has_goal = false;
  bool pulse_enabled = true;
  bool pulse_pass_active = false;  // a Pulse pass holds the workflow's Pulse schedule
  int running_checks = 0;          // goal checks running now, across workflows
  int cap = 1;                     // the Pulse concurrency cap
  bool paused = false;             // every schedule paused
  std::optional<int64_t> last_check_at;
  bool pause_already_reported = false;  // the latest recorded check reported this same paused state
  int64_t now = 0;
};
struct CheckDue {
  bool due = false;
  bool report_only = false;  // paused: Run, Outward and Change all held
  std::string reason;
};
CheckDue DecideCheckDue(const CheckDueInputs& in);

// What the scheduler knows that the database does not.
struct CheckLoad {
  bool pulse_pass_active = false;
  int running_checks = 0;
  int cap = 1;
};
// DecideCheckDue over this workflow's database: the last recorded check, and
// whether a check now would be quiet (the pause already reported).
Result<CheckDue> GoalCheckDue(Db& db, const WorkflowConfig& config, const std::string& workflow,
                              const CheckLoad& load, int64_t now);

}  // namespace pulse

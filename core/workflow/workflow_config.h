// WorkflowConfig: the keys of workflow.json that Pulse reads.
// Missing optional keys take the platform's defaults; unknown keys are kept in
// `raw` and otherwise ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace pulse {

enum class Level { kAsk, kAuto };
enum class AnswerLevel { kRecommend, kAct };

const char* LevelName(Level level);
const char* AnswerLevelName(AnswerLevel level);

// pulse.autonomy: what Pulse may do without asking the owner.
struct AutonomyLevels {
  Level run = Level::kAsk;
  Level outward = Level::kAsk;
  Level change = Level::kAsk;
  AnswerLevel answer = AnswerLevel::kRecommend;
  // Tools the catalog does not know (shell, browser, connected MCP servers):
  // "ask" refuses them in Pulse turns, "allow" lets them through.
  std::string unclassified = "ask";
};

struct GoalCheckSettings {
  int not_measured_days = 3;
  int no_run_days = 3;
};

struct PrimaryMetric {
  std::string name;
  std::string route;
  bool increase = true;  // direction
  std::optional<double> target;
  std::optional<double> baseline;
  std::optional<int64_t> baseline_at;
  std::optional<int64_t> deadline;
};

// What finalize-run does after a run: back up, publish, notify. Each
// schedule has its own (after_run); full runs from a chat use
// after_manual_run.
struct AfterRun {
  bool backup = true;
  bool publish = true;
  bool notify = true;
  bool operator==(const AfterRun& o) const { return backup == o.backup && publish == o.publish && notify == o.notify; }
};

// The retired per-schedule switch that after_run replaces: "basic" and
// "full" meant all three on, "off" none. Read (for one release) only where
// after_run is absent.
AfterRun AfterRunForPulseMode(const std::string& pulse_mode);

struct Schedule {
  std::string id;
  std::string cron;
  bool enabled = true;
  AfterRun after_run;
  bool after_run_set = false;  // after_run was in the file (else it came from pulse_mode or the default)
  std::string pulse_mode;      // "", "basic", "full" or "off"
};

struct WorkflowConfig {
  bool pulse_enabled = true;
  AutonomyLevels autonomy;
  GoalCheckSettings goal_check;
  std::optional<PrimaryMetric> primary_metric;
  std::vector<Schedule> schedules;
  // Full runs started from a chat: backup and publish off, notify on unless set.
  AfterRun after_manual_run{false, false, true};
  // The workflow platform's contract version (0: not stated).
  int contract_version = 0;
  nlohmann::json raw = nlohmann::json::object();

  // "Has a goal": goal.primary_metric is present.
  bool HasGoal() const { return primary_metric.has_value(); }
  // There are schedules and none is enabled.
  bool AllSchedulesPaused() const;
};

// Parses workflow.json text. `source` names the file in error messages
// ("Workflow/substack/workflow.json: pulse.autonomy.run: expected ...").
Result<WorkflowConfig> ParseWorkflowConfig(const std::string& text, const std::string& source);

}  // namespace pulse

// The goal module's JSON documents, shared by the goal.* methods and the
// agent's tools (get_pulse_state, a turn's context).
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/goal/goal_check.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// goal.check_due: {due, report_only, reason}
nlohmann::json CheckDueJson(const CheckDue& due);
// goal.readings: {metric, target, baseline, baseline_at, deadline, direction, readings:[...]}
Result<nlohmann::json> GoalReadingsJson(Db& db, const WorkflowConfig& config);
// goal.runs_by_route: {routes:[{route, runs, completed, failed, primary}]}
Result<nlohmann::json> RunsByRouteJson(Db& db, const WorkflowConfig& config, int64_t since, int64_t now);

}  // namespace pulse

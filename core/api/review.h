// The Workflow Review and after-run documents, shared by the review.* API
// methods and get_pulse_state(view="module").
#pragma once

#include <nlohmann/json.hpp>

#include "core/api/api.h"

namespace pulse {

// {schedules: [{id, cron, enabled, after_run, from, pulse_mode?}], after_manual_run}
nlohmann::json AfterRunOptionsJson(const WorkflowConfig& config);
// ReviewStateJson plus {available, verdict} (available false without the workflow folder).
Result<nlohmann::json> WorkflowReviewJson(ApiContext& ctx);
// The latest Workflow Review record (any revision), or null when none was
// made or the workflow folder is not known: what the workflow list carries.
nlohmann::json LatestReviewJson(const ApiContext& ctx);
// {workflow, workflow_review, after_run, run_summaries, housekeeping}
Result<nlohmann::json> ModuleStateJson(ApiContext& ctx);

}  // namespace pulse

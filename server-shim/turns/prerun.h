// The pre-run service: what `pulse pre-run` and POST /api/workflows/<wf>/pre-run
// do before a run. The rules (the due set, one review per plan revision,
// which break stops which run) are core/review/workflow_review.h; this file only
// starts the review turn and waits for it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/base/status.h"
#include "server-shim/serve.h"

namespace pulse::serve {

struct PreRunRequest {
  std::string workflow;
  std::string step;          // "" for a whole-workflow run
  std::string caller = "schedule";  // schedule: waits (bounded); chat: returns at once
  std::string chat_session;  // chat: told through the outbox when the review ends
  double wait_seconds = -1;  // schedule: how long to wait (-1: options.review_wait)
};

// {"go": true} or {"go": false, "reason": ...}, plus what the review came
// to ({"review": record} when one was waited for).
Result<nlohmann::json> PreRun(Env& env, const ServeOptions& options, TurnManager& turns, const PreRunRequest& request);

// Reads a pre-run request from a JSON body (bounded, typed).
Result<PreRunRequest> PreRunRequestFromJson(const std::string& workflow, const nlohmann::json& body);

// Workflows with an enabled schedule whose plan changed and has been quiet
// for ten minutes are reviewed ahead, one at a time (the tick).
void ReviewAhead(Env& env, const ServeOptions& options, TurnManager& turns, const std::string& workflow,
                 ApiContext& ctx);

// pulse_mode -> after_run in every workflow's workflow.json, at server start
// (the same edit as `pulse migrate`); a workflow that cannot be migrated is
// left as it is. Returns what to log (after the server's address is printed,
// which is its first line).
std::vector<std::string> MigrateAfterRunAtStart(Env& env, const std::string& workspace,
                                                const std::vector<std::string>& workflows);

// A pending housekeeping request of `workflow` becomes one housekeeping turn
// (the tick), when no other turn of the workflow is active.
void StartHousekeeping(TurnManager& turns, const std::string& workflow, ApiContext& ctx);

}  // namespace pulse::serve

// focus.* and request.* methods' shared pieces: Pulse's tools
// (record_pulse_focus_area, record_pulse_qa_request, ...) reach the same
// typed services with the same JSON answers.
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/focus_areas/focus_areas.h"
#include "core/conversation/pulse_requests.h"

namespace pulse {

// workflow.json of this context's workflow; "" in the browser.
std::string WorkflowJsonPath(const ApiContext& ctx);

// Reads {action, id?, title?, end_date?, check?, note?, lesson?}; the action
// must be one of `allowed`.
Status ReadFocusChange(const Args& a, std::initializer_list<FocusAction> allowed, FocusChange* out);

// Carries out one change through the FocusAreas service (lesson lines to
// goal memory) and answers FocusOutcome::ToJson(); ctx.config follows the
// new workflow.json.
Result<nlohmann::json> ApplyFocusChangeJson(ApiContext& ctx, const FocusChange& change);

// {focus_areas: [...], open: n, max_open, default_days}; `open_only` keeps
// proposed and active ones.
Result<nlohmann::json> FocusListJson(ApiContext& ctx, bool open_only);

// {requests: [...]} newest first.
Result<nlohmann::json> RequestsJson(ApiContext& ctx, std::optional<RequestKind> kind, const std::string& status);

void AddFocusApi(ApiRegistry& registry);

}  // namespace pulse

// The goal check's context facts as JSON (`pulse facts --json`, the `facts`
// of `pulse check --json`, goal.facts), and the goal status document that
// carries them. The one place these facts meet JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/facts/goal_context_facts.h"
#include "core/base/status.h"

namespace pulse {

nlohmann::json ContextFactsJson(const ContextFacts& facts);

// The goal check document (docs/goal.md) with `facts` and `needs_reauth`:
// the same for `pulse check --json`, the goal-status route, get_pulse_state
// and a turn's context. Facts are gathered before a recorded check is
// stored, so they run from the previous recorded check.
Result<nlohmann::json> GoalStatusDocument(ApiContext& ctx, bool record);

void AddFactsApi(ApiRegistry& registry);

}  // namespace pulse

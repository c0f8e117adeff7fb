// The goal check's context facts as JSON (`pulse facts --json`, the `facts`
// of `pulse check --json`, goal.facts), and the goal status document that
// carries them. The one place these facts meet JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/attention/attention.h"
#include "core/facts/goal_context_facts.h"
#include "core/base/status.h"

namespace pulse {

nlohmann::json ContextFactsJson(const ContextFacts& facts);

// The context facts now (ContextFactsNow with the context's folder and
// reader, if any).
Result<ContextFacts> FactsNow(ApiContext& ctx, FactsWindow window = FactsWindow::kSinceLatestCheck);

// What the goal status document is made of: the context facts, the goal
// check and the attention items at the context's clock.
struct GoalStatusParts {
  ContextFacts facts;
  GoalCheck check;
  Attention attention;
};
// Facts are gathered before a recorded check is stored, so with `record`
// they run from the previous recorded check, as a reader's do after it.
Result<GoalStatusParts> GoalStatusNow(ApiContext& ctx, bool record, FactsWindow window);

// The goal check document (docs/goal.md) with `facts`, `needs_reauth` and
// the attention items (core/api/attention.h): the same for `pulse check
// --json`, the goal-status route, the workflow list and the browser. A read
// shows the facts since the check before the latest recorded one (the check
// just recorded does not empty them); a turn that is about to check asks
// for FactsWindow::kSinceLatestCheck (what is new since the last check).
Result<nlohmann::json> GoalStatusDocument(ApiContext& ctx, bool record);
Result<nlohmann::json> GoalStatusDocument(ApiContext& ctx, bool record, FactsWindow window);

void AddFactsApi(ApiRegistry& registry);

}  // namespace pulse

// finalize-run's after-run options carried out: notify in code (a failure
// or a status change to the channels through the outbox, a routine success
// recorded for the dashboard only), backup and publish skipped in code when
// the source hash matches the last one, else one housekeeping request that
// the server's tick turns into a short housekeeping turn. Running it twice
// for one run changes nothing.
#pragma once

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/goal/goal_facts.h"
#include "core/base/status.h"

namespace pulse {

// {source, options, notify: {to_channels, why, outbox_id}, backup: {state, why},
//  publish: {state, why}, housekeeping_request?}. States: off, skipped,
//  requested; `already: true` when this run was finalized before.
Result<nlohmann::json> CarryOutAfterRun(ApiContext& ctx, const RunRecord& run);

}  // namespace pulse

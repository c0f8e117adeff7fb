// Pulse's notifications besides the goal check's summary: "needs you" when
// Pulse raises a decision only the owner can make, and the recovery message
// when a goal that was not measured is measured again. Each is one outbox
// message; where it goes is the outbox's rule (core/notify/delivery.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/api/api.h"
#include "core/base/status.h"

namespace pulse {

// One `needs_you` message for decision `decision_id`.
Result<int64_t> SendNeedsYou(ApiContext& ctx, int64_t decision_id, const std::string& question,
                             const std::vector<std::string>& options);

// Looks at the goal now (not recorded) against what the last look saw; sends
// `pulse_recovery` when it is measured again. Returns the message's id when
// one was sent.
Result<std::optional<int64_t>> NoteGoalRecovery(ApiContext& ctx);

}  // namespace pulse

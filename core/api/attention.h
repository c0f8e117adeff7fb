// Attention as JSON: the `attention` (and `schedules`, `rank`,
// `needs_attention`) of the goal status document, and the owner's snoozes
// (attention.snooze, attention.unsnooze). The typed model is
// core/attention/attention.h.
#pragma once

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/attention/attention.h"

namespace pulse {

// Adds attention, schedules, rank and needs_attention to `doc` (a goal
// status document). Items link to the Pulse tab: "#/w/<workflow>/<card>".
void AddAttentionJson(const Attention& attention, const GoalCheck& check, const std::string& workflow,
                      nlohmann::json* doc);

}  // namespace pulse

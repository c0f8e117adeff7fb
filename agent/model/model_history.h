// The model turns of Pulse's conversation. The conversation keeps each
// turn's text and final reply (core/conversation/conversation.h); a model
// turn also made tool calls and read their results in between. Those steps
// are kept beside the conversation, per turn (pulse_model_steps in the
// workflow's db/db.sqlite, natively only: the tab shows the conversation,
// not the steps), so the next turn replays the generation as the model
// lived it: each turn's text, its tool calls and results, its reply.
//
// The replay is bounded: the newest turns first, within a byte budget; tool
// results cut short in it; older turns as text and reply only, the oldest
// not at all (a line says how many were left out). Goal memory carries what
// must last.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/model/model_wire.h"
#include "core/base/status.h"
#include "core/store/db.h"

namespace pulse {

// The bytes of the generation a turn replays, and of one tool result in it.
constexpr size_t kReplayBudgetBytes = 120000;
constexpr size_t kReplayToolResultBytes = 1500;

// Stores the steps of conversation turn `turn_id` (replacing earlier ones).
Status SaveModelSteps(Db& db, int64_t turn_id, const std::string& model_id, const std::vector<ModelMessage>& steps,
                      int64_t now);
// The steps of the turns asked for that have any.
Result<std::map<int64_t, std::vector<ModelMessage>>> LoadModelSteps(Db& db, const std::vector<int64_t>& turn_ids);

// The generation before this turn as messages, oldest first: `transcript`
// is the continuity's [{id, turn, caller, text, reply, state, error}]; the
// charter is left out (it is the system prompt's business).
std::vector<ModelMessage> ReplayMessages(const nlohmann::json& transcript,
                                         const std::map<int64_t, std::vector<ModelMessage>>& steps,
                                         size_t budget = kReplayBudgetBytes);

}  // namespace pulse

// Pulse's turns in its conversation (core/conversation/conversation.h): which session a
// turn runs in, the rollover at the goal check, the continuity a runner is
// handed (restored_conversation_session_id and the generation's transcript),
// and how a turn's end is recorded whatever the runner did. The server's turn
// threads and `pulse talk|pass` call these; the rules are in core.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/autonomy/autonomy.h"
#include "core/conversation/conversation.h"
#include "core/base/status.h"
#include "core/autonomy/tool_sessions.h"

namespace pulse {

// The platform's charter: the first turn of every generation; nobody edits it.
std::string ConversationCharter(const std::string& workflow);

// Whether `kind` runs in the conversation: a Pulse turn on a workflow with a
// goal. Other turns keep their own sessions.
bool RunsInConversation(const ApiContext& ctx, TurnKind kind);

// Before a turn is queued: the conversation exists (generation 1 with the
// charter on the first turn), and a goal check whose generation is due
// starts the next one first. Returns the session id the turn will run in.
Result<std::string> PrepareConversationTurn(ApiContext& ctx, TurnKind kind);

// A turn begun in the conversation: its row, its session (opened again with
// a fresh token) and what came before it in the generation.
struct ConversationTurnHandle {
  ConversationTurn turn;
  OpenedSession session;
  std::vector<ConversationTurn> transcript;  // the generation before this turn
  // {session_id, restored_conversation_session_id, generation, transcript:[{at, turn, caller, text, reply, state}]}
  nlohmann::json ContinuityJson() const;
};
// Busy when another turn holds the conversation.
Result<ConversationTurnHandle> BeginConversationTurn(ApiContext& ctx, TurnKind kind, const TurnStart& start);

// Records the end: completed with the reply, or failed / interrupted with the
// reason. The reply is repaired and bounded here, so no runner output can
// stop the record.
Status EndConversationTurn(ApiContext& ctx, int64_t turn_id, TurnState state, const std::string& reply,
                           const std::string& error);

// The text a turn of `kind` carries into the conversation: its instruction,
// and the message with who wrote it: "The owner wrote:" only when `caller`
// is "owner"; anyone else's words are headed with their account and "not the
// owner".
std::string ConversationTurnText(TurnKind kind, const std::string& message, const std::string& trigger,
                                 const std::string& caller = "", const std::string& account = "");

}  // namespace pulse

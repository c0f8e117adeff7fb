// The asks as turns (core/asks/asks.h, core/asks/ask_builder.h hold the rules):
// ask_pulse's round opened from a chat's call and told to Pulse's
// conversation; ask_builder carried out through the server's Builder
// channel; and the apply message an owner's answer sends to the Builder
// chat. The server's threads and processes are in server-shim.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/asks/ask_builder.h"
#include "core/asks/asks.h"
#include "core/base/status.h"
#include "core/autonomy/tool_sessions.h"

namespace pulse {

// The process's Builder channel (`pulse serve --builder CMD`); null: none.
// Set once at start, before any request is served.
void SetBuilderChannel(const BuilderChannel* channel);
const BuilderChannel* CurrentBuilderChannel();

// ---- ask_pulse ----

// A call of `pulse ask` / POST /ask: {caller, session, account?, message,
// thread_id?, wait_seconds?, call_id?}.
struct AskCall {
  NewAskPulse ask;
  std::string call_id;  // asking again for an earlier call's answer
  int wait_seconds = kAskPulseWaitDefault;
};
Result<AskCall> ReadAskCall(const Args& a);

// The ask as it stands, and whether its turn must be started now (it was
// opened with a free slot, or a queued one's slot freed).
struct AskStart {
  AskRecord record;
  bool start_turn = false;
  // The turn's input ({message, caller, account, ask: {...}}) when start_turn.
  nlohmann::json turn_input;
};
// Opens the round (reading chats.json first, for the owner relay) or reads
// the earlier call back.
Result<AskStart> BeginAskPulse(ApiContext& ctx, const AskCall& call);
// The tick's part: the oldest queued ask whose slot has freed, started
// (status running) with its turn's input; nullopt when none can start now.
// The caller submits the turn, so an ask over the cap is answered without
// its caller asking again.
Result<std::optional<AskStart>> StartNextQueuedAsk(ApiContext& ctx);

// Where an ask_pulse tool call waits for its answer: the server's turn
// threads (`pulse serve` sets it before serving). Null: this process runs no
// Pulse turns.
using AskPulseWaiter = std::function<Result<nlohmann::json>(ApiContext& ctx, const AskCall& call)>;
void SetAskPulseWaiter(const AskPulseWaiter* waiter);

// ask_pulse called as a tool from a platform session (a workflow_step
// session: the guard refuses it in every Pulse and Builder turn). The caller
// is a step and its session the session's root, so a step and its helpers
// keep one thread; {message, thread_id?, call_id?, wait_seconds?} as for
// POST /ask. The answer is the ask's JSON, the same as POST /ask gives.
Result<nlohmann::json> AskPulseTool(ApiContext& ctx, const ToolSession& session, const nlohmann::json& args);

// The ask's words for Pulse: the conversation turn's text and the charter
// part the runner gets (who asks, round N of at most 6 of thread T, the
// decision lines).
std::string AskTurnText(const nlohmann::json& ask, const std::string& message);
std::string AskCharter(const std::string& workflow, const nlohmann::json& ask, bool report_only);

// The turn of an ask ended: its reply (decision lines and all) or why not.
Status FinishAskTurn(ApiContext& ctx, const nlohmann::json& ask, int64_t turn_id, bool ok, const std::string& reply,
                     const std::string& error, const std::string& state);

// ---- ask_builder (Pulse's tool) ----

Result<nlohmann::json> AskBuilderTool(ApiContext& ctx, const std::string& session, const Args& a);
// A fix the Change level holds at ask becomes one decision with Pulse's
// recommendation "Make this fix" (`held`: the guard's reason).
Result<nlohmann::json> AskBuilderFixAsDecision(ApiContext& ctx, const std::string& session, const nlohmann::json& args,
                                               const std::string& held);

// ---- the apply message ----

struct ApplyOutcome {
  bool sent = false;           // a message was made (false: nothing to apply)
  int64_t outbox_id = 0;
  bool delivered = false;
  std::string builder_session_id;
  std::string reason;          // why it waits, or why nothing was sent
  std::string reply;           // the Builder chat's answer once delivered
  nlohmann::json ToJson() const;
};
// After the owner's Accept or Change on `decision_id`: the apply message,
// stored in the outbox and delivered through the Builder channel when a
// Builder chat of the owner's is there.
Result<ApplyOutcome> SendApplyMessage(ApiContext& ctx, int64_t decision_id);
// The tick: undelivered apply messages, tried again (a chat or --builder may
// have appeared).
void DeliverApplyMessages(ApiContext& ctx);

}  // namespace pulse

// A Pulse turn thought through by a model: the built-in agent loop over the
// OpenAI-compatible and Anthropic APIs (model_wire.h).
//
// The turn's charter is the system prompt; the current generation of
// Pulse's conversation is replayed as messages (model_history.h); the turn's
// context — what an external runner reads on stdin — follows as the user
// message; the tools are the catalog an agent gets over MCP (Pulse's own and
// the platform's). Every tool call goes through DispatchToolCall, the guarded
// dispatch of the tool route and MCP, so the guard decides and logs each one
// with its rule; a refusal goes back to the model as the tool's result with
// its reason (is_error). The loop ends when the model answers with text and
// no tool call; past the step cap (--model-max-steps) the turn fails with
// "step cap" and what it did. Tokens are counted, priced from
// .pulse/prices.json and written to the workflow's cost ledger.
//
// The key: read by the caller from the variable the spec names and handed
// in; it goes only into the request's auth header. Any text the turn keeps
// (the reply, an error, a vendor's error body, stored steps) has it blanked.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/model/model_spec.h"
#include "agent/tools/pulse_tools.h"
#include "core/api/api.h"
#include "core/base/status.h"

namespace pulse {

// A final reply longer than this keeps its head and its last lines (where an
// ask's decision lines are), as a runner's stdout is capped.
constexpr size_t kModelReplyBytes = 4000;

struct ModelTurnInput {
  ModelSpec spec;
  std::string key;        // "" : no auth header
  std::string workspace;  // where .pulse/prices.json is
  TurnKind kind = TurnKind::kGoalCheck;
  std::string session;    // the turn's open tool session
  std::string pulse_run_id;
  // What an external runner reads on stdin: {charter, context, skills, turn,
  // conversation?} (the conversation's continuity for a conversation turn).
  nlohmann::json prepared;
  // The turn's input: message, ask, slack, report_only, caller.
  nlohmann::json input = nlohmann::json::object();
  const PlatformForwarder* platform = nullptr;
  const std::atomic<bool>* stopping = nullptr;
  double turn_seconds = 600;  // the whole turn's time
};

struct ModelTurnResult {
  std::string reply;  // the model's final text ("" when it failed)
  std::string error;  // why the turn failed; "" when it did not
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  int requests = 0;
  int round_trips = 0;
  std::optional<double> usd;          // priced from .pulse/prices.json
  std::vector<std::string> tools;     // "update_step: refused (change_level)", in call order
  std::vector<std::string> notes;     // what went wrong around the turn (prices, ledger, retries)
  bool reply_stored = false;          // the reply went to the outbox (pulse_reply, pulse_summary)

  // {result, error?, tokens_in, tokens_out, model, requests, round_trips,
  // usd?, tools, notes?, reply_stored}
  nlohmann::json ToJson(const ModelSpec& spec) const;
};

// Runs the loop. A Status only for what stops the turn before the model is
// asked (the session cannot be read); every failure after that is the
// result's error, with what the turn did.
Result<ModelTurnResult> RunModelTurn(ApiContext& ctx, const ModelTurnInput& in);

// The system prompt's last part: how Pulse's own loop works for the model.
extern const char* const kModelPreface;

// The turn's user message from what a runner reads on stdin (`prepared`)
// and the turn's input: what it is, the owner's or caller's words, its
// context (cut at 100,000 bytes) and the skill documents. A preset program
// (agent/programs/) gets the same message as its prompt.
std::string TurnUserText(const nlohmann::json& prepared, const nlohmann::json& input);

// What a turn thought through by a model or a preset program leaves besides
// its reply. The reply in the outbox: pulse_reply for a message to Pulse,
// pulse_summary for a goal check that is not on track (and not a pause
// already reported); true when stored. `thinker` names the model ("anthropic:NAME").
bool StoreTurnReply(ApiContext& ctx, TurnKind kind, const nlohmann::json& input, const std::string& reply,
                    const std::string& pulse_run_id, const std::string& thinker, std::vector<std::string>* notes);
// The tokens priced from .pulse/prices.json and written to the workflow's
// cost ledger (source 'pulse'); the cost, or nullopt (with a note) when
// there is no price.
std::optional<double> RecordTurnCost(ApiContext& ctx, const std::string& workspace, const ModelSpec& spec,
                                     int64_t tokens_in, int64_t tokens_out, std::vector<std::string>* notes);

}  // namespace pulse

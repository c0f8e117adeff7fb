// Pulse's own tools — get_pulse_state (views goal_status, goal_work,
// agent_log), record_pulse_goal_check, record_pulse_recommendation,
// record_pulse_goal_memory, record_pulse_decision_outcome — and the one
// dispatch path every agent tool call takes (the session tool route, MCP,
// the built-in rules runner): the session is resolved once by the caller and
// passed in, the autonomy guard decides first, then Pulse's own tools run
// through the core's typed calls. A platform tool the guard allows is
// recorded (the guard logs every decision) and answered {"allowed": true,
// "executed": false}: the platform that would run it is outside Pulse.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/autonomy.h"
#include "core/decisions.h"
#include "core/status.h"

namespace pulse {

// Null-safe field reads: nlohmann's value() throws when the key is present
// but null (a recommendation's "text", say), and no exception may escape.
std::string JStr(const nlohmann::json& doc, const char* key, const std::string& fallback = "");
bool JBool(const nlohmann::json& doc, const char* key, bool fallback = false);
nlohmann::json JGet(const nlohmann::json& doc, const char* key, const nlohmann::json& fallback);

// MCP tool descriptors: [{name, title, description, inputSchema}].
const nlohmann::json& PulseToolDefinitions();

// One of Pulse's own tools under any spelling the guard accepts
// (NormalizeToolName in tool_catalog.h): " Record_Pulse_Goal_Check ",
// "mcp__pulse__record_pulse_goal_check". A name in another MCP server's
// namespace is not Pulse's.
bool IsPulseTool(std::string_view name);

// Runs one of Pulse's own tools (no guard: callers go through DispatchToolCall).
// `session` is recorded on what the tool writes (a recommendation's session).
Result<nlohmann::json> ExecutePulseTool(ApiContext& ctx, const std::string& session, const std::string& tool,
                                        const nlohmann::json& args);

// The guard's decision on one call of a session already resolved: a closed
// session is refused (rule session_closed) without a record; otherwise the
// autonomy guard decides on the typed session (GuardSessionCall: a helper
// under a closed root is refused there) and records its decision.
Result<GuardDecision> GuardSessionTool(ApiContext& ctx, const ToolSession& session, const std::string& tool,
                                       const nlohmann::json& args);

// record_pulse_recommendation as a typed call: with input.decision_id set,
// a recommendation on that decision; otherwise `request` opens a new one
// first. A safe default the decisions module refuses on a new decision is
// dropped and reported (safe_default_refused), the recommendation kept.
struct RecommendationOutcome {
  int64_t decision_id = 0;
  bool created = false;
  std::string safe_default_refused;
  DecisionView recommendation;  // the decision with its new recommendation
  nlohmann::json ToJson() const;
};
Result<RecommendationOutcome> RaiseRecommendation(ApiContext& ctx, const DecisionRequest& request,
                                                  RecommendationInput input);

// What one guarded call came to.
struct ToolCallOutcome {
  std::string tool;        // as the caller named it
  GuardDecision guard;     // allowed or refused, the rule and the reason
  bool executed = false;   // one of Pulse's own tools ran
  nlohmann::json result;   // its answer (executed only)

  // {tool, allowed, reason, rule, level?} plus {refused: true} for a refusal,
  // {executed: false, note} for a platform tool, {executed: true, tool (its
  // normalised name), result} for Pulse's own.
  nlohmann::json ToJson() const;
};

// The guarded call for a session already resolved (and, over HTTP, proven by
// its token). A closed session is refused without asking the guard. A
// Status only for bad arguments to Pulse's own tools or failures.
Result<ToolCallOutcome> DispatchToolCall(ApiContext& ctx, const ToolSession& session, const std::string& tool,
                                         const nlohmann::json& args);

}  // namespace pulse

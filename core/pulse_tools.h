// Pulse's own tools — get_pulse_state (views goal_status, goal_work,
// agent_log), record_pulse_goal_check, record_pulse_recommendation,
// record_pulse_goal_memory, record_pulse_decision_outcome — and the one
// dispatch path every agent tool call takes (MCP, the session tool route,
// the built-in rules runner): the session's turn comes from the server's
// binding (its token), the autonomy guard decides first, then Pulse's own
// tools run through the API. A platform tool the guard allows is recorded
// (the guard logs every decision) and answered {"allowed": true,
// "executed": false}: the platform that would run it is outside Pulse.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api.h"
#include "core/status.h"

namespace pulse {

// Null-safe field reads: nlohmann's value() throws when the key is present
// but null (a recommendation's "text", say), and no exception may escape.
std::string JStr(const nlohmann::json& doc, const char* key, const std::string& fallback = "");
bool JBool(const nlohmann::json& doc, const char* key, bool fallback = false);
nlohmann::json JGet(const nlohmann::json& doc, const char* key, const nlohmann::json& fallback);

// MCP tool descriptors: [{name, title, description, inputSchema}].
const nlohmann::json& PulseToolDefinitions();

// By the guard's own NormalizeToolName (tool_catalog.h), so a name the
// guard allowed ("mcp__pulse__record_pulse_goal_check") maps to the same
// tool here.
bool IsPulseTool(std::string_view name);

// Runs one of Pulse's own tools (no guard: callers go through DispatchToolCall).
Result<nlohmann::json> ExecutePulseTool(ApiContext& ctx, const std::string& session, const std::string& tool,
                                        const nlohmann::json& args);

// The guarded call: {allowed:false, refused:true, reason, rule} when the
// guard refuses; {allowed:true, executed:true, tool, result, rule} for Pulse's
// tools; {allowed:true, executed:false, tool, reason, rule, note} for platform
// tools. A Status only for bad arguments to Pulse's own tools or failures.
// With `token` (the HTTP route, MCP) the guard also proves the token is the
// session's; the built-in runner, bound to its session, passes none.
Result<nlohmann::json> DispatchToolCall(ApiContext& ctx, const std::string& session, const std::string& turn,
                                        const std::string& tool, const nlohmann::json& args,
                                        const std::string& token = "");

// pulse.tools {name?} -> {tools:[...]} (one tool, or none, when `name` is given)
// pulse.tool_call {token, session?, tool, arguments} -> DispatchToolCall's
//   document, the session and turn taken from the token (session.resolve);
//   a closed session is refused; `session`, when given, must be the token's.
void AddPulseToolsApi(ApiRegistry& registry);

}  // namespace pulse

// Pulse's own tools — get_pulse_state (views goal_status, goal_work,
// agent_log), record_pulse_goal_check, record_pulse_recommendation,
// record_pulse_goal_memory, record_pulse_decision_outcome — and the one
// dispatch path every agent tool call takes (the session tool route, MCP,
// the built-in rules runner): the session is resolved once by the caller and
// passed in, the autonomy guard decides first, then Pulse's own tools run
// through the core's typed calls. A platform tool the guard allows is
// recorded (the guard logs every decision) and, when the server was given a
// platform command (--platform), forwarded to it; otherwise answered with
// status "carry_out_on_platform": allowed, and not done.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/autonomy/autonomy.h"
#include "core/decisions/decisions.h"
#include "core/base/status.h"
#include "core/autonomy/tool_sessions.h"

namespace pulse {

// Null-safe field reads: nlohmann's value() throws when the key is present
// but null (a recommendation's "text", say), and no exception may escape.
std::string JStr(const nlohmann::json& doc, const char* key, const std::string& fallback = "");
bool JBool(const nlohmann::json& doc, const char* key, bool fallback = false);
nlohmann::json JGet(const nlohmann::json& doc, const char* key, const nlohmann::json& fallback);

// Pulse's own context for a turn (goal_lead): goal memory, the open focus
// areas and the QA requests. Carried by get_pulse_state's goal_status view
// and the goal check's context.
nlohmann::json GoalLeadJson(ApiContext& ctx);

// MCP tool descriptors of Pulse's own tools: [{name, title, description,
// inputSchema}] (agent/tools/pulse_tool_defs.cc).
const nlohmann::json& PulseToolDefinitions();
// The whole catalog an agent is offered (MCP tools/list): Pulse's own tools,
// then every other tool the guard knows (open input schemas).
const nlohmann::json& CatalogToolDefinitions();

// create_decision_request, record_pulse_focus_area, record_pulse_goal_memory,
// record_pulse_qa_request, record_pulse_fast_request, ask_builder
// (agent/tools/pulse_tools_record.cc). NotFound for another name.
Result<nlohmann::json> ExecuteRecordTool(ApiContext& ctx, const std::string& session, const std::string& name,
                                         const Args& args);

// record_workflow_review, record_housekeeping (agent/tools/review_tools.cc): the
// receipts of the workflow_review and housekeeping turns. NotFound for
// another name.
Result<nlohmann::json> ExecuteReviewTool(ApiContext& ctx, const std::string& session, const std::string& name,
                                         const Args& args);

// Carries out an allowed platform tool call somewhere outside Pulse (the
// server's --platform command); its answer is the call's result.
struct PlatformResult {
  bool done = false;       // the platform says it carried the call out
  nlohmann::json result;   // what it answered
};
using PlatformForwarder =
    std::function<Result<PlatformResult>(const ToolSession& session, const std::string& tool, const nlohmann::json& args)>;

// One of Pulse's own tools under any spelling the guard accepts
// (NormalizeToolName in tool_catalog.h): " Record_Pulse_Goal_Check ",
// "mcp__pulse__record_pulse_goal_check". A name in another MCP server's
// namespace is not Pulse's.
bool IsPulseTool(std::string_view name);
// The same for a name NormalizeToolName has already read (the guard's).
bool IsPulseToolName(const std::string& normalized, const std::string& name_space);

// Runs one of Pulse's own tools (no guard: callers go through DispatchToolCall).
// `session` is recorded on what the tool writes (a recommendation's session).
Result<nlohmann::json> ExecutePulseTool(ApiContext& ctx, const std::string& session, const std::string& tool,
                                        const nlohmann::json& args);

// The guard's decision on one call of a session already resolved
// (GuardSessionCall: a closed session, or a helper under a closed root, is
// refused with rule session_closed), recorded like every other decision.
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
  bool forwarded = false;  // a platform tool went to the platform command
  bool platform_done = false;  // ... and it says it carried the call out
  nlohmann::json result;   // Pulse's tool's answer, or the platform's

  // {tool, allowed, reason, rule, level?} plus: {refused: true} for a
  // refusal; {executed: true, tool (normalised), result} for Pulse's own;
  // for a platform tool {status: "carry_out_on_platform", done: false,
  // carry_out_on_platform: true, note}, or once forwarded {status:
  // "forwarded", done, result}.
  nlohmann::json ToJson() const;
};

// The guarded call for a session already resolved (and, over HTTP, proven by
// its token). A closed session is refused without asking the guard. A
// Status only for bad arguments to Pulse's own tools or failures.
// `platform`: where allowed platform tools go (null: answered
// carry_out_on_platform).
Result<ToolCallOutcome> DispatchToolCall(ApiContext& ctx, const ToolSession& session, const std::string& tool,
                                         const nlohmann::json& args, const PlatformForwarder* platform = nullptr);

}  // namespace pulse

// The autonomy guard: for one tool call of one session, allowed or refused, with the rule that
// decided and a reason that names the level that held it. Every refusal tells
// the agent to create a decision request instead.
//
// The turn kind (and so what is held) comes from the session record the
// server bound to the call, never from the tool's arguments. Direct calls
// (GuardBoundCall), the HTTP tool route (GuardToolCall, which first checks
// the session token) and callers holding a resolved session
// (GuardSessionCall) share one path, and every decision is recorded in
// pulse_guard_decisions with its rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/status.h"
#include "core/autonomy/tool_catalog.h"
#include "core/autonomy/tool_sessions.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// What one turn may do: each level after the turn's holds.
struct HeldLevels {
  Level run = Level::kAsk;
  Level outward = Level::kAsk;
  Level change = Level::kAsk;
  bool unclassified_allowed = false;
  // Why run/outward/change may be at ask though the workflow says auto
  // ("a run_failed turn holds Run, Outward and Change"); empty: the
  // workflow's own levels apply.
  std::string run_held_by, outward_held_by, change_held_by;
};

// `schedules_paused`: WorkflowConfig::AllSchedulesPaused() (report-only: all held).
HeldLevels LevelsForTurn(TurnKind turn, const AutonomyLevels& levels, bool schedules_paused);

// Which rule decided a call. The names (GuardRuleName) are what the JSON
// edge, the decision log and docs/autonomy.md show.
enum class GuardRule {
  kWorkflowStep,           // "workflow_step": not a Pulse turn, the platform's normal tools
  kRunLevel,               // "run_level"
  kOutwardLevel,           // "outward_level"
  kChangeLevel,            // "change_level"
  kUnclassified,           // "unclassified": pulse.autonomy.unclassified decided
  kShellToolRoute,         // "shell_tool_route": a script calls the session's tool API
  kSoulMd,                 // "soul_md": a write to soul.md
  kProtectedPath,          // "protected_path": .pulse/, db/, memory/goal.md by path
  kGogReadOnly,            // "gog_read_only"
  kNotifyOwner,            // "notify_owner": notify_user with no recipient
  kAlwaysRefused,          // "always_refused"
  kReadOnly,               // "read_only"
  kPulseRecord,            // "pulse_record"
  kFileWrite,              // "file_write": a draft, no plan, configuration or soul.md
  kNoPingPong,             // "no_ping_pong"
  kNoSelfAsk,              // "no_self_ask"
  kAskBuilderQuestion,     // "ask_builder_question"
  kAskBuilderFixForbidden, // "ask_builder_fix_forbidden"
  kAskBuilderFixRunFailed, // "ask_builder_fix_run_failed"
  kOwnerOnly,              // "owner_only": answering for the owner
  kSessionClosed,          // "session_closed"
  kHousekeepingOnly,       // "housekeeping_only": a housekeeping turn does backup and publish only
  kAskBuilderPulseOnly,    // "ask_builder_pulse_only": a Workflow Review never asks a Builder chat
};
const char* GuardRuleName(GuardRule rule);

// The level that decided, when one did.
enum class GuardLevel { kNone, kRun, kOutward, kChange, kUnclassified };
// "run", "outward", "change", "unclassified"; "" for kNone.
const char* GuardLevelName(GuardLevel level);

struct GuardDecision {
  bool allowed = false;
  GuardRule rule = GuardRule::kUnclassified;
  GuardLevel level = GuardLevel::kNone;
  std::string reason;      // one line; a refusal ends with the decision-request instruction
  std::string tool;        // the normalised tool name
  std::string tool_namespace;  // the MCP server or namespace it was called under, when not the platform's
  std::string tool_class;  // ToolClassName, or "unclassified"
};

// {allowed, reason, rule, tool, class, level?}: the strings above.
nlohmann::json DecisionToJson(const GuardDecision& d);

// The pure rule: no database, no session. Keys such as "session" or "turn"
// in the arguments mean nothing here. What is read in them (docs/autonomy.md,
// "What the guard reads"): every string that can be a path (tool_args.h),
// for .pulse/, db/ and memory/goal.md (refused to every tool but Pulse's own
// records), soul.md (never written) and plan files (Change); shell and
// script text (shell_args.h); recipient-like keys of notify_user; gog
// subcommands; calls a dispatch wrapper carries; ask_builder's mode.
GuardDecision DecideToolCall(TurnKind turn, const AutonomyLevels& levels, bool schedules_paused,
                             const std::string& tool, const nlohmann::json& args);

// ---- the guard at dispatch ----

// The typed entry: `session` already resolved (LoadToolSession,
// AuthenticateSession or ResolveSessionToken), so a request resolves its
// token once. A session that is not usable() (closed, or a helper under a
// closed root) is refused. Records the decision.
Result<GuardDecision> GuardSessionCall(Db& db, const WorkflowConfig& config, const ToolSession& session,
                                       const std::string& tool, const nlohmann::json& args, int64_t now);

// The direct path: the server has bound `session_id` to the call (its
// ToolExecutionContext). Unknown session: NotFound. Then GuardSessionCall.
Result<GuardDecision> GuardBoundCall(Db& db, const WorkflowConfig& config, const std::string& session_id,
                                     const std::string& tool, const nlohmann::json& args, int64_t now);

// The HTTP tool route (POST /s/<session>/tools/custom/<tool>, Bearer token):
// AuthenticateSession (Unauthenticated, distinct from a refusal and not
// recorded as a decision), then GuardSessionCall.
Result<GuardDecision> GuardToolCall(Db& db, const WorkflowConfig& config, const std::string& session_id,
                                    const std::string& token, const std::string& tool,
                                    const nlohmann::json& args, int64_t now);

// A decision with no session (`pulse guard --turn`): decided and recorded
// with an empty session.
Result<GuardDecision> GuardTurnCall(Db* db, const WorkflowConfig& config, TurnKind turn, const std::string& tool,
                                    const nlohmann::json& args, int64_t now);

}  // namespace pulse

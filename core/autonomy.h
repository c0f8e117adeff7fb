// The autonomy guard (PLAT-697 phase 2 and the later places that hold tools):
// for one tool call of one session, allowed or refused, with the rule that
// decided and a reason that names the level that held it. Every refusal tells
// the agent to create a decision request instead.
//
// The turn kind (and so what is held) comes from the session record the
// server bound to the call, never from the tool's arguments. Direct calls
// (GuardBoundCall) and the HTTP tool route (GuardToolCall, which first checks
// the session token) share one path, and every decision is recorded in
// pulse_guard_decisions with its rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "core/status.h"
#include "core/tool_catalog.h"
#include "core/workflow_config.h"

namespace pulse {

enum class TurnKind {
  kGoalCheck,        // the daily goal check: the workflow's levels
  kGoalWork,         // Goal Work (strategic_review): the workflow's levels
  kGoalWorkReceipt,  // Goal Work's receipt continuation: the workflow's levels
  kAskPulse,         // a chat or step asked Pulse: the workflow's levels
  kRunFailed,        // a failed run woke Pulse: Run, Outward, Change held
  kBuilderQuestion,  // ask_builder question in a Builder chat: Run, Outward, Change held
  kBuilderFix,       // ask_builder fix in a Builder chat: Change only (at the workflow's change level)
  kWorkflowStep,     // a workflow step a turn started: not a Pulse turn, the platform's normal tools
};

const char* TurnKindName(TurnKind kind);
// InvalidArgument naming the value and listing the kinds.
Result<TurnKind> ParseTurnKind(const std::string& text);
const std::vector<TurnKind>& AllTurnKinds();
// Every kind but kWorkflowStep: the turns the guard holds.
bool IsGuardedTurn(TurnKind kind);
// goal_check, goal_work, goal_work_receipt, ask_pulse, run_failed.
bool IsPulseTurn(TurnKind kind);

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

struct GuardDecision {
  bool allowed = false;
  std::string rule;    // which rule decided (README lists them)
  std::string reason;  // one line; a refusal ends with the decision-request instruction
  std::string level;   // "run", "outward", "change", "unclassified" when a level decided; else ""
  std::string tool;    // the normalised tool name
  std::string tool_class;  // ToolClassName, or "unclassified"
};

nlohmann::json DecisionToJson(const GuardDecision& d);

// The pure rule: no database, no session. Arguments are inspected only where
// a tool's class depends on them (gog subcommands, notify_user recipients,
// file paths, shell commands, ask_builder's mode); keys such as "session" or
// "turn" in them mean nothing here.
GuardDecision DecideToolCall(TurnKind turn, const AutonomyLevels& levels, bool schedules_paused,
                             const std::string& tool, const nlohmann::json& args);

// ---- sessions (pulse_tool_sessions) ----

Status EnsureAutonomySchema(Db& db);

struct ToolSession {
  std::string id;
  TurnKind turn = TurnKind::kGoalCheck;  // the root's turn for a delegated helper
  std::string parent;                     // "" for a root
  std::string root;                       // the top of the parent chain (itself for a root)
  std::string opened_at;
  std::string closed_at;  // "" while open
  bool open() const { return closed_at.empty(); }
};

struct OpenedSession {
  ToolSession session;
  std::string token;  // shown once; only its SHA-256 is stored
};

// 32 random bytes from the system (getentropy: /dev/urandom natively, the
// browser's crypto in WASM), hex encoded.
Result<std::string> NewSessionToken();

// Opens a session for `turn`. With `parent`: a delegated helper, which takes
// its root's turn whatever `turn` says, except kWorkflowStep (a step the turn
// started keeps the platform's normal tools). Ids start with "schedule-"
// (unattended): schedule-goallead--<sha256(workflow)[:16]>-g<N> for Pulse
// turns, schedule-builder--<hash>-<q|f><N> for Builder turns,
// schedule-step--<hash>-s<N> for steps, <parent>--h<N> for helpers.
// NotFound / Refused for a missing / closed parent.
Result<OpenedSession> OpenToolSession(Db& db, const std::string& workflow, TurnKind turn,
                                      const std::string& parent, int64_t now);
// Whether a session id (or a helper's, which extends its root's) was opened
// for `workflow`: ids carry sha256(workflow)[:16], so the HTTP route
// (/s/<session>/...) finds the workflow database without a global table.
bool SessionBelongsToWorkflow(const std::string& session_id, const std::string& workflow);

// NotFound when no session has this token.
Result<ToolSession> ResolveSessionToken(Db& db, const std::string& token);
Result<ToolSession> LoadToolSession(Db& db, const std::string& session_id);
// Closes the session and every helper under it; closing twice is fine.
// Returns the ids closed now.
Result<std::vector<std::string>> CloseToolSession(Db& db, const std::string& session_id, int64_t now);

// ---- the guard at dispatch ----

// The direct path: the server has bound `session_id` to the call (its
// ToolExecutionContext). Unknown session: NotFound. Closed session (or a
// helper of a closed root): refused. Records the decision.
Result<GuardDecision> GuardBoundCall(Db& db, const WorkflowConfig& config, const std::string& session_id,
                                     const std::string& tool, const nlohmann::json& args, int64_t now);

// The HTTP tool route (POST /s/<session>/tools/custom/<tool>, Bearer token):
// Unauthenticated when the token is missing, unknown or belongs to another
// session (distinct from a refusal, and not recorded as a decision); then
// exactly GuardBoundCall.
Result<GuardDecision> GuardToolCall(Db& db, const WorkflowConfig& config, const std::string& session_id,
                                    const std::string& token, const std::string& tool,
                                    const nlohmann::json& args, int64_t now);

// A decision with no session (`pulse guard --turn`): decided and recorded
// with an empty session.
Result<GuardDecision> GuardTurnCall(Db* db, const WorkflowConfig& config, TurnKind turn, const std::string& tool,
                                    const nlohmann::json& args, int64_t now);

struct GuardRecord {
  int64_t id = 0;
  std::string session, turn, tool, args_sha256, rule, level, reason, at;
  bool allowed = false;
};

// Oldest first; all sessions when `session` is empty.
Result<std::vector<GuardRecord>> ListGuardDecisions(Db& db, const std::string& session, int limit = 1000);

}  // namespace pulse

// Guarded tool sessions (pulse_tool_sessions) and the log of the guard's
// decisions (pulse_guard_decisions). A session binds an agent's tool calls to
// one turn: the turn kind (and so what is held) comes from this record,
// never from a tool's arguments. Tokens are shown once and stored only as
// their SHA-256.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

enum class TurnKind {
  kGoalCheck,        // the daily goal check: the workflow's levels
  kGoalWork,         // Goal Work (strategic_review): the workflow's levels
  kGoalWorkReceipt,  // Goal Work's receipt continuation: the workflow's levels
  kAskPulse,         // a chat or step asked Pulse: the workflow's levels
  kRunFailed,        // a failed run woke Pulse: Run, Outward, Change held
  kBuilderQuestion,  // ask_builder question in a Builder chat: Run, Outward, Change held
  kBuilderFix,       // ask_builder fix in a Builder chat: Change only (at the workflow's change level)
  kQaFix,            // a QA fix run Pulse asked for (its own session): Run held
  kWorkflowStep,     // a workflow step a turn started: not a Pulse turn, the platform's normal tools
  kWorkflowReview,   // Workflow Review before a run: Run and Outward held, Change at the workflow's level
  kHousekeeping,     // the after-run backup/publish turn: Run and Change held, only backup and publish tools
};

const char* TurnKindName(TurnKind kind);
// InvalidArgument naming the value and listing the kinds.
Result<TurnKind> ParseTurnKind(const std::string& text);
const std::vector<TurnKind>& AllTurnKinds();
// Every kind but kWorkflowStep: the turns the guard holds.
bool IsGuardedTurn(TurnKind kind);
// goal_check, goal_work, goal_work_receipt, ask_pulse, run_failed.
bool IsPulseTurn(TurnKind kind);

// Whether a session id names an unattended session by its prefix:
// "schedule-", "pulse-", "bg-" or "background-", compared ignoring case,
// blanks (also inside) and '_' vs '-' ("SCHEDULE-x", " schedule_x",
// "Bg-1" all are). The one place this rule lives: an owner's answer is
// refused from such a session.
bool HasUnattendedPrefix(std::string_view session_id);

Status EnsureAutonomySchema(Db& db);

struct ToolSession {
  std::string id;
  TurnKind turn = TurnKind::kGoalCheck;  // the root's turn for a delegated helper
  std::string parent;                     // "" for a root
  std::string root;                       // the top of the parent chain (itself for a root)
  int64_t opened_at = 0;                 // seconds since the epoch
  std::optional<int64_t> closed_at;      // nullopt while open
  std::optional<int64_t> root_closed_at; // the root's closed_at, read with the session (nullopt while the root is open)
  bool conversation = false;             // under Pulse's own conversation (OpenConversationTurnSession), not session.open
  bool open() const { return !closed_at; }
  // Open and under an open root: a helper of an ended turn cannot act.
  bool usable() const { return !closed_at && !root_closed_at; }
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
// (unattended): schedule-goallead--<sha256(workflow)[:16]>-o<N> for Pulse
// turns (never -g<N>: that is the conversation's generation N, made only by
// ConversationSessionId), schedule-builder--<hash>-<q|f><N> for Builder
// turns, schedule-step--<hash>-s<N> for steps, <parent>--h<N> for helpers.
// NotFound / Refused for a missing / closed parent.
Result<OpenedSession> OpenToolSession(Db& db, const std::string& workflow, TurnKind turn,
                                      const std::string& parent, int64_t now);
// A turn of Pulse's conversation in the conversation's own session id
// (ConversationSessionId): the session is opened again for each turn with a
// fresh token and the turn's kind. Conflict when an external agent's open
// session holds the id.
Result<OpenedSession> OpenConversationTurnSession(Db& db, const std::string& session_id, TurnKind turn, int64_t now);
// Whether a session id (or a helper's, which extends its root's) was opened
// for `workflow`: ids carry sha256(workflow)[:16], so the HTTP route
// (/s/<session>/...) finds the workflow database without a global table.
bool SessionBelongsToWorkflow(const std::string& session_id, const std::string& workflow);

// NotFound when no session has this token.
Result<ToolSession> ResolveSessionToken(Db& db, const std::string& token);
// The same for a token's SHA-256 (hex) a caller has already taken.
Result<ToolSession> ResolveSessionTokenHash(Db& db, const std::string& token_sha256);
// Every session token's SHA-256 in the database (none when it has no
// session table yet: a database no Pulse opened).
Result<std::vector<std::string>> ListSessionTokenHashes(Db& db);
// How many sessions have been read from a database in this process.
uint64_t ToolSessionsLoaded();
Result<ToolSession> LoadToolSession(Db& db, const std::string& session_id);
// The session `session_id` if `token` is its token; Unauthenticated with one
// message for every failure (missing token, unknown session, another
// session's token), so a caller learns nothing about which sessions exist.
Result<ToolSession> AuthenticateSession(Db& db, const std::string& session_id, const std::string& token);
// Closes the session and every helper under it; closing twice is fine.
// Returns the ids closed now.
Result<std::vector<std::string>> CloseToolSession(Db& db, const std::string& session_id, int64_t now);

// ---- the guard's decision log ----

struct GuardRecord {
  int64_t id = 0;
  std::string session, turn, tool, args_sha256, rule, level, reason;
  int64_t at = 0;
  std::string tool_normalized, tool_class;
  bool allowed = false;
};

// `r.id` is ignored (assigned by the table).
Status AppendGuardRecord(Db& db, const GuardRecord& r);
// Oldest first; all sessions when `session` is empty.
Result<std::vector<GuardRecord>> ListGuardDecisions(Db& db, const std::string& session, int limit = 1000);

}  // namespace pulse

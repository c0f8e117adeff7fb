// Decisions: questions only the owner can answer, Pulse's recommendation on
// each, the owner's answer, and what came of it (the decision log), all in
// the workflow database.
//
// Rules:
// - A Recommendation is stored apart from the answer (pulse_recommendations);
//   a newer one supersedes the open one. safe_default_by is accepted only with
//   high confidence and only when applying the recommendation needs no
//   autonomy level held at ask: `needs` says what applying it needs (none,
//   run, outward, change; default change, the conservative reading: an answer
//   usually changes the workflow), so needs=change requires change=auto.
// - Only the owner answers: an answer from an unattended session (see
//   WhyUnattended) is Refused, naming the leg that knew it, and the decision
//   stays pending (the refusal is kept in its log).
// - The owner's answer, the recommendation's status (accepted, changed,
//   dismissed, overruled) and the owner-answer line in goal memory are written
//   in one transaction; if memory cannot be written nothing is answered.
// - answer=act: ApplyDueDefaults answers, as Pulse, every pending decision
//   whose recommendation's safe_default_by has passed, when the recommendation
//   is still within Pulse's levels. The owner may answer afterwards; that
//   answer replaces Pulse's and is marked as overruling it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/goal/goal_memory.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// Also ensures the goal memory tables (EnsureGoalMemorySchema).
Status EnsureDecisionsSchema(Db& db);

// Sessions that may recommend but never answer for the owner, and which leg
// of the check knows each (docs/decisions.md names the same legs):
//  - kPulseTurn: a session of Pulse's own conversation (opened for its turns,
//    OpenConversationTurnSession) or a helper under one;
//  - kToolSession: any other guarded tool session (session.open, a runner's
//    or a Builder's turn, their helpers);
//  - kAgentLog: a session the background agent log knows (an agent's run);
//  - kNamePrefix: an id starting "schedule-" (Pulse's own conversation and
//    every scheduled turn), "pulse-", "bg-" or "background-", in any case,
//    blanks ignored, '_' read as '-' (HasUnattendedPrefix).
// The database legs are asked first, so the answer names what the database
// knows even of a session whose name also says it. The empty session is the
// owner (the CLI, the owner-token HTTP routes): kNone.
enum class UnattendedBy { kNone, kPulseTurn, kToolSession, kAgentLog, kNamePrefix };
Result<UnattendedBy> WhyUnattended(Db& db, const std::string& session);
// "pulse_turn", "tool_session", "agent_log", "name_prefix" ("" for kNone):
// the `leg` of an answer_refused event.
const char* UnattendedByName(UnattendedBy by);
Result<bool> IsUnattendedSession(Db& db, const std::string& session);

// Where a decision stands (the stored column's CHECK holds exactly these).
enum class DecisionStatus { kPending, kAnswered, kDismissed };
const char* DecisionStatusName(DecisionStatus status);  // pending | answered | dismissed

// How sure Pulse is of a recommendation.
enum class Confidence { kLow, kMedium, kHigh };
const char* ConfidenceName(Confidence confidence);  // low | medium | high
// InvalidArgument "<what>: confidence "x" is not low, medium or high".
Result<Confidence> ParseConfidence(std::string_view text, const std::string& what);

// A question for the owner, as stored, with the answer and the outcome when
// there are any. Times are seconds since the epoch (time_util.h).
struct Decision {
  int64_t id = 0;
  std::string question;
  std::vector<std::string> options;
  std::string blocks, raised_by;
  DecisionStatus status = DecisionStatus::kPending;
  int64_t created_at = 0;
  std::optional<std::string> answer_option, answer_text, answered_by, answer_kind, outcome;
  std::optional<int64_t> answered_at, outcome_at;
  std::string answer_note, answer_session;
  bool overruled_pulse = false;
  std::string Chosen() const { return answer_option ? *answer_option : answer_text.value_or(""); }
};

// Pulse's recommendation on a decision, as stored.
struct Recommendation {
  int64_t id = 0;
  std::optional<std::string> option, text;
  std::string why, evidence, blocks, needs, session;
  Confidence confidence = Confidence::kMedium;
  int64_t recommended_at = 0;
  std::string status;  // open | accepted | changed | dismissed | overruled | superseded
  std::optional<int64_t> safe_default_by, resolved_at;
  std::string Chosen() const { return option ? *option : text.value_or(""); }
};

// One line of a decision's history (created, recommended, answered, ...).
struct DecisionEvent {
  int64_t at = 0;
  std::string kind, actor;
  std::string detail;  // as stored: a JSON object whose keys depend on `kind`
};

// A decision as every caller sees it: with its current recommendation, its
// events and (pending) how long it has waited.
struct DecisionView {
  Decision decision;
  std::optional<Recommendation> recommendation;  // the newest not superseded
  std::vector<DecisionEvent> events;             // oldest first
  std::optional<int64_t> waited_seconds;         // pending only
};

// NotFound naming the id when there is no such decision.
Result<Decision> LoadDecision(Db& db, int64_t id);
Result<DecisionView> ViewDecision(Db& db, const Decision& decision, int64_t now);
// Pending decisions, oldest first.
Result<std::vector<Decision>> PendingDecisions(Db& db);
// The decision's current recommendation: the newest not superseded.
Result<std::optional<Recommendation>> CurrentRecommendation(Db& db, int64_t decision_id);

// A tool call the autonomy guard refused, kept as a decision's context when
// the decision request follows the refusal.
struct RefusedCall {
  std::string tool, rule, reason, at, session;
};

struct DecisionRequest {
  std::string question;
  std::vector<std::string> options;  // empty: a free-text answer
  std::string blocks;
  std::string raised_by;
  std::string why;                         // shown with the question
  std::optional<RefusedCall> refused_call;  // the call this request stands in for
};

struct RecommendationInput {
  int64_t decision_id = 0;
  std::optional<std::string> option;
  std::optional<std::string> text;
  std::string why;
  std::string evidence;
  Confidence confidence = Confidence::kMedium;
  std::string blocks;      // default: the decision's
  std::optional<int64_t> safe_default_by;
  std::string needs;       // none | run | outward | change (default change)
  std::string session;
};

struct AnswerInput {
  int64_t decision_id = 0;
  bool accept = false;
  std::optional<std::string> option;
  std::optional<std::string> text;
  bool dismiss = false;
  std::string note;
  std::string session;  // empty: the owner
};

// Everything the decision operations need. `memory` writes goal.md (or only
// the database copy in the browser).
struct DecisionContext {
  Db& db;
  Env& env;
  const AutonomyLevels& levels;
  GoalMemory& memory;
};

// decision.list: the decisions with `status`, and every decision answered
// more than a day ago with no outcome yet, whatever the filter.
struct DecisionList {
  std::vector<DecisionView> decisions;
  std::vector<DecisionView> outcomes_due;
};

// answer=act's pass over the due safe defaults.
struct DefaultsApplied {
  bool act = false;  // false: pulse.autonomy.answer is recommend and nothing was looked at
  std::vector<DecisionView> applied;
  struct Skipped {
    int64_t id = 0;
    std::string reason;
  };
  std::vector<Skipped> skipped;
};

Result<int64_t> CreateDecision(DecisionContext& ctx, const DecisionRequest& req);
Result<DecisionView> Recommend(DecisionContext& ctx, const RecommendationInput& in);
Result<DecisionView> Answer(DecisionContext& ctx, const AnswerInput& in);
Result<DecisionView> RecordDecisionOutcome(DecisionContext& ctx, int64_t decision_id, const std::string& result);
// status: pending | answered | dismissed | all (empty: all).
Result<DecisionList> ListDecisions(DecisionContext& ctx, const std::string& status);
Result<DefaultsApplied> ApplyDueDefaults(DecisionContext& ctx);
// The first safe default still ahead of `now` on a pending decision (the
// tick's next wake-up for it); nullopt when none is.
Result<std::optional<int64_t>> NextSafeDefault(Db& db, int64_t now);

}  // namespace pulse

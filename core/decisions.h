// Decisions: questions only the owner can answer, Pulse's recommendation on
// each, the owner's answer, and what came of it (the decision log), all in
// the workflow database (seed 002, phase 3; answer=act from its "Left" note).
//
// Rules:
// - A Recommendation is stored apart from the answer (pulse_recommendations);
//   a newer one supersedes the open one. safe_default_by is accepted only with
//   high confidence and only when applying the recommendation needs no
//   autonomy level held at ask: `needs` says what applying it needs (none,
//   run, outward, change; default change, the conservative reading: an answer
//   usually changes the workflow), so needs=change requires change=auto.
// - Only the owner answers: an answer from an unattended session (see
//   IsUnattendedSession) is Refused and the decision stays pending.
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
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "core/env.h"
#include "core/goal_memory.h"
#include "core/status.h"
#include "core/workflow_config.h"

namespace pulse {

// Also ensures the goal memory tables (EnsureGoalMemorySchema).
Status EnsureDecisionsSchema(Db& db);

// Sessions that may recommend but never answer for the owner: ids starting
// "schedule-" (Pulse's own conversation and every scheduled turn), "pulse-",
// "bg-" or "background-", and any session the database knows as a Pulse turn
// or background agent (a `session`/`session_id` column in a pulse_*session*
// table or the agent log). The empty session is the owner (the CLI, the
// owner-token HTTP routes).
Result<bool> IsUnattendedSession(Db& db, const std::string& session);

struct DecisionRequest {
  std::string question;
  std::vector<std::string> options;  // empty: a free-text answer
  std::string blocks;
  std::string raised_by;
};

struct RecommendationInput {
  int64_t decision_id = 0;
  std::optional<std::string> option;
  std::optional<std::string> text;
  std::string why;
  std::string evidence;
  std::string confidence;  // low | medium | high
  std::string blocks;      // default: the decision's
  std::optional<std::string> safe_default_by;  // RFC 3339
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

Result<int64_t> CreateDecision(DecisionContext& ctx, const DecisionRequest& req);
Result<nlohmann::json> Recommend(DecisionContext& ctx, const RecommendationInput& in);
Result<nlohmann::json> Answer(DecisionContext& ctx, const AnswerInput& in);
Result<nlohmann::json> RecordOutcome(DecisionContext& ctx, int64_t decision_id, const std::string& result);
// status: pending | answered | dismissed | all (empty: all).
// {decisions:[...], outcomes_due:[...]}
Result<nlohmann::json> ListDecisions(DecisionContext& ctx, const std::string& status);
// answer=act. {answer, applied:[...], skipped:[{id, reason}]}
Result<nlohmann::json> ApplyDueDefaults(DecisionContext& ctx);

}  // namespace pulse

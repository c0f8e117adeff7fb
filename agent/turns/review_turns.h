// The two turns around a run that are not Pulse's goal turns: the Workflow
// Review (turn kind workflow_review, its own conversation with its own
// session, not Pulse's) and housekeeping (the after-run backup/publish turn).
// What each is told, the built-in rules runner for each (no model), and what
// happens when a review ends: a review that left no receipt is recorded as
// unfinished (the run goes), and the chats that waited on it are told
// through the outbox to run again.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/base/status.h"
#include "core/autonomy/tool_sessions.h"

namespace pulse {

// {charter, context, tools} for an external runner. Input: the turn's
// request input ({revision, due} for a review; {request_id} for housekeeping).
Result<nlohmann::json> AroundRunTurnContext(ApiContext& ctx, TurnKind kind, const nlohmann::json& input);

// Claims the review for `session` (Busy: another review is running;
// Refused: this revision was already reviewed). Every review turn claims
// before its runner starts.
Status ClaimReviewTurn(ApiContext& ctx, const std::string& session, const std::string& pulse_run_id,
                       const nlohmann::json& input);

// The rules runner: the structural review (RulesReview) recorded through
// the guarded record_workflow_review; returns the summary.
Result<std::string> RunRulesReview(ApiContext& ctx, const std::string& session);
// The rules runner for housekeeping: no provider can be reached without an
// agent, so each action is reported not done (the next run asks again).
Result<std::string> RunRulesHousekeeping(ApiContext& ctx, const std::string& session);

// The review as a turn of its own conversation (core/review/review_conversation.h),
// begun once it has claimed its revision: the text it is told (the
// revision, trigger and due set) and the continuity its runner is handed
// ({conversation: "workflow_review", session_id, transcript of earlier
// reviews}, never Pulse's).
struct ReviewConversationTurn {
  int64_t turn_id = 0;
  nlohmann::json continuity;
};
Result<ReviewConversationTurn> BeginReviewConversationTurn(ApiContext& ctx, const std::string& session);
// Its end: the runner's reply (or why it failed) and the outcome the
// review record came to (EndReviewTurn's).
void EndReviewConversationTurn(ApiContext& ctx, int64_t turn_id, const std::string& reply, const std::string& error,
                               const std::string& outcome);

// After the review turn: `error` (the runner's failure, a timeout) makes a
// review with no receipt unfinished; then each waiting chat gets one
// outbox message (kind workflow_review_done). Returns the outcome.
std::string EndReviewTurn(ApiContext& ctx, const std::string& session, const std::string& error);

}  // namespace pulse

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
#include "core/status.h"
#include "core/tool_sessions.h"

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

// After the review turn: `error` (the runner's failure, a timeout) makes a
// review with no receipt unfinished; then each waiting chat gets one
// outbox message (kind workflow_review_done). Returns the outcome.
std::string EndReviewTurn(ApiContext& ctx, const std::string& session, const std::string& error);

}  // namespace pulse

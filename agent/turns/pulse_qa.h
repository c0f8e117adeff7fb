// QA owned by Pulse: the rules of the failed-run turn (does this failure
// threaten the goal? then request QA, else say why it can wait), of a QA fix
// run (what its result is, whatever the runner printed), and what the next
// turn reads of the results (qa_results). The built-in rules runner's
// versions of run_failed, qa_fix and the Architecture turn of a workflow
// without a goal are here too. The server runs them (server-shim/turns/qa_run.cc).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/turns/pulse_turns.h"
#include "core/api/api.h"
#include "core/conversation/pulse_requests.h"
#include "core/conversation/run_failures.h"

namespace pulse {

// The instruction of a run_failed turn, a QA fix run and an Architecture
// turn (a workflow without a goal), for the charter and the conversation.
extern const char kInstructionRunFailed[];
extern const char kInstructionQaFix[];
extern const char kInstructionArchitecture[];
extern const char kInstructionTechnical[];

// Pure: whether a failed run blocks or threatens the goal — it took the
// goal's route (or its route is unknown), or its error or CONCERNS: lines
// look like an expired login. `why` says which.
bool FailureThreatensGoal(const FailedRunSeen& run, const WorkflowConfig& config, std::string* why);

// Pure: a fix run's result from what the runner printed: a JSON object
// {status, technical_review, reason} is taken as it is (status completed or
// failed), any other text is the technical review; a runner error makes it
// failed with the error as the reason.
QaResult QaResultFromRunner(const std::string& stdout_text, const std::string& error);

// "QA request 3 (growth_funnel: ...): completed — technical review: ... — reason: ...":
// the line the conversation gets.
std::string QaResultLine(const PulseRequest& request, const QaResult& result);

// The latest finished QA requests with their results, newest first:
// [{request_id, what, status, technical_review, reason, finished_at}].
nlohmann::json QaResultsJson(Db& db, int limit = 10);

// The failed run a run_failed turn is about, from its input.
Result<FailedRunSeen> FailedRunFromJson(const nlohmann::json& doc);

// The built-in rules runner's turns.
Result<RulesReport> RulesRunFailed(ApiContext& ctx, const RulesTurn& turn, const FailedRunSeen& run);
// `request` null: the Technical fix run of a pass (a workflow without a goal).
Result<RulesReport> RulesQaFix(ApiContext& ctx, const RulesTurn& turn, const PulseRequest* request);
Result<RulesReport> RulesArchitecture(ApiContext& ctx, const RulesTurn& turn);

}  // namespace pulse

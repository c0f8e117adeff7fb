// Pulse's background turns as rules: when the daily goal check is due (on top
// of the goal module's goal.check_due), what a turn is told (its charter and
// context, for an external runner), and the built-in rules runner that needs
// no model. The server only schedules threads and processes around these.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/api.h"
#include "core/status.h"

namespace pulse {

// The charter an agent gets for a turn kind (goal_check, goal_work,
// ask_pulse); NotFound for other kinds.
Result<std::string> TurnCharter(const std::string& kind, bool report_only);

// The one batched decision the rules runner raises for a check that is not
// on track: {question, options, option, why, evidence, confidence, blocks}.
// Pure: depends only on the check document and the workflow's configuration.
nlohmann::json BuildGoalRecommendation(const nlohmann::json& check, const WorkflowConfig& config,
                                       const std::string& workflow);

// The owner-facing words: "Substack Pulse", "not measured".
std::string PulseName(const std::string& workflow);
std::string StatusWords(const std::string& status);

// turn.check_due {pulse_pass_active, running_checks, cap} -> {due, report_only, reason}:
//   goal.check_due, and not when a goal check turn already started today
//   (the agent log), so a restart or a runner that never recorded its check
//   does not start a second one on the same day.
// turn.context {kind, message?, report_only?, ...} -> {charter, context, tools}
// turn.rules {kind, session, pulse_run_id, message?, report_only?} -> {outcome, status, summary, ...}
//   on track (or no goal, or a quiet pause): records the check and stops;
//   otherwise records it, raises at most one batched decision with a
//   recommendation (none while one from Pulse is pending) and stores one
//   pulse_summary in the outbox. ask_pulse: one pulse_reply from the facts.
void AddPulseTurnsApi(ApiRegistry& registry);

}  // namespace pulse

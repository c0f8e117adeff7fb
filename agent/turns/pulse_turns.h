// Pulse's background turns as rules: when the daily goal check is due (on top
// of the goal module's GoalCheckDue), what a turn is told (its charter and
// context, for an external runner), and the built-in rules runner that needs
// no model. The server only schedules threads and processes around these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/autonomy/autonomy.h"
#include "core/decisions/recommendation.h"
#include "core/goal/goal_check.h"
#include "core/base/status.h"

namespace pulse {

// The charter an agent gets for a turn kind (goal_check, goal_work,
// ask_pulse, run_failed, qa_fix); NotFound for other kinds. An ask_pulse
// turn is an owner relay only `from_owner` (the Pulse tab, `pulse talk`, the
// owner's own Slack message); anyone else's message (an editor on Slack) is
// asked for a recommendation and never recorded as the owner's direction.
Result<std::string> TurnCharter(TurnKind kind, bool report_only, bool from_owner = false);
// The kind's own part of it (what the turn says in the conversation).
Result<std::string> TurnInstruction(TurnKind kind, bool report_only, bool from_owner = false);
// The part every turn shares (the conversation's charter opens with it).
std::string CharterCommon(const std::string& workflow);



// GoalCheckDue, and not when a goal check turn already started today (the
// agent log), so a restart or a runner that never recorded its check does
// not start a second one on the same day.
Result<CheckDue> TurnCheckDue(ApiContext& ctx, const CheckLoad& load);

// What an external runner reads on stdin: {charter, context, tools}.
// `caller`: who wrote `message` (CallerName: "owner", "bot", ...; "" when
// unknown, which is not the owner); the context carries it and `account`.
Result<nlohmann::json> TurnContext(ApiContext& ctx, TurnKind kind, bool report_only, const nlohmann::json& message,
                                   const std::string& caller = "", const std::string& account = "");

// One turn of the built-in rules runner.
struct RulesTurn {
  TurnKind kind = TurnKind::kGoalCheck;
  std::string session;  // the turn's open tool session
  std::string pulse_run_id;
  std::string message;  // ask_pulse: what the owner wrote
  bool report_only = false;
  // run_failed: {failed_run}; qa_fix: {qa_request}; a pass's module turn: {module}.
  nlohmann::json input = nlohmann::json::object();
  // ask_pulse from Slack: {channel, thread_ts}; the reply goes back there.
  nlohmann::json reply_to;
  // An ask from a chat or step ({call_id, thread_id, round, caller, ...}):
  // the reply goes back to the caller with the decision lines, not to the
  // owner's outbox.
  nlohmann::json ask = nlohmann::json();
};

// "Substack Pulse: not measured — subscribers 412 of 1000 (last measured 7 Oct)":
// how a pass's summary and the rules runner's messages begin.
std::string GoalStatusLine(const GoalCheck& check, const std::string& workflow);

// One guarded tool call the runner made.
struct RulesToolCall {
  std::string tool;
  bool allowed = false;
  std::string reason;
};

struct RulesReport {
  std::string outcome;  // on_track, no_goal, quiet, reported, replied
  std::optional<GoalStatus> status;
  std::string pulse_run_id;
  std::string summary;
  std::optional<int64_t> decision_id;
  bool decision_reused = false;
  std::optional<bool> safe_default;
  std::string safe_default_refused;
  std::optional<int64_t> outbox_id;
  std::optional<bool> memory_consolidated;
  std::vector<RulesToolCall> tools;
  std::vector<int64_t> recommended;  // pending decisions recommended on in this turn

  nlohmann::json ToJson() const;
};

// The rules runner's one way to ask the autonomy guard before a step, as any
// agent's tool call does: the answer is logged in `report`.
Result<GuardDecision> AskGuardForRules(ApiContext& ctx, const RulesTurn& turn, RulesReport* report,
                                       const std::string& tool, const nlohmann::json& args);

// On track (or no goal, or a quiet pause): records the check and stops;
// otherwise records it, raises at most one batched decision with a
// recommendation (none while one from Pulse is pending) and stores one
// pulse_summary in the outbox. ask_pulse: one pulse_reply from the facts.
// Every step goes through the autonomy guard like any agent's tool call.
Result<RulesReport> RunRulesTurn(ApiContext& ctx, const RulesTurn& turn);

}  // namespace pulse

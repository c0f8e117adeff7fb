// The built-in rules runner's run_failed, qa_fix and Architecture turns (no
// model): each asks the autonomy guard before a step, as any agent's tool
// call does, and says plainly what a rules runner cannot judge.
#include <set>

#include "agent/turns/pulse_qa.h"
#include "agent/tools/pulse_tools.h"
#include "core/api/facts.h"
#include "core/facts/goal_context_facts.h"
#include "core/base/time_util.h"
#include "core/base/text.h"

namespace pulse {

using nlohmann::json;

namespace {

Result<GuardDecision> Ask(ApiContext& ctx, const RulesTurn& turn, RulesReport* out, const std::string& tool,
                          const json& args) {
  return AskGuardForRules(ctx, turn, out, tool, args);
}

// "3 failed runs (latest r-9: ...), 2 CONCERNS: lines, 1 unreadable run folder"
std::string HealthLine(const RunHealth& h) {
  std::string s = std::to_string(h.runs) + " runs since the last check, " + std::to_string(h.failed) + " failed";
  if (!h.failed_runs.empty()) {
    const FailedRun& f = h.failed_runs.front();
    s += " (latest " + f.run_id + ", " + f.status + (f.route.empty() ? "" : " on " + f.route) + ": " +
         (f.error.empty() ? "no error text" : FirstLine(f.error, 200)) + ")";
  }
  s += "; " + std::to_string(h.concerns.size()) + " CONCERNS: line" + (h.concerns.size() == 1 ? "" : "s");
  if (!h.concerns.empty()) s += " (" + FirstLine(h.concerns.front().line) + ")";
  if (!h.unreadable.empty()) {
    s += "; unreadable: " + h.unreadable.front().reason +
         (h.unreadable.size() > 1 ? " and " + std::to_string(h.unreadable.size() - 1) + " more" : "");
  }
  return s;
}

}  // namespace

Result<RulesReport> RulesRunFailed(ApiContext& ctx, const RulesTurn& turn, const FailedRunSeen& run) {
  RulesReport out;
  out.pulse_run_id = turn.pulse_run_id;
  std::string why;
  const bool threatens = FailureThreatensGoal(run, ctx.config, &why);
  const std::string head = "Run " + run.run_id + " " + run.status + (run.route.empty() ? "" : " on " + run.route);
  if (!threatens) {
    out.outcome = "can_wait";
    out.summary = head + ": can wait — " + why + "; the next goal check sees it in run_health.";
    return out;
  }
  NewRequest req;
  req.kind = RequestKind::kQa;
  req.what = head + ": " + (run.error.empty() ? "no error text" : FirstLine(run.error));
  for (const std::string& c : run.concerns) {
    if (req.what.size() > 600) break;
    req.what += " | " + FirstLine(c);
  }
  req.why = "it threatens the goal: " + why;
  req.session = turn.session;
  PULSE_ASSIGN_OR_RETURN(GuardDecision allowed,
                         Ask(ctx, turn, &out, "record_pulse_qa_request", json{{"what", req.what}, {"why", req.why}}));
  if (!allowed.allowed) {
    out.outcome = "refused";
    out.summary = head + ": it threatens the goal (" + why + "), but the QA request was refused: " + allowed.reason;
    return out;
  }
  Result<RecordedRequest> made = RecordRequest(*ctx.db, *ctx.env, req);
  if (!made.ok()) {
    out.outcome = "not_requested";
    out.summary = head + ": it threatens the goal (" + why + "); QA was not requested: " + made.status().message();
    return out;
  }
  out.outcome = "qa_requested";
  out.summary = head + ": QA requested (request " + std::to_string(made->request.id) + ") — " + why +
                ". A fix run starts when the workflow is free; its result comes back here.";
  return out;
}

Result<RulesReport> RulesQaFix(ApiContext& ctx, const RulesTurn& turn, const PulseRequest* request) {
  RulesReport out;
  out.pulse_run_id = turn.pulse_run_id;
  PULSE_ASSIGN_OR_RETURN(GuardDecision allowed, Ask(ctx, turn, &out, "get_pulse_state", json{{"view", "goal_status"}}));
  QaResult r;
  if (!allowed.allowed) {
    r.status = "failed";
    r.reason = "the facts could not be read: " + allowed.reason;
  } else {
    PULSE_ASSIGN_OR_RETURN(ContextFacts facts, FactsNow(ctx));
    r.status = "completed";
    r.technical_review = "Checked " + (request ? "\"" + request->what + "\"" : std::string("the workflow's runs")) +
                         " against the facts: " + HealthLine(facts.run_health) + ". Nothing was changed.";
    r.reason = "the built-in rules runner has no model: it reviews the facts and repairs nothing; start `pulse serve "
               "--runner CMD` for a fix run that repairs";
  }
  out.outcome = r.status;
  out.summary = json{{"status", r.status}, {"technical_review", r.technical_review}, {"reason", r.reason}}.dump();
  return out;
}

Result<RulesReport> RulesArchitecture(ApiContext& ctx, const RulesTurn& turn) {
  RulesReport out;
  out.pulse_run_id = turn.pulse_run_id;
  PULSE_ASSIGN_OR_RETURN(GuardDecision allowed, Ask(ctx, turn, &out, "get_pulse_state", json{{"view", "goal_status"}}));
  if (!allowed.allowed) {
    out.outcome = "refused";
    out.summary = "Architecture: the facts could not be read: " + allowed.reason;
    return out;
  }
  PULSE_ASSIGN_OR_RETURN(ContextFacts facts, FactsNow(ctx));
  std::set<std::string> routes;
  for (const FailedRun& f : facts.run_health.failed_runs) if (!f.route.empty()) routes.insert(f.route);
  std::string list;
  for (const std::string& r : routes) list += (list.empty() ? "" : ", ") + r;
  out.outcome = "reviewed";
  out.summary = "Architecture (rules runner, no model): " + std::to_string(facts.plan_changes.size()) +
                " plan changes and " + HealthLine(facts.run_health) +
                (list.empty() ? "" : "; routes with failures: " + list) +
                ". A rules runner cannot judge the structure; nothing was changed.";
  return out;
}

}  // namespace pulse

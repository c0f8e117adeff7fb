#include "agent/turns/pulse_qa.h"

#include <algorithm>

#include "core/api/facts.h"
#include "core/facts/goal_context_facts.h"
#include "core/base/json_limits.h"
#include "core/base/time_util.h"
#include "core/autonomy/tool_sessions.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

const char kInstructionRunFailed[] =
    "A workflow run failed (below): this is one short run_failed turn; Run, Outward and Change are held. Follow "
    "\"Failed runs\" in goal-lead-check.md: when the failure blocks or threatens the goal, request QA with "
    "record_pulse_qa_request (what: the run, the step and the error; why: how it threatens the goal); otherwise "
    "reply in one line why it can wait. Questions to the Builder only, never a fix.";

const char kInstructionQaFix[] =
    "This is a QA fix run Pulse asked for (context.qa_request says what to check and why). Check it in the run "
    "folders and the facts (run_health), fix what you can within your autonomy (Run is held: you never start runs), "
    "and end with one JSON object on stdout: {\"status\": \"completed\" or \"failed\", \"technical_review\": \"what "
    "you found and did, in a few sentences\", \"reason\": \"why it came to that\"}. It goes back into Pulse's "
    "conversation and its next turn's context (qa_results).";

const char kInstructionArchitecture[] =
    "This is the Architecture turn of a full Pulse pass on a workflow without a goal: review the workflow's "
    "structure (routes, steps, schedules, plan changes, cost) as goal-lead-architecture.md says, and end with a short "
    "review on stdout. A refused call means create_decision_request.";

const char kInstructionTechnical[] =
    "This is the Technical turn of a full Pulse pass on a workflow without a goal: the automatic fix run. Review "
    "failed runs, CONCERNS: lines and unreadable run folders (run_health), fix what you can within your autonomy "
    "(Run is held), and end with one JSON object on stdout: {\"status\", \"technical_review\", \"reason\"}.";

bool FailureThreatensGoal(const FailedRunSeen& run, const WorkflowConfig& config, std::string* why) {
  const std::string goal_route = config.primary_metric ? config.primary_metric->route : "";
  if (run.route.empty()) {
    *why = "its route is not known, so it may be the goal's";
    return true;
  }
  if (!goal_route.empty() && run.route == goal_route) {
    *why = "it ran the goal's route " + goal_route;
    return true;
  }
  std::vector<std::string> lines = {run.error};
  lines.insert(lines.end(), run.concerns.begin(), run.concerns.end());
  for (const std::string& l : lines) {
    std::vector<LoginMatch> m = MatchLoginHints(l);
    if (!m.empty()) {
      *why = "it looks like an expired login (" + m.front().pattern + ": \"" + m.front().matched +
             "\"), which every route may need";
      return true;
    }
  }
  *why = "it ran " + run.route + ", not the goal's route" + (goal_route.empty() ? "" : " " + goal_route) +
         ", and names no login problem";
  return false;
}

QaResult QaResultFromRunner(const std::string& out, const std::string& error) {
  QaResult r;
  if (!error.empty()) {
    r.status = "failed";
    r.reason = error;
    r.technical_review = std::string(Utf8Prefix(out, 600));
    return r;
  }
  r.status = "completed";
  std::string text = out;
  size_t open = text.rfind("\n{");
  std::string candidate = open == std::string::npos ? text : text.substr(open + 1);
  Result<json> doc = ParseJsonBounded(candidate, "the fix run's reply", 4);
  if (doc.ok() && doc->is_object()) {
    std::string status = doc->value("status", std::string("completed"));
    r.status = status == "failed" ? "failed" : "completed";
    auto str = [&](const char* key) {
      auto it = doc->find(key);
      return it != doc->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    r.technical_review = str("technical_review");
    r.reason = str("reason");
    return r;
  }
  r.technical_review = out.empty() ? "the fix run printed nothing" : out;
  return r;
}

std::string QaResultLine(const PulseRequest& request, const QaResult& result) {
  std::string what = request.what.size() > 160 ? std::string(Utf8Prefix(request.what, 160)) + "…" : request.what;
  std::string line = "QA request " + std::to_string(request.id) + " (" + what + "): " + result.status;
  if (!result.technical_review.empty()) line += " — technical review: " + result.technical_review;
  if (!result.reason.empty()) line += " — reason: " + result.reason;
  return line;
}

json QaResultsJson(Db& db, int limit) {
  json out = json::array();
  for (const char* status : {"done", "failed"}) {
    Result<std::vector<PulseRequest>> list = ListRequests(db, RequestKind::kQa, status, limit);
    if (!list.ok()) continue;
    for (const PulseRequest& r : *list) {
      json res = r.detail.contains("qa_result") ? r.detail["qa_result"] : json::object();
      out.push_back({{"request_id", r.id},
                     {"what", r.what},
                     {"status", res.value("status", r.status == "done" ? "completed" : "failed")},
                     {"technical_review", res.value("technical_review", r.result)},
                     {"reason", res.value("reason", "")},
                     {"finished_at", res.value("finished_at", "")}});
    }
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a["request_id"] > b["request_id"]; });
  if (static_cast<int>(out.size()) > limit) out.erase(out.begin() + limit, out.end());
  return out;
}

Result<FailedRunSeen> FailedRunFromJson(const json& doc) {
  if (!doc.is_object() || !doc.contains("run_id") || !doc["run_id"].is_string()) {
    return Status::InvalidArgument("failed_run: an object with \"run_id\" is required");
  }
  FailedRunSeen r;
  r.run_id = doc["run_id"].get<std::string>();
  r.finished_at = doc.value("finished_at", "");
  r.status = doc.value("status", "");
  r.error = doc.value("error", "");
  r.route = doc.value("route", "");
  if (doc.contains("concerns") && doc["concerns"].is_array()) {
    for (const json& c : doc["concerns"]) if (c.is_string()) r.concerns.push_back(c.get<std::string>());
  }
  return r;
}

}  // namespace pulse

#include "agent/tools/pulse_tools.h"

#include <algorithm>

#include "agent/turns/pulse_qa.h"
#include "agent/turns/pulse_asks.h"
#include "core/agent_log/agent_log.h"
#include "core/api/agent_log.h"
#include "core/api/autonomy.h"
#include "core/api/decisions.h"
#include "core/api/facts.h"
#include "core/api/focus_areas.h"
#include "core/api/goal.h"
#include "core/api/review.h"
#include "core/goal/goal_check.h"
#include "core/base/one_line.h"
#include "core/base/time_util.h"
#include "core/autonomy/tool_catalog.h"

namespace pulse {

using nlohmann::json;

std::string JStr(const json& doc, const char* key, const std::string& fallback) {
  if (!doc.is_object()) return fallback;
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool JBool(const json& doc, const char* key, bool fallback) {
  if (!doc.is_object()) return fallback;
  auto it = doc.find(key);
  return it != doc.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

json JGet(const json& doc, const char* key, const json& fallback) {
  if (!doc.is_object()) return fallback;
  auto it = doc.find(key);
  return it != doc.end() && !it->is_null() ? *it : fallback;
}

bool IsPulseToolName(const std::string& normalized, const std::string& name_space) {
  if (!name_space.empty()) return false;
  for (const json& t : PulseToolDefinitions()) {
    if (t["name"] == normalized) return true;
  }
  return false;
}

bool IsPulseTool(std::string_view name) {
  std::string name_space;
  std::string n = NormalizeToolName(name, &name_space);
  return IsPulseToolName(n, name_space);
}

namespace {

// A part of a composite view: the document, or {"error": ...} so one
// missing piece does not hide the rest.
json Part(const Result<json>& r) { return r.ok() ? *r : json{{"error", r.status().message()}}; }

}  // namespace

json GoalLeadJson(ApiContext& ctx) {
  return json{{"memory", Part(MemoryShowJson(ctx))},
              {"focus_areas", Part(FocusListJson(ctx, true))},
              {"qa_requests", Part(RequestsJson(ctx, RequestKind::kQa, ""))},
              {"qa_results", QaResultsJson(*ctx.db)},
              {"rules", "goal memory first (soul.md wins on conflict); at most three open focus areas; consolidate "
                        "memory past 45 entries"}};
}

namespace {

// The goal check document with Pulse's own memory and open focus areas
// (goal_lead), so a turn reads them first.
Result<json> GoalStatusView(ApiContext& ctx) {
  PULSE_ASSIGN_OR_RETURN(json out, GoalStatusDocument(ctx, false, FactsWindow::kSinceLatestCheck));
  out["goal_lead"] = GoalLeadJson(ctx);
  return out;
}

Result<json> AgentLogView(ApiContext& ctx, const Args& a) {
  AgentLogQuery q;
  std::string session, run, status;
  PULSE_RETURN_IF_ERROR(a.OptString("session", &session));
  PULSE_RETURN_IF_ERROR(a.OptString("pulse_run_id", &run));
  PULSE_RETURN_IF_ERROR(a.OptString("status", &status));
  PULSE_RETURN_IF_ERROR(a.OptTime("since", &q.since));
  if (!session.empty()) q.session_id = session;
  if (!run.empty()) q.pulse_run_id = run;
  if (!status.empty()) q.status = status;
  q.stuck_after_minutes = ConfiguredStuckAfter(ctx.config);
  PULSE_ASSIGN_OR_RETURN(std::vector<AgentLogRow> rows, ReadAgentLog(*ctx.db, q, ctx.env->NowSeconds()));
  return AgentLogShowJson(rows, q.stuck_after_minutes);
}

Result<json> GetPulseState(ApiContext& ctx, const Args& a) {
  std::string view;
  PULSE_RETURN_IF_ERROR(a.Text("view", &view));
  if (view == "goal_status") return GoalStatusView(ctx);
  if (view == "agent_log") return AgentLogView(ctx, a);
  if (view == "goal_work") {
    PULSE_ASSIGN_OR_RETURN(json status, GoalStatusView(ctx));
    ContextDecisions decisions(ctx);
    return json{{"goal_status", status},
                {"readings", Part(GoalReadingsJson(*ctx.db, ctx.config))},
                {"runs_by_route", Part(RunsByRouteJson(*ctx.db, ctx.config, 0, ctx.env->NowSeconds()))},
                {"decisions", Part(ListDecisionsJson(decisions.get(), "pending"))},
                {"memory", Part(MemoryShowJson(ctx))},
                {"focus_areas", Part(FocusListJson(ctx, true))},
                {"autonomy", AutonomyLevelsJson(ctx.config)}};
  }
  // The module's inputs: the latest Workflow Review and the after-run options.
  if (view == "module") return ModuleStateJson(ctx);
  return a.Error("view", "must be goal_status, goal_work, agent_log or module, not \"" + view + "\"");
}

Result<json> RecordGoalCheck(ApiContext& ctx, const Args& a) {
  std::string verdict, note;
  PULSE_RETURN_IF_ERROR(a.OptString("verdict", &verdict));
  PULSE_RETURN_IF_ERROR(a.OptString("note", &note));
  PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, ctx.env->NowSeconds(), true));
  json out = {{"recorded", true}, {"check", check.ToJson()}};
  if (!verdict.empty()) {
    out["verdict"] = verdict;
    // The stored status is the core's; a different reading by the agent is
    // reported back, not stored over it.
    out["verdict_matches"] = GoalStatusName(check.status) == verdict;
  }
  if (!note.empty()) out["note"] = note;
  return out;
}

Status ReadRecommendation(const Args& a, const std::string& session, RecommendationInput* in) {
  PULSE_RETURN_IF_ERROR(a.OptString("option", &in->option));
  PULSE_RETURN_IF_ERROR(a.OptString("text", &in->text));
  PULSE_RETURN_IF_ERROR(a.Text("why", &in->why));
  PULSE_RETURN_IF_ERROR(a.OptString("evidence", &in->evidence));
  std::string confidence;
  PULSE_RETURN_IF_ERROR(a.Text("confidence", &confidence));
  Result<Confidence> parsed = ParseConfidence(confidence, a.where());
  if (!parsed.ok()) return a.Error("confidence", "must be low, medium or high");
  in->confidence = *parsed;
  PULSE_RETURN_IF_ERROR(a.OptTime("safe_default_by", &in->safe_default_by));
  in->session = session;
  return Status::OK();
}

// What a new decision needs, checked before it exists so a bad call leaves
// nothing behind.
Status ReadNewDecision(const Args& a, const RecommendationInput& in, DecisionRequest* req) {
  PULSE_RETURN_IF_ERROR(a.Text("question", &req->question));
  PULSE_RETURN_IF_ERROR(a.OptStringList("options", &req->options));
  if (in.option && !in.option->empty() && a.Has("options") &&
      std::find(req->options.begin(), req->options.end(), *in.option) == req->options.end()) {
    return a.Fail("option \"" + *in.option + "\" is not among the options");
  }
  PULSE_RETURN_IF_ERROR(a.OptString("blocks", &req->blocks));
  req->raised_by = "pulse";
  return Status::OK();
}

Result<json> RecordRecommendation(ApiContext& ctx, const std::string& session, const Args& a) {
  RecommendationInput in;
  PULSE_RETURN_IF_ERROR(ReadRecommendation(a, session, &in));
  DecisionRequest req;
  if (a.Has("decision_id")) {
    PULSE_RETURN_IF_ERROR(a.Id("decision_id", &in.decision_id));
    if (in.decision_id <= 0) return Status::NotFound("decision " + std::to_string(in.decision_id) + ": no such decision");
  } else {
    PULSE_RETURN_IF_ERROR(ReadNewDecision(a, in, &req));
  }
  PULSE_ASSIGN_OR_RETURN(RecommendationOutcome out, RaiseRecommendation(ctx, req, in));
  json doc = out.ToJson();
  // The id as the caller wrote it ("7" stays a string).
  if (!out.created) doc["decision_id"] = *a.Find("decision_id");
  return doc;
}

Result<json> RecordOutcomeTool(ApiContext& ctx, const Args& a) {
  int64_t id = 0;
  std::string result;
  PULSE_RETURN_IF_ERROR(a.Id("id", &id));
  PULSE_RETURN_IF_ERROR(a.Text("result", &result));
  ContextDecisions decisions(ctx);
  PULSE_ASSIGN_OR_RETURN(DecisionView done, RecordDecisionOutcome(decisions.get(), id, result));
  return DecisionViewJson(done);
}

}  // namespace

namespace {

// One of Pulse's tools by its normalised name (REQUIRES: IsPulseToolName).
Result<json> RunPulseTool(ApiContext& ctx, const std::string& session, const std::string& name, const json& args) {
  if (!args.is_object()) return Status::InvalidArgument(name + ": arguments must be a JSON object");
  if (!ctx.db || !ctx.env) return Status::InvalidArgument(name + ": needs a workflow database");
  Args a(name, args);
  if (name == "get_pulse_state") return GetPulseState(ctx, a);
  if (name == "record_pulse_goal_check") return RecordGoalCheck(ctx, a);
  if (name == "record_pulse_recommendation") return RecordRecommendation(ctx, session, a);
  if (name == "record_pulse_decision_outcome") return RecordOutcomeTool(ctx, a);
  if (name == "record_workflow_review" || name == "record_housekeeping") return ExecuteReviewTool(ctx, session, name, a);
  return ExecuteRecordTool(ctx, session, name, a);
}

}  // namespace

Result<json> ExecutePulseTool(ApiContext& ctx, const std::string& session, const std::string& tool,
                              const json& args) {
  std::string name_space;
  const std::string name = NormalizeToolName(tool, &name_space);
  if (!IsPulseToolName(name, name_space)) return Status::NotFound("\"" + tool + "\" is not one of Pulse's own tools");
  return RunPulseTool(ctx, session, name, args);
}

json RecommendationOutcome::ToJson() const {
  json out = {{"decision_id", decision_id}, {"created", created}};
  if (!safe_default_refused.empty()) out["safe_default_refused"] = safe_default_refused;
  out["recommendation"] = DecisionViewJson(recommendation);
  return out;
}

Result<RecommendationOutcome> RaiseRecommendation(ApiContext& ctx, const DecisionRequest& request,
                                                  RecommendationInput in) {
  ContextDecisions decisions(ctx);
  RecommendationOutcome out;
  if (in.decision_id == 0) {
    PULSE_ASSIGN_OR_RETURN(in.decision_id, CreateDecision(decisions.get(), request));
    out.created = true;
  }
  out.decision_id = in.decision_id;
  Result<DecisionView> made = Recommend(decisions.get(), in);
  if (!made.ok() && out.created && made.status().code() == Code::kRefused && in.safe_default_by) {
    // The decisions module accepts a safe default only with high confidence
    // and when applying it needs no level held at ask. The decision exists
    // now, so the recommendation is kept without the safe default and the
    // refusal is reported.
    out.safe_default_refused = made.status().message();
    in.safe_default_by.reset();
    made = Recommend(decisions.get(), in);
  }
  if (!made.ok() && out.created) {
    return made.status().WithContext("record_pulse_recommendation: decision " + std::to_string(out.decision_id) +
                                     " was opened but");
  }
  PULSE_ASSIGN_OR_RETURN(out.recommendation, std::move(made));
  return out;
}

json ToolCallOutcome::ToJson() const {
  json out = {{"tool", tool}, {"allowed", guard.allowed}, {"reason", guard.reason}, {"rule", GuardRuleName(guard.rule)}};
  if (guard.level != GuardLevel::kNone) out["level"] = GuardLevelName(guard.level);
  if (!guard.allowed) {
    out["refused"] = true;
    if (executed) {
      // ask_builder's fix held at change=ask: not sent, and raised for the
      // owner as one decision instead.
      out["held_as_decision"] = true;
      out["decision_id"] = result.value("decision_id", json(nullptr));
      out["result"] = result;
    }
    return out;
  }
  if (!executed && forwarded) {
    out["status"] = "forwarded";
    out["done"] = platform_done;
    out["result"] = result;
    return out;
  }
  if (!executed) {
    // Not "executed: false": a caller skimming for success must not read
    // this as done. The guard allowed it; the platform has to run it.
    out["status"] = "carry_out_on_platform";
    out["done"] = false;
    out["carry_out_on_platform"] = true;
    out["note"] = "allowed by the autonomy guard but NOT carried out: Pulse does not run platform tools; carry it "
                  "out on the workflow platform";
    return out;
  }
  out["executed"] = true;
  out["tool"] = guard.tool;
  out["result"] = result;
  return out;
}

ToolReply ToolCallReply(const Result<ToolCallOutcome>& out) {
  if (!out.ok()) return ToolReply{BoundedReason(out.status().message()), true, ErrorToJson(out.status())};
  json doc = out->ToJson();
  if (!out->guard.allowed) {
    return ToolReply{out->guard.reason.empty() ? "refused" : BoundedReason(out->guard.reason), true, doc};
  }
  if (out->executed) return ToolReply{out->result, false, doc};
  return ToolReply{doc, out->forwarded && !out->platform_done, doc};
}

Result<GuardDecision> GuardSessionTool(ApiContext& ctx, const ToolSession& session, const std::string& tool,
                                       const json& args) {
  return GuardSessionCall(*ctx.db, ctx.config, session, tool, args, ctx.env->NowSeconds());
}

Result<ToolCallOutcome> DispatchToolCall(ApiContext& ctx, const ToolSession& session, const std::string& tool,
                                         const json& args, const PlatformForwarder* platform) {
  ToolCallOutcome out;
  out.tool = tool;
  PULSE_ASSIGN_OR_RETURN(out.guard, GuardSessionTool(ctx, session, tool, args));
  if (!out.guard.allowed) {
    if (out.guard.tool == "ask_builder" && out.guard.rule == GuardRule::kChangeLevel) {
      PULSE_ASSIGN_OR_RETURN(out.result, AskBuilderFixAsDecision(ctx, session.id, args, out.guard.reason));
      out.executed = true;
    }
    return out;
  }
  if (out.guard.tool == "ask_pulse") {
    // Only a platform session (workflow_step) gets here: its ask is a round
    // of a thread in Pulse's conversation, answered within its wait.
    PULSE_ASSIGN_OR_RETURN(out.result, AskPulseTool(ctx, session, args));
    out.executed = true;
    return out;
  }
  // The name as the guard read it: normalised once, on the way to the rule.
  const std::string& name = out.guard.tool;
  if (!IsPulseToolName(name, out.guard.tool_namespace)) {
    if (platform && *platform) {
      PULSE_ASSIGN_OR_RETURN(PlatformResult done, (*platform)(session, name, args));
      out.forwarded = true;
      out.platform_done = done.done;
      out.result = std::move(done.result);
    }
    return out;
  }
  PULSE_ASSIGN_OR_RETURN(out.result, RunPulseTool(ctx, session.id, name, args));
  out.executed = true;
  return out;
}

}  // namespace pulse

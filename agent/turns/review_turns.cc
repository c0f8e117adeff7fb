#include "agent/turns/review_turns.h"

#include "agent/outbox/outbox.h"
#include "agent/tools/pulse_tools.h"
#include "core/workflow/after_run.h"
#include "core/review/review_conversation.h"
#include "core/base/time_util.h"
#include "core/review/workflow_review.h"
#include "core/base/text.h"

namespace pulse {

using nlohmann::json;

namespace {

const char* kReviewCharter =
    "You are the Workflow Review of workflow \"{wf}\": a check of the plan before it runs, in its own conversation "
    "(not Pulse's). The context holds the due set (why a review is due), planning/plan.json, "
    "planning/step_config.json and the plan changes since the last review. Check that every step's references "
    "(depends_on, the inputs and outputs step_config.json names, the contract version) still hold after those "
    "changes. Finish with exactly one record_workflow_review: result=clean when nothing is broken, or "
    "result=broken with each broken step and its reason (only runs touching those steps are stopped). You never "
    "run steps or send anything; a refused call means create_decision_request.";

const char* kHousekeepingCharter =
    "You are the housekeeping turn of workflow \"{wf}\" after a run: do only the actions listed in the context "
    "(backup, publish), following backup-strategy.md / publish-strategy.md in the workflow folder, and record each "
    "with record_housekeeping(action, done). Nothing else: every other tool is refused in this turn.";

std::string ReadIfThere(Env& env, const std::string& path) {
  if (!env.FileExists(path)) return "";
  Result<std::string> t = env.ReadFile(path);
  return t.ok() ? t->substr(0, 20000) : "";
}

Result<json> ReviewContext(ApiContext& ctx) {
  ReviewFile file = ReadReviewFile(*ctx.env, ReviewFilePath(ctx.workflow_dir));
  PULSE_ASSIGN_OR_RETURN(PlanState plan, ReadPlanState(*ctx.env, ctx.workflow_dir, ctx.config, file, ctx.env->NowSeconds()));
  // The review has claimed this revision by now: its record holds the due set.
  const std::vector<DueItem>& items = plan.current ? plan.current->due : plan.due;
  json due = json::array();
  for (const DueItem& d : items) due.push_back(d.ToJson());
  json changes = json::array();
  for (const json& c : plan.changes_since) changes.push_back(c);
  return json{{"workflow", ctx.workflow},
              {"now", FormatTime(ctx.env->NowSeconds())},
              {"revision", plan.revision},
              {"due", due},
              {"plan_json", ReadIfThere(*ctx.env, PlanPath(ctx.workflow_dir))},
              {"step_config_json", ReadIfThere(*ctx.env, ctx.workflow_dir + "/planning/step_config.json")},
              {"changes_since_last_review", changes},
              {"contract_version", ctx.config.contract_version},
              {"pulse_contract_version", kPulseContractVersion}};
}

Result<HousekeepingRequest> RunningHousekeeping(ApiContext& ctx) {
  PULSE_ASSIGN_OR_RETURN(std::vector<HousekeepingRequest> running, ListHousekeeping(*ctx.db, "running", 1));
  if (running.empty()) return Status::NotFound("no housekeeping request is running");
  return running.front();
}

// A guarded call of one of Pulse's tools from the rules runner.
Result<json> Call(ApiContext& ctx, const std::string& session, const std::string& tool, const json& args) {
  PULSE_ASSIGN_OR_RETURN(ToolSession s, LoadToolSession(*ctx.db, session));
  PULSE_ASSIGN_OR_RETURN(ToolCallOutcome out, DispatchToolCall(ctx, s, tool, args));
  if (!out.guard.allowed) return Status::Refused(out.guard.reason);
  return out.result;
}

}  // namespace

Result<json> AroundRunTurnContext(ApiContext& ctx, TurnKind kind, const json& input) {
  json context;
  std::string charter;
  if (kind == TurnKind::kWorkflowReview) {
    PULSE_ASSIGN_OR_RETURN(context, ReviewContext(ctx));
    charter = kReviewCharter;
  } else if (kind == TurnKind::kHousekeeping) {
    PULSE_ASSIGN_OR_RETURN(HousekeepingRequest r, RunningHousekeeping(ctx));
    context = {{"workflow", ctx.workflow}, {"run_id", r.run_id}, {"actions", r.actions}, {"source_hash", r.source_hash},
               {"backup_strategy_md", ReadIfThere(*ctx.env, ctx.workflow_dir + "/backup-strategy.md")},
               {"publish_strategy_md", ReadIfThere(*ctx.env, ctx.workflow_dir + "/publish-strategy.md")}};
    charter = kHousekeepingCharter;
  } else {
    return Status::InvalidArgument(std::string("not a turn around a run: ") + TurnKindName(kind));
  }
  return json{{"charter", Replace(charter, "{wf}", ctx.workflow)}, {"context", context},
              {"tools", PulseToolDefinitions()}};
}

Status ClaimReviewTurn(ApiContext& ctx, const std::string& session, const std::string& pulse_run_id,
                       const json& input) {
  ReviewFile file = ReadReviewFile(*ctx.env, ReviewFilePath(ctx.workflow_dir));
  const int64_t now = ctx.env->NowSeconds();
  PULSE_ASSIGN_OR_RETURN(PlanState plan, ReadPlanState(*ctx.env, ctx.workflow_dir, ctx.config, file, now));
  std::string trigger = JStr(input, "trigger", "tick");
  PULSE_ASSIGN_OR_RETURN(ReviewRecord r, ClaimReview(*ctx.env, ctx.workflow_dir, plan.revision, plan.due, trigger,
                                                     session, pulse_run_id, now));
  const json chats = JGet(input, "notify", json::array());
  for (const json& chat : chats) {
    if (chat.is_string()) PULSE_RETURN_IF_ERROR(AddReviewWaiter(*ctx.env, ctx.workflow_dir, r.revision, chat, now));
  }
  return Status::OK();
}

Result<std::string> RunRulesReview(ApiContext& ctx, const std::string& session) {
  ReviewFile file = ReadReviewFile(*ctx.env, ReviewFilePath(ctx.workflow_dir));
  PULSE_ASSIGN_OR_RETURN(PlanState plan, ReadPlanState(*ctx.env, ctx.workflow_dir, ctx.config, file, ctx.env->NowSeconds()));
  std::vector<BrokenStep> broken = RulesReview(plan);
  json list = json::array();
  for (const BrokenStep& b : broken) list.push_back(b.ToJson());
  std::string summary = broken.empty()
                            ? "The plan's " + std::to_string(plan.steps.size()) + " steps and their references hold."
                            : std::to_string(broken.size()) + " broken: " + broken.front().step + " — " + broken.front().reason;
  // The receipt carries what the record keeps (the record summarises too).
  broken = SummariseBreaks(broken);
  json args = {{"result", broken.empty() ? "clean" : "broken"}, {"summary", summary}};
  if (!broken.empty()) args["broken"] = list;
  PULSE_RETURN_IF_ERROR(Call(ctx, session, "record_workflow_review", args).status());
  return summary;
}

Result<std::string> RunRulesHousekeeping(ApiContext& ctx, const std::string& session) {
  PULSE_ASSIGN_OR_RETURN(HousekeepingRequest r, RunningHousekeeping(ctx));
  for (const std::string& action : r.actions) {
    PULSE_RETURN_IF_ERROR(Call(ctx, session, "record_housekeeping",
                               json{{"action", action}, {"done", false},
                                    {"note", "the built-in runner reaches no backup or publish provider"}})
                              .status());
  }
  return "Not done: " + json(r.actions).dump() +
         " need an agent runner (pulse serve --runner) that follows backup-strategy.md / publish-strategy.md; the "
         "next change of the source asks again.";
}

Result<ReviewConversationTurn> BeginReviewConversationTurn(ApiContext& ctx, const std::string& session) {
  PULSE_ASSIGN_OR_RETURN(ReviewRecord r, FindReviewBySession(*ctx.env, ctx.workflow_dir, session));
  std::string text = "WORKFLOW REVIEW of " + ctx.workflow + ", plan revision " + r.revision.substr(0, 12) +
                     " (trigger " + r.trigger + "). Due:";
  for (const DueItem& d : r.due) text += "\n- " + d.kind + ": " + d.detail;
  if (r.due.empty()) text += " nothing (asked again for this revision).";
  ReviewConversation conv(*ctx.db, ctx.workflow);
  // Earlier reviews first: this one continues from them, not from Pulse's conversation.
  PULSE_ASSIGN_OR_RETURN(std::vector<ReviewTurn> earlier, conv.Recent());
  ReviewConversationTurn out;
  PULSE_ASSIGN_OR_RETURN(out.turn_id, conv.Begin(session, r.revision, r.trigger, r.pulse_run_id, text,
                                                 ctx.env->NowSeconds()));
  json transcript = json::array();
  for (const ReviewTurn& t : earlier) {
    transcript.push_back({{"at", FormatTime(t.started_at)}, {"turn", "workflow_review"}, {"session", t.session},
                          {"text", t.text}, {"reply", t.reply}, {"state", t.state}, {"outcome", t.outcome}});
  }
  out.continuity = {{"conversation", "workflow_review"}, {"title", kReviewConversationTitle},
                    {"session_id", session},             {"restored_conversation_session_id", nullptr},
                    {"turn_id", out.turn_id},            {"text", text},
                    {"transcript", transcript}};
  return out;
}

void EndReviewConversationTurn(ApiContext& ctx, int64_t turn_id, const std::string& reply, const std::string& error,
                               const std::string& outcome) {
  const std::string state = error.empty() ? "completed" : error.find("interrupted") != std::string::npos ? "interrupted"
                                                                                                       : "failed";
  Status s = ReviewConversation(*ctx.db, ctx.workflow).Finish(turn_id, state, reply, outcome, error, ctx.env->NowSeconds());
  if (!s.ok()) ctx.env->Log(LogLevel::kWarn, ctx.workflow + ": workflow review conversation: " + s.message());
}

std::string EndReviewTurn(ApiContext& ctx, const std::string& session, const std::string& error) {
  const int64_t now = ctx.env->NowSeconds();
  std::string why = error.empty() ? "the review ended without record_workflow_review" : error;
  Status s = FinishUnreceipted(*ctx.env, ctx.workflow_dir, session, why, now);
  if (!s.ok()) ctx.env->Log(LogLevel::kWarn, ctx.workflow + ": workflow review: " + s.message());
  Result<ReviewRecord> r = FindReviewBySession(*ctx.env, ctx.workflow_dir, session);
  if (!r.ok()) return "unclaimed";
  for (const std::string& chat : r->notify) {
    OutboxMessage m;
    m.kind = "workflow_review_done";
    m.title = ctx.workflow + " Workflow Review: " + r->outcome;
    m.text = r->outcome == "broken"
                 ? "The Workflow Review found a break (" + r->summary + "); runs that touch it stay stopped."
             : r->outcome == "unrecorded"
                 ? "The Workflow Review could not record its result (" + r->summary + "); runs stay stopped."
                 : "The Workflow Review finished (" + r->outcome + "). Run again.";
    m.payload = {{"chat_session", chat}, {"review", r->ToJson()}};
    m.pulse_run_id = r->pulse_run_id;
    Result<int64_t> id = AddOutboxMessage(*ctx.db, m, now);
    if (!id.ok()) ctx.env->Log(LogLevel::kWarn, ctx.workflow + ": outbox: " + id.status().message());
  }
  return r->outcome;
}

}  // namespace pulse

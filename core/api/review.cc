// review.* and schedule.* API methods: the Workflow Review state (what the
// module view and the Pulse tab show as an input), the after-run options per
// schedule, and the owner's checkboxes. Argument reading only; the rules are
// in core/review/workflow_review.cc and core/workflow/after_run.cc.
#include "core/api/review.h"

#include "core/workflow/after_run.h"
#include "core/api/focus_areas.h"
#include "core/review/review_conversation.h"
#include "core/workflow/workflow_edit.h"
#include "core/review/workflow_review.h"

namespace pulse {

using nlohmann::json;

json AfterRunOptionsJson(const WorkflowConfig& config) {
  json schedules = json::array();
  for (const Schedule& s : config.schedules) {
    json item = {{"id", s.id}, {"cron", s.cron}, {"enabled", s.enabled}, {"after_run", AfterRunToJson(s.after_run)},
                 {"from", s.after_run_set ? "after_run" : s.pulse_mode.empty() ? "default" : "pulse_mode"}};
    if (!s.pulse_mode.empty()) item["pulse_mode"] = s.pulse_mode;
    schedules.push_back(item);
  }
  return json{{"schedules", schedules}, {"after_manual_run", AfterRunToJson(config.after_manual_run)}};
}

Result<json> WorkflowReviewJson(ApiContext& ctx) {
  if (ctx.workflow_dir.empty() || !ctx.env) {
    return json{{"available", false}, {"note", "the Workflow Review record lives in the workflow folder (planning/)"}};
  }
  ReviewFile file = ReadReviewFile(*ctx.env, ReviewFilePath(ctx.workflow_dir));
  PULSE_ASSIGN_OR_RETURN(PlanState plan,
                         ReadPlanState(*ctx.env, ctx.workflow_dir, ctx.config, file, ctx.env->NowSeconds()));
  json out = ReviewStateJson(plan, file);
  out["available"] = true;
  out["verdict"] = DecidePreRun(plan, "", ctx.env->NowSeconds()).ToJson();
  return out;
}

json LatestReviewJson(const ApiContext& ctx) {
  if (ctx.workflow_dir.empty() || !ctx.env) return json();
  ReviewFile file = ReadReviewFile(*ctx.env, ReviewFilePath(ctx.workflow_dir));
  return file.reviews.empty() ? json() : file.reviews.back().ToJson();
}

Result<json> ModuleStateJson(ApiContext& ctx) {
  json summaries = json::array();
  if (ctx.db) {
    PULSE_ASSIGN_OR_RETURN(std::vector<RunSummaryRecord> list, ListRunSummaries(*ctx.db, 10));
    for (const RunSummaryRecord& r : list) summaries.push_back(r.ToJson());
  }
  json housekeeping = json::array();
  if (ctx.db) {
    PULSE_ASSIGN_OR_RETURN(std::vector<HousekeepingRequest> list, ListHousekeeping(*ctx.db, "", 20));
    for (const HousekeepingRequest& r : list) housekeeping.push_back(r.ToJson());
  }
  PULSE_ASSIGN_OR_RETURN(json review, WorkflowReviewJson(ctx));
  // The review's own conversation, from the database (so the browser's copy
  // shows it too); Pulse's goal conversation is elsewhere.
  json conversation = json{{"title", kReviewConversationTitle}, {"turns", json::array()}, {"total", 0}};
  if (ctx.db) {
    PULSE_ASSIGN_OR_RETURN(conversation, ReviewConversation(*ctx.db, ctx.workflow).ViewJson());
  }
  return json{{"workflow", ctx.workflow},          {"workflow_review", review},
              {"after_run", AfterRunOptionsJson(ctx.config)}, {"run_summaries", summaries},
              {"housekeeping", housekeeping},      {"review_conversation", conversation}};
}

namespace {

Result<json> State(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  return ModuleStateJson(ctx);
}

// {schedule: "<id>" | "manual", backup, publish, notify}: the three boxes of
// one row, all given, so a click never resets the other two.
Result<json> SetAfterRun(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string schedule;
  PULSE_RETURN_IF_ERROR(a.Text("schedule", &schedule));
  AfterRun after;
  for (auto [key, field] : {std::pair<const char*, bool*>{"backup", &after.backup}, {"publish", &after.publish},
                            {"notify", &after.notify}}) {
    if (!a.Has(key)) return a.Error(key, "is required (true or false)");
    PULSE_RETURN_IF_ERROR(a.OptBool(key, field));
  }
  const std::string path = WorkflowJsonPath(ctx);
  if (path.empty()) return a.Fail("needs the workflow folder (workflow.json)");
  PULSE_ASSIGN_OR_RETURN(WorkflowEditResult edit,
                         EditWorkflowJson(*ctx.env, path, "schedule.after_run",
                                          [&](json& doc) { return SetAfterRunDoc(doc, schedule, after); }));
  PULSE_ASSIGN_OR_RETURN(ctx.config, ParseWorkflowConfig(edit.text, path));
  json out = AfterRunOptionsJson(ctx.config);
  out["changed"] = edit.changed;
  return out;
}

// pulse_mode -> after_run in workflow.json (also run at `pulse serve` start).
Result<json> Migrate(ApiContext& ctx, const Args& a) {
  const std::string path = WorkflowJsonPath(ctx);
  if (path.empty() || !ctx.env) return a.Fail("needs the workflow folder (workflow.json)");
  AfterRunMigration report;
  PULSE_ASSIGN_OR_RETURN(WorkflowEditResult edit, EditWorkflowJson(*ctx.env, path, "migrate", [&](json& doc) {
                           report = AfterRunMigration{};  // a re-read starts over
                           return MigrateAfterRunDoc(doc, &report);
                         }));
  PULSE_ASSIGN_OR_RETURN(ctx.config, ParseWorkflowConfig(edit.text, path));
  json out = report.ToJson();
  out["workflow"] = ctx.workflow;
  out["written"] = edit.changed;
  out["after_run"] = AfterRunOptionsJson(ctx.config);
  return out;
}

}  // namespace

void AddReviewApi(ApiRegistry& r) {
  r.Add("review.state", State, Access::kRead,
        "the Workflow Review state (revision, due set, latest review), the after-run options and recent run summaries");
  r.Add("schedule.after_run", SetAfterRun, Access::kOwner,
        "sets one schedule's after-run options (or after_manual_run with schedule \"manual\")");
  r.Add("workflow.migrate", Migrate, Access::kOwner, "pulse_mode -> after_run in workflow.json (idempotent)");
}

}  // namespace pulse

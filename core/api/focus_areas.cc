// focus.* and request.* API methods. Argument reading only; the rules are in
// focus_areas.cc and pulse_requests.cc.
#include "core/api/focus_areas.h"

#include "core/api/decisions.h"
#include "core/workflow/workflow_edit.h"

namespace pulse {

using nlohmann::json;

std::string WorkflowJsonPath(const ApiContext& ctx) {
  return ctx.workflow_dir.empty() ? std::string() : ctx.workflow_dir + "/workflow.json";
}

Status ReadFocusChange(const Args& a, std::initializer_list<FocusAction> allowed, FocusChange* out) {
  std::string action;
  PULSE_RETURN_IF_ERROR(a.Text("action", &action));
  Result<FocusAction> parsed = ParseFocusAction(action);
  std::string names;
  bool listed = false;
  for (FocusAction f : allowed) {
    names += (names.empty() ? "" : ", ") + std::string(FocusActionName(f));
    listed = listed || (parsed.ok() && f == *parsed);
  }
  if (!listed) return a.Error("action", "must be one of " + names + ", not \"" + action + "\"");
  out->action = *parsed;
  PULSE_RETURN_IF_ERROR(a.OptString("id", &out->id));
  PULSE_RETURN_IF_ERROR(a.OptString("title", &out->title));
  PULSE_RETURN_IF_ERROR(a.OptString("end_date", &out->end_date));
  PULSE_RETURN_IF_ERROR(a.OptString("check", &out->check));
  PULSE_RETURN_IF_ERROR(a.OptString("note", &out->note));
  PULSE_RETURN_IF_ERROR(a.OptString("lesson", &out->lesson));
  return Status::OK();
}

Result<json> ApplyFocusChangeJson(ApiContext& ctx, const FocusChange& change) {
  GoalMemory memory(*ctx.db, *ctx.env, GoalMemoryPath(ctx));
  FocusAreas areas(*ctx.db, *ctx.env, ctx.workflow, WorkflowJsonPath(ctx), &memory);
  PULSE_ASSIGN_OR_RETURN(FocusOutcome out, areas.Apply(change));
  Result<std::string> text = ReadWorkflowJson(*ctx.env, WorkflowJsonPath(ctx));
  if (text.ok()) {
    Result<WorkflowConfig> config = ParseWorkflowConfig(*text, WorkflowJsonPath(ctx));
    if (config.ok()) ctx.config = std::move(*config);
  }
  return out.ToJson();
}

Result<json> FocusListJson(ApiContext& ctx, bool open_only) {
  FocusAreas areas(*ctx.db, *ctx.env, ctx.workflow, WorkflowJsonPath(ctx), nullptr);
  PULSE_ASSIGN_OR_RETURN(std::vector<FocusArea> list, open_only ? areas.Open() : areas.List());
  json items = json::array();
  int open = 0;
  for (const FocusArea& a : list) {
    items.push_back(a.ToJson());
    open += a.open() ? 1 : 0;
  }
  return json{{"focus_areas", items}, {"open", open}, {"max_open", kMaxOpenFocusAreas},
              {"default_days", kDefaultFocusDays}};
}

Result<json> RequestsJson(ApiContext& ctx, std::optional<RequestKind> kind, const std::string& status) {
  PULSE_ASSIGN_OR_RETURN(std::vector<PulseRequest> list, ListRequests(*ctx.db, kind, status));
  json items = json::array();
  for (const PulseRequest& r : list) items.push_back(r.ToJson());
  return json{{"requests", items}};
}

namespace {

Result<json> List(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  bool open_only = false;
  PULSE_RETURN_IF_ERROR(a.OptBool("open", &open_only));
  return FocusListJson(ctx, open_only);
}

Result<json> Change(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  FocusChange change;
  using F = FocusAction;
  PULSE_RETURN_IF_ERROR(ReadFocusChange(
      a, {F::kPropose, F::kAdd, F::kConfirm, F::kReject, F::kDrop, F::kExtend, F::kTrack, F::kClose}, &change));
  return ApplyFocusChangeJson(ctx, change);
}

Result<json> Expire(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  FocusAreas areas(*ctx.db, *ctx.env, ctx.workflow, WorkflowJsonPath(ctx), nullptr);
  PULSE_ASSIGN_OR_RETURN(std::vector<std::string> ids, areas.Expire());
  return json{{"expired", ids}};
}

Result<json> Requests(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string kind, status;
  PULSE_RETURN_IF_ERROR(a.OptString("kind", &kind));
  PULSE_RETURN_IF_ERROR(a.OptString("status", &status));
  std::optional<RequestKind> k;
  if (!kind.empty()) {
    Result<RequestKind> parsed = ParseRequestKind(kind);
    if (!parsed.ok()) return a.Error("kind", "must be qa, fast or builder_ask, not \"" + kind + "\"");
    k = *parsed;
  }
  return RequestsJson(ctx, k, status);
}

Result<json> QaRequest(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  NewRequest r;
  r.kind = RequestKind::kQa;
  PULSE_RETURN_IF_ERROR(a.Text("what", &r.what));
  PULSE_RETURN_IF_ERROR(a.OptString("why", &r.why));
  PULSE_ASSIGN_OR_RETURN(RecordedRequest out, RecordRequest(*ctx.db, *ctx.env, r));
  return json{{"request_id", out.request.id}, {"request", out.request.ToJson()}};
}

Result<json> TakeFast(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string by;
  PULSE_RETURN_IF_ERROR(a.Text("taken_by", &by));
  PULSE_ASSIGN_OR_RETURN(std::vector<PulseRequest> taken, TakePendingFastRequests(*ctx.db, *ctx.env, by));
  json items = json::array();
  for (const PulseRequest& r : taken) items.push_back(r.ToJson());
  return json{{"taken", items}};
}

}  // namespace

void AddFocusApi(ApiRegistry& r) {
  r.Add("focus.list", List, Access::kRead, "focus areas from workflow.json (pulse.focus_area_details) {open?}");
  r.Add("focus.change", Change, Access::kOwner,
        "the owner's focus-area change {action: propose|add|confirm|reject|drop|extend|track|close, id?, title?, "
        "end_date?, check?, note?, lesson?}");
  r.Add("focus.expire", Expire, Access::kOwner, "expires open focus areas past their end date (the tick's job)");
  r.Add("request.list", Requests, Access::kRead, "QA, fast and Builder requests, newest first {kind?, status?}");
  r.Add("qa.request", QaRequest, Access::kOwner, "records a QA request {what, why?}");
  r.Add("request.take_fast", TakeFast, Access::kServer,
        "takes every pending fast request for one earlier pass {taken_by}");
}

}  // namespace pulse

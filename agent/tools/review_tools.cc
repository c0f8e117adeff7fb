// The typed receipts of the two turns that sit around a run:
// record_workflow_review (the Workflow Review's verdict: clean, or broken
// with each broken step and why) and record_housekeeping (a backup or
// publish done for the source hash the request was made for). Each is only
// taken from a session opened for its own turn kind.
#include <algorithm>

#include "agent/tools/pulse_tools.h"
#include "core/workflow/after_run.h"
#include "core/base/time_util.h"
#include "core/review/workflow_review.h"

namespace pulse {

using nlohmann::json;

namespace {

Status NeedTurn(ApiContext& ctx, const std::string& session, TurnKind kind, const std::string& tool) {
  Result<ToolSession> s = LoadToolSession(*ctx.db, session);
  if (!s.ok() || s->turn != kind) {
    return Status::Refused(tool + ": only a " + TurnKindName(kind) + " turn records this; session " + session +
                           " is not one");
  }
  if (ctx.workflow_dir.empty()) return Status::InvalidArgument(tool + ": needs the workflow folder");
  return Status::OK();
}

// The receipt as the review gave it; how many breaks it lists is not
// limited here (the record summarises past kMaxListedBreaks).
Result<json> ReadAndRecordReview(ApiContext& ctx, const std::string& session, const Args& a) {
  std::string result, summary;
  PULSE_RETURN_IF_ERROR(a.Text("result", &result));
  PULSE_RETURN_IF_ERROR(a.OptString("summary", &summary));
  std::vector<BrokenStep> broken;
  if (const json* list = a.Find("broken")) {
    if (!list->is_array()) return a.Error("broken", "must be a list of {step, reason}");
    for (const json& b : *list) {
      if (!b.is_object()) return a.Error("broken", "has an entry that is not {step, reason}");
      broken.push_back(BrokenStep{JStr(b, "step"), JStr(b, "reason")});
    }
  }
  PULSE_ASSIGN_OR_RETURN(ReviewRecord r, RecordReviewReceipt(*ctx.env, ctx.workflow_dir, session, result, broken,
                                                             summary, ctx.env->NowSeconds()));
  return json{{"recorded", true}, {"review", r.ToJson()}};
}

Result<json> RecordWorkflowReview(ApiContext& ctx, const std::string& session, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedTurn(ctx, session, TurnKind::kWorkflowReview, "record_workflow_review"));
  Result<json> out = ReadAndRecordReview(ctx, session, a);
  if (!out.ok()) {
    // The review tried to record and could not: if it ends without a
    // receipt, runs stop with this reason instead of going unreviewed.
    Status noted = NoteReceiptError(*ctx.env, ctx.workflow_dir, session, out.status().message(), ctx.env->NowSeconds());
    if (!noted.ok()) ctx.env->Log(LogLevel::kWarn, ctx.workflow + ": workflow review: " + noted.message());
  }
  return out;
}

Result<json> RecordHousekeepingTool(ApiContext& ctx, const std::string& session, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedTurn(ctx, session, TurnKind::kHousekeeping, "record_housekeeping"));
  std::string action, note;
  bool done = false;
  PULSE_RETURN_IF_ERROR(a.Text("action", &action));
  PULSE_RETURN_IF_ERROR(a.OptBool("done", &done));
  PULSE_RETURN_IF_ERROR(a.OptString("note", &note));
  PULSE_ASSIGN_OR_RETURN(std::vector<HousekeepingRequest> running, ListHousekeeping(*ctx.db, "running", 1));
  if (running.empty()) return Status::Refused("record_housekeeping: no housekeeping request is running");
  const HousekeepingRequest& r = running.front();
  if (std::find(r.actions.begin(), r.actions.end(), action) == r.actions.end()) {
    return a.Error("action", "\"" + action + "\" was not asked for this run (asked: " + json(r.actions).dump() + ")");
  }
  if (done) {
    PULSE_RETURN_IF_ERROR(RecordHousekeepingDone(*ctx.db, action, r.source_hash, r.run_id, note, ctx.env->NowSeconds()));
  }
  return json{{"recorded", true}, {"action", action}, {"done", done}, {"run_id", r.run_id},
              {"source_hash", r.source_hash}};
}

}  // namespace

Result<json> ExecuteReviewTool(ApiContext& ctx, const std::string& session, const std::string& name, const Args& a) {
  if (name == "record_workflow_review") return RecordWorkflowReview(ctx, session, a);
  if (name == "record_housekeeping") return RecordHousekeepingTool(ctx, session, a);
  return Status::NotFound("\"" + name + "\" is not a review or housekeeping tool");
}

}  // namespace pulse

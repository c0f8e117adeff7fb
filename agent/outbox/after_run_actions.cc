#include "agent/outbox/after_run_actions.h"

#include <algorithm>

#include "agent/outbox/outbox.h"
#include "core/workflow/after_run.h"

namespace pulse {

using nlohmann::json;

namespace {

Result<json> Notify(ApiContext& ctx, const RunRecord& run, const AfterRun& options) {
  if (!options.notify) return json{{"state", "off"}};
  PULSE_ASSIGN_OR_RETURN(std::string previous, PreviousRunStatus(*ctx.db, run.run_id, run.finished_at));
  RunNotice n = DecideRunNotice(ctx.workflow, run.run_id, run.status, previous, run.error, run.route);
  RunSummaryRecord rec;
  rec.run_id = run.run_id;
  rec.status = run.status;
  rec.to_channels = n.to_channels;
  rec.why = n.why;
  rec.text = n.text;
  rec.at = ctx.env->NowSeconds();
  if (n.to_channels) {
    OutboxMessage m;
    m.kind = "run_summary";
    m.title = n.title;
    m.text = n.text;
    m.payload = {{"run_id", run.run_id}, {"status", run.status}, {"previous_status", previous}, {"why", n.why}};
    PULSE_ASSIGN_OR_RETURN(int64_t id, AddOutboxMessage(*ctx.db, m, rec.at));
    rec.outbox_id = id;
  }
  PULSE_RETURN_IF_ERROR(RecordRunSummary(*ctx.db, rec).status());
  json out = {{"state", n.to_channels ? "channels" : "dashboard"}, {"why", n.why}, {"text", n.text}};
  if (rec.outbox_id) out["outbox_id"] = *rec.outbox_id;
  return out;
}

}  // namespace

Result<json> CarryOutAfterRun(ApiContext& ctx, const RunRecord& run) {
  if (!ctx.db || !ctx.env || ctx.workflow_dir.empty()) {
    return Status::InvalidArgument("after-run options: need the workflow folder and database");
  }
  AppliedAfterRun applied = AfterRunForTrigger(ctx.config, run.trigger);
  json out = {{"source", applied.source}, {"options", AfterRunToJson(applied.options)}};
  PULSE_ASSIGN_OR_RETURN(std::optional<RunSummaryRecord> before, LoadRunSummary(*ctx.db, run.run_id));
  PULSE_ASSIGN_OR_RETURN(std::vector<HousekeepingRequest> requests, ListHousekeeping(*ctx.db, "", 1000));
  bool requested_before = false;
  for (const HousekeepingRequest& r : requests) requested_before = requested_before || r.run_id == run.run_id;
  if (before || requested_before) {
    out["already"] = true;
    if (before) out["notify"] = before->ToJson();
    return out;
  }
  Transaction tx(*ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(out["notify"], Notify(ctx, run, applied.options));
  PULSE_ASSIGN_OR_RETURN(std::string hash, WorkflowSourceHash(*ctx.env, ctx.workflow_dir));
  HousekeepingRequest req;
  req.run_id = run.run_id;
  req.source_hash = hash;
  for (auto [action, on] : {std::pair<const char*, bool>{"backup", applied.options.backup},
                            {"publish", applied.options.publish}}) {
    if (!on) {
      out[action] = {{"state", "off"}};
      continue;
    }
    if (run.status != "completed") {
      out[action] = {{"state", "skipped"}, {"why", "the run did not complete"}};
      continue;
    }
    PULSE_ASSIGN_OR_RETURN(std::string last, LastHousekeepingHash(*ctx.db, action));
    if (last == hash) {
      out[action] = {{"state", "skipped"}, {"why", std::string("the source is unchanged since the last ") + action}};
      continue;
    }
    // One housekeeping turn per source: a run with the same source does not
    // ask again while (or after) one was asked for it.
    const HousekeepingRequest* asked = nullptr;
    for (const HousekeepingRequest& r : requests) {
      bool has = std::find(r.actions.begin(), r.actions.end(), action) != r.actions.end();
      if (has && r.source_hash == hash && r.state != "failed") asked = &r;
    }
    if (asked) {
      out[action] = {{"state", "skipped"},
                     {"why", "already asked for this source (run " + asked->run_id + ", " + asked->state + ")"}};
      continue;
    }
    req.actions.push_back(action);
    out[action] = {{"state", "requested"}, {"why", last.empty() ? "never done" : "the source changed"}};
  }
  if (!req.actions.empty()) {
    PULSE_ASSIGN_OR_RETURN(int64_t id, RequestHousekeeping(*ctx.db, req, ctx.env->NowSeconds()));
    out["housekeeping_request"] = id;
  }
  out["source_hash"] = hash;
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return out;
}

}  // namespace pulse

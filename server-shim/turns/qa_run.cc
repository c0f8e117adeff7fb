// QA owned by Pulse, on the turn threads and the tick: the failed-run safety
// net's run_failed turn and the QA fix run a request starts. The rules (which
// runs are new failures, whether one threatens the goal, what a fix run's
// result is) are in core/conversation/run_failures.h and agent/turns/pulse_qa.h; this file
// starts, runs and records.
#include <spdlog/spdlog.h>

#include "agent/turns/pulse_conversation.h"
#include "agent/turns/pulse_qa.h"
#include "core/conversation/conversation.h"
#include "core/facts/fact_snapshot.h"
#include "core/conversation/pulse_requests.h"
#include "core/conversation/run_failures.h"
#include "core/base/time_util.h"
#include "server-shim/serve.h"
#include "core/base/text.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

// The result line goes into Pulse's conversation, so the next turn there
// reads it with everything else.
void TellConversation(ApiContext& ctx, const std::string& line) {
  if (!ctx.config.HasGoal()) return;
  Conversation c(*ctx.db, ctx.workflow);
  const int64_t now = ctx.env->NowSeconds();
  Result<Generation> g = c.Ensure(ConversationCharter(ctx.workflow), now);
  Status s = g.ok() ? c.AppendNote("qa_result", line, now) : g.status();
  if (!s.ok()) spdlog::warn("{}: QA result not written to the conversation: {}", ctx.workflow, s.message());
}

}  // namespace

Result<json> TurnManager::RunQaFix(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request) {
  ApiContext& ctx = oc.ctx;
  json q = JGet(request.input, "qa_request", json::object());
  PulseRequest req;
  req.id = q.value("id", int64_t{0});
  req.what = q.value("what", "");
  Result<json> out = Status::Internal("the fix run did not run");
  try {
    out = RunTurn(oc, ticket, request, json());
  } catch (const std::exception& e) {
    out = Status::Internal(std::string("internal error in the fix run: ") + e.what());
  }
  std::string reply = out.ok() ? JStr(*out, "result") : "";
  std::string error = out.ok() ? JStr(*out, "error") : out.status().message();
  QaResult r = QaResultFromRunner(reply, error);
  r.pulse_run_id = ticket.pulse_run_id;
  r.finished_at = FormatTime(env_->NowSeconds());
  Status stored = FinishQaRequest(*ctx.db, req.id, r);
  if (!stored.ok()) spdlog::warn("{}: QA request {}: result not stored: {}", ctx.workflow, req.id, stored.message());
  const std::string line = QaResultLine(req, r);
  TellConversation(ctx, line);
  json result = {{"result", line}, {"qa_result", r.ToJson()}, {"request_id", req.id}};
  if (r.status == "failed") result["error"] = "QA fix run for request " + std::to_string(req.id) + " failed: " + r.reason;
  return result;
}

Result<json> TurnManager::RunFailedTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request) {
  ApiContext& ctx = oc.ctx;
  PULSE_ASSIGN_OR_RETURN(FailedRunSeen run, FailedRunFromJson(JGet(request.input, "failed_run", json())));
  TurnRequest r = request;
  r.input["turn_note"] = "The failed run: " + DescribeFailedRun(run);
  PULSE_ASSIGN_OR_RETURN(json out, ConversationTurn(oc, ticket, r, "run_failed"));
  if (out.value("not_started", false)) {
    // The conversation was busy with another turn: a later tick wakes Pulse
    // for this run instead.
    (void)ReleaseFailedRun(*ctx.db, run.run_id);
    return out;
  }
  std::string state = JStr(out, "state", "failed");
  std::string said = JStr(out, "error").empty() ? JStr(out, "result") : JStr(out, "error");
  Status s = RecordFailedRunOutcome(*ctx.db, run.run_id, state + ": " + FirstLine(said, 400));
  if (!s.ok()) spdlog::warn("{}: failed run {}: outcome not stored: {}", ctx.workflow, run.run_id, s.message());
  return out;
}

bool StartFailedRunTurn(Env& env, TurnManager& turns, OpenCtx& oc) {
  ApiContext& ctx = oc.ctx;
  if (!ctx.config.pulse_enabled || !ctx.config.HasGoal() || turns.ActiveOn(ctx.workflow)) return false;
  const int64_t now = env.NowSeconds();
  // Run folders nobody finalized (a run that crashed) are runs too.
  if (!ctx.workflow_dir.empty()) (void)SnapshotOutsideFiles(env, *ctx.db, ctx.workflow_dir, now);
  Result<std::vector<FailedRunSeen>> runs = UnseenFailedRuns(*ctx.db, now, 1);
  if (!runs.ok()) {
    spdlog::warn("tick: {}: failed runs: {}", ctx.workflow, runs.status().message());
    return false;
  }
  if (runs->empty()) return false;
  const FailedRunSeen& run = runs->front();
  Result<bool> claimed = ClaimFailedRun(*ctx.db, run, "", now);
  if (!claimed.ok() || !*claimed) return false;
  TurnRequest req;
  req.workflow = ctx.workflow;
  req.kind = "run_failed";
  req.trigger = "tick";
  req.input = {{"failed_run", run.ToJson()}, {"due_reason", "run " + run.run_id + " " + run.status}};
  Result<TurnTicket> t = turns.Submit(req);
  if (!t.ok()) {
    (void)ReleaseFailedRun(*ctx.db, run.run_id);
    spdlog::warn("tick: {}: run_failed turn for {} not started: {}", ctx.workflow, run.run_id, t.status().message());
    return false;
  }
  (void)AttachFailedRunTurn(*ctx.db, run.run_id, t->pulse_run_id);
  spdlog::info("tick: {}: run {} {}: one run_failed turn ({})", ctx.workflow, run.run_id, run.status, t->pulse_run_id);
  return true;
}

bool StartQaFixRun(Env& env, TurnManager& turns, OpenCtx& oc) {
  ApiContext& ctx = oc.ctx;
  if (!ctx.config.pulse_enabled || turns.ActiveOn(ctx.workflow)) return false;
  Result<int64_t> waiting = PendingQaRequestCount(*ctx.db);
  if (!waiting.ok() || *waiting == 0) return false;
  Result<std::optional<PulseRequest>> next = TakeNextQaRequest(*ctx.db, env, "tick");
  if (!next.ok() || !*next) return false;
  const PulseRequest& r = **next;
  TurnRequest req;
  req.workflow = ctx.workflow;
  req.kind = "qa_fix";
  req.trigger = "tick";
  req.input = {{"qa_request", {{"id", r.id}, {"what", r.what}, {"why", r.why}, {"session", r.session}}},
               {"due_reason", "QA request " + std::to_string(r.id)}};
  Result<TurnTicket> t = turns.Submit(req);
  if (!t.ok()) {
    (void)ReleaseQaRequest(*ctx.db, r.id);
    spdlog::warn("tick: {}: QA fix run for request {} not started: {}", ctx.workflow, r.id, t.status().message());
    return false;
  }
  (void)MarkQaRequestTakenBy(*ctx.db, r.id, t->pulse_run_id);
  spdlog::info("tick: {}: QA request {}: fix run {}", ctx.workflow, r.id, t->pulse_run_id);
  return true;
}

}  // namespace pulse::serve

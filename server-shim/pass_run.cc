// A turn in Pulse's conversation, and the full Pulse pass around Goal Work.
// The rules (what a conversation turn is, when a pass is due, the pass's
// order and records) are in core/conversation.h, core/pass.h and
// agent/pulse_conversation.h; this file runs them on the turn threads.
#include <spdlog/spdlog.h>

#include "agent/outbox.h"
#include "agent/pulse_conversation.h"
#include "agent/pulse_tools.h"
#include "agent/pulse_turns.h"
#include "core/decisions.h"
#include "core/pass.h"
#include "core/time_util.h"
#include "server-shim/serve.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

Caller CallerFor(const TurnRequest& request) {
  Result<Caller> c = ParseCaller(JStr(request.input, "caller"));
  if (c.ok()) return *c;
  return request.trigger == "owner" ? Caller::kOwner : Caller::kTick;
}

std::string FirstLine(const std::string& s, size_t cap) {
  std::string line = s.substr(0, s.find('\n'));
  while (!line.empty() && line.back() == '.') line.pop_back();
  return line.size() > cap ? line.substr(0, cap) + "…" : line;
}

}  // namespace

Result<json> TurnManager::ConversationTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                           const std::string& kind_name) {
  PULSE_ASSIGN_OR_RETURN(TurnKind kind, ParseTurnKind(kind_name));
  TurnStart start;
  start.turn = kind_name;
  start.caller = CallerFor(request);
  start.account = JStr(request.input, "account");
  start.text = ConversationTurnText(kind, JStr(request.input, "message"), request.trigger);
  start.pulse_run_id = ticket.pulse_run_id;
  Result<ConversationTurnHandle> h = BeginConversationTurn(oc.ctx, kind, start);
  if (!h.ok()) {
    return json{{"result", ""}, {"error", "not run in Pulse's conversation: " + h.status().message()}};
  }
  TurnTicket t = ticket;
  t.kind = kind_name;
  t.session = h->session.session.id;
  t.token = h->session.token;
  Result<json> out = Status::Internal("the turn did not run");
  try {
    out = RunTurn(oc, t, request, h->ContinuityJson());
  } catch (const std::exception& e) {
    out = Status::Internal(std::string("internal error in the turn: ") + e.what());
  }
  TurnState state = TurnState::kCompleted;
  std::string reply, error;
  if (!out.ok()) {
    state = TurnState::kFailed;
    error = out.status().message();
  } else {
    reply = JStr(*out, "result");
    error = JStr(*out, "error");
    if (!error.empty()) state = JStr(*out, "state") == "interrupted" ? TurnState::kInterrupted : TurnState::kFailed;
  }
  Status ended = EndConversationTurn(oc.ctx, h->turn.id, state, reply, error);
  if (!ended.ok()) spdlog::warn("{}: conversation turn {}: {}", ticket.workflow, h->turn.id, ended.message());
  json result = out.ok() ? *out : json{{"result", ""}, {"error", error}};
  result["turn_id"] = h->turn.id;
  result["state"] = TurnStateName(state);
  return result;
}

namespace {

// Gate: code decides whether Goal Work may act or only report; a goal
// workflow's pass has no Architecture or Technical turn.
PassStep GateStep(const ApiContext& ctx, const PassRecord& pass, const TurnRequest& request, TurnRequest* work) {
  *work = request;
  work->kind = "goal_work";
  work->input["report_only"] = ctx.config.AllSchedulesPaused();
  work->input["pass_id"] = pass.id;
  return PassStep{"gate", "completed",
                  std::string("goal workflow: Goal Work in Pulse's conversation, then Finalize; no Architecture or "
                              "Technical turn") +
                      (ctx.config.AllSchedulesPaused() ? "; schedules paused: report only" : ""),
                  0};
}

PassStep GoalWorkStep(const Result<json>& worked) {
  PassStep gw{"goal_work", "failed", "", 0};
  if (!worked.ok()) {
    gw.detail = worked.status().message();
    return gw;
  }
  gw.turn_id = worked->value("turn_id", int64_t{0});
  gw.state = JStr(*worked, "state", "failed");
  gw.detail = JStr(*worked, "error").empty() ? FirstLine(JStr(*worked, "result"), 300) : JStr(*worked, "error");
  return gw;
}

// Finalize: the pass's Pulse summary, leading with the goal status, to the outbox.
PassStep FinalizeStep(ApiContext& ctx, Env& env, PassRecord* pass, const std::string& trigger,
                      const std::string& run_id) {
  Result<GoalCheck> check = RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, env.NowSeconds(), false);
  std::string head = check.ok() ? GoalStatusLine(*check, ctx.workflow)
                                : PulseName(ctx.workflow) + ": goal status unknown (" + check.status().message() + ")";
  pass->goal_status = check.ok() ? GoalStatusName(check->status) : "";
  std::string text = head + ".\nPass " + std::to_string(pass->id) + " (" + pass->kind + ", " + trigger + "):";
  for (const PassStep& s : pass->steps) {
    if (s.step == "gate") continue;
    text += " " + s.step + " " + s.state + (s.detail.empty() ? "" : ": " + s.detail) + ".";
  }
  Result<std::vector<Decision>> pending = PendingDecisions(*ctx.db);
  if (pending.ok()) text += "\nDecisions waiting on you: " + std::to_string(pending->size()) + ".";
  pass->summary = text;
  OutboxMessage m;
  m.kind = "pulse_summary";
  m.title = head;
  m.text = text;
  m.payload = {{"pass_id", pass->id}};
  m.pulse_run_id = run_id;
  Result<int64_t> sent = AddOutboxMessage(*ctx.db, m, env.NowSeconds());
  return PassStep{"finalize", sent.ok() ? "completed" : "failed",
                  sent.ok() ? "summary sent (outbox " + std::to_string(*sent) + ")" : sent.status().message(), 0};
}

}  // namespace

// The steps run in PassOrder(); a step this file does not know is recorded
// as skipped, so a longer order shows in every pass record at once.
Result<json> TurnManager::RunPass(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request) {
  ApiContext& ctx = oc.ctx;
  std::string kind = JStr(request.input, "pass_kind", "full");
  PULSE_ASSIGN_OR_RETURN(PassRecord pass, StartPass(*ctx.db, *env_, kind, request.trigger));
  TurnRequest work;
  std::string failed;
  for (const std::string& step : PassOrder()) {
    PassStep done{step, "skipped", "no such step for a goal workflow", 0};
    if (step == "gate") {
      done = GateStep(ctx, pass, request, &work);
    } else if (step == "goal_work") {
      // Goal Work in the conversation, beginning with the goal check.
      done = GoalWorkStep(ConversationTurn(oc, ticket, work, "goal_work"));
    } else if (step == "finalize") {
      done = FinalizeStep(ctx, *env_, &pass, request.trigger, ticket.pulse_run_id);
    }
    if (done.state == "failed" && failed.empty()) failed = step + ": " + done.detail;
    pass.steps.push_back(done);
  }
  pass.state = failed.empty() ? "completed" : "failed";
  PULSE_RETURN_IF_ERROR(FinishPass(*ctx.db, pass, env_->NowSeconds()));
  json out = {{"result", pass.summary}, {"pass", pass.ToJson()}};
  if (!failed.empty()) out["error"] = "pass " + std::to_string(pass.id) + ": " + failed;
  return out;
}

}  // namespace pulse::serve

// A turn in Pulse's conversation, and the full Pulse pass around Goal Work.
// The rules (what a conversation turn is, when a pass is due, the pass's
// order and records) are in core/conversation.h, core/pass.h and
// agent/pulse_conversation.h; this file runs them on the turn threads.
#include <spdlog/spdlog.h>

#include "agent/outbox.h"
#include "agent/pulse_asks.h"
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
  const json ask = JGet(request.input, "ask", json());
  if (ask.is_object()) {
    // A round of an ask thread: its text says who asks and which round.
    start.text = AskTurnText(ask, JStr(request.input, "message"));
    start.thread_id = JStr(ask, "thread_id");
    start.round = ask.value("round", 0);
  } else {
    start.text = ConversationTurnText(kind, JStr(request.input, "message"), request.trigger);
  }
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

Result<json> TurnManager::RunPass(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request) {
  ApiContext& ctx = oc.ctx;
  std::string kind = JStr(request.input, "pass_kind", "full");
  PULSE_ASSIGN_OR_RETURN(PassRecord pass, StartPass(*ctx.db, kind, request.trigger, env_->NowSeconds()));
  // Gate: code decides whether Goal Work may act or only report; a goal
  // workflow's pass has no Architecture or Technical turn.
  TurnRequest work = request;
  work.kind = "goal_work";
  work.input["report_only"] = ctx.config.AllSchedulesPaused();
  work.input["pass_id"] = pass.id;
  pass.steps.push_back(PassStep{"gate", "completed",
                                std::string("goal workflow: Goal Work in Pulse's conversation, then Finalize; no "
                                            "Architecture or Technical turn") +
                                    (ctx.config.AllSchedulesPaused() ? "; schedules paused: report only" : ""),
                                0});
  // Goal Work in the conversation, beginning with the goal check.
  Result<json> worked = ConversationTurn(oc, ticket, work, "goal_work");
  PassStep gw{"goal_work", "failed", "", 0};
  if (worked.ok()) {
    gw.turn_id = worked->value("turn_id", int64_t{0});
    gw.state = JStr(*worked, "state", "failed");
    gw.detail = JStr(*worked, "error").empty() ? FirstLine(JStr(*worked, "result"), 300) : JStr(*worked, "error");
  } else {
    gw.detail = worked.status().message();
  }
  pass.steps.push_back(gw);
  // Finalize: the pass's Pulse summary leads with the goal status.
  Result<GoalCheck> check = RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, env_->NowSeconds(), false);
  std::string head = check.ok() ? GoalStatusLine(*check, ctx.workflow) : PulseName(ctx.workflow) + ": goal status unknown (" + check.status().message() + ")";
  pass.goal_status = check.ok() ? GoalStatusName(check->status) : "";
  Result<std::vector<Decision>> pending = PendingDecisions(*ctx.db);
  std::string text = head + ".\nPass " + std::to_string(pass.id) + " (" + kind + ", " + request.trigger +
                     "): Goal Work " + gw.state + (gw.detail.empty() ? "" : ": " + gw.detail) + ".";
  if (pending.ok()) text += "\nDecisions waiting on you: " + std::to_string(pending->size()) + ".";
  pass.summary = text;
  OutboxMessage m;
  m.kind = "pulse_summary";
  m.title = head;
  m.text = text;
  m.payload = {{"pass_id", pass.id}};
  m.pulse_run_id = ticket.pulse_run_id;
  Result<int64_t> sent = AddOutboxMessage(*ctx.db, m, env_->NowSeconds());
  pass.steps.push_back(PassStep{"finalize", sent.ok() ? "completed" : "failed",
                                sent.ok() ? "summary sent (outbox " + std::to_string(*sent) + ")" : sent.status().message(),
                                0});
  pass.state = gw.state == "completed" && sent.ok() ? "completed" : "failed";
  PULSE_RETURN_IF_ERROR(FinishPass(*ctx.db, pass, env_->NowSeconds()));
  json out = {{"result", text}, {"pass", pass.ToJson()}};
  if (pass.state != "completed") out["error"] = "pass " + std::to_string(pass.id) + ": " + gw.detail;
  return out;
}

}  // namespace pulse::serve

// A turn in Pulse's conversation, and the full Pulse pass: Gate, Goal Work in
// the conversation, Finalize for a workflow with a goal; Gate, Goal Work,
// Architecture, Technical, Finalize without one.
// The rules (what a conversation turn is, when a pass is due, the pass's
// order and records) are in core/conversation/conversation.h, core/conversation/pass.h and
// agent/turns/pulse_conversation.h; this file runs them on the turn threads.
#include <spdlog/spdlog.h>

#include "agent/outbox/outbox.h"
#include "agent/turns/pulse_asks.h"
#include "agent/turns/pulse_conversation.h"
#include "agent/turns/pulse_qa.h"
#include "agent/tools/pulse_tools.h"
#include "agent/turns/pulse_turns.h"
#include "core/decisions/decisions.h"
#include "core/conversation/pass.h"
#include "core/conversation/pass_worklist.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"
#include "server-shim/serve.h"
#include "core/base/text.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

Caller CallerFor(const TurnRequest& request) {
  Result<Caller> c = ParseCaller(JStr(request.input, "caller"));
  if (c.ok()) return *c;
  return request.trigger == "owner" ? Caller::kOwner : Caller::kTick;
}

// The first line without its closing full stops, cut to `cap`.
std::string Headline(const std::string& s, size_t cap) {
  std::string line = FirstLine(s);
  while (!line.empty() && line.back() == '.') line.pop_back();
  return FirstLine(line, cap);
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
    start.text = ConversationTurnText(kind, JStr(request.input, "message"), request.trigger, CallerName(start.caller),
                                      start.account);
    // What this turn is about beyond its kind's instruction (a failed run, the
    // pass's Gate note).
    const std::string note = JStr(request.input, "turn_note");
    if (!note.empty()) start.text = std::string(Utf8Prefix(start.text + "\n\n" + note, kMaxTurnTextBytes));
  }
  start.pulse_run_id = ticket.pulse_run_id;
  Result<ConversationTurnHandle> h = BeginConversationTurn(oc.ctx, kind, start);
  if (!h.ok()) {
    return json{{"result", ""}, {"error", "not run in Pulse's conversation: " + h.status().message()}, {"not_started", true}};
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

// Gate: code decides whether Goal Work may act or only report, and writes
// the pass's worklist (pulse_pass_worklist). For a workflow with a goal,
// Architecture and Technical are not due (its Pulse owns them), and a row a
// rule still made due is closed as skipped by code here, right after Gate.
PassStep GateStep(ApiContext& ctx, const PassRecord& pass, const TurnRequest& request, int64_t now, TurnRequest* work) {
  const bool has_goal = ctx.config.HasGoal();
  *work = request;
  work->kind = "goal_work";
  work->input["report_only"] = ctx.config.AllSchedulesPaused();
  work->input["pass_id"] = pass.id;
  if (has_goal) {
    work->input["turn_note"] = "This pass has no Architecture or Technical turn: architecture is your skill here "
                               "(goal-lead-architecture.md), and QA runs only when you ask for it "
                               "(record_pulse_qa_request).";
  }
  PassStep gate{"gate", "completed", "", 0};
  gate.detail = has_goal ? "goal workflow: Goal Work in Pulse's conversation, then Finalize; no Architecture or "
                           "Technical turn (worklist: architecture not due, technical not due)"
                         : "no goal: Goal Work, Architecture and Technical, each in its own session, then Finalize";
  if (ctx.config.AllSchedulesPaused()) gate.detail += "; schedules paused: report only";
  Result<std::vector<WorklistRow>> rows = WriteGateWorklist(*ctx.db, pass.id, has_goal, now);
  if (!rows.ok()) {
    gate.state = "failed";
    gate.detail += "; worklist not stored: " + rows.status().message();
    return gate;
  }
  if (!has_goal) return gate;
  Result<std::vector<WorklistRow>> closed = CloseOwnedModules(*ctx.db, pass.id, now);
  if (!closed.ok()) {
    gate.detail += "; closing owned modules: " + closed.status().message();
    return gate;
  }
  for (const WorklistRow& r : *closed) gate.detail += "; " + r.module + " closed as skipped (" + r.reason + ")";
  return gate;
}

// A module's step from its turn's result (Goal Work, Architecture, Technical).
PassStep ModuleStep(const std::string& module, const Result<json>& out) {
  PassStep st{module, "failed", "", 0};
  if (!out.ok()) {
    st.detail = out.status().message();
    return st;
  }
  st.turn_id = out->value("turn_id", int64_t{0});
  const std::string error = JStr(*out, "error");
  if (error.empty()) {
    st.state = "completed";
    st.detail = Headline(JStr(*out, "result"), 300);
  } else {
    st.state = JStr(*out, "state") == "interrupted" ? "interrupted" : "failed";
    st.detail = error;
  }
  return st;
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

Result<json> TurnManager::ModuleTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                     const std::string& module) {
  const TurnKind kind = module == "technical" ? TurnKind::kQaFix : TurnKind::kGoalWork;
  TurnTicket t = ticket;
  t.kind = TurnKindName(kind);
  const bool own_session = module != "goal_work";  // Goal Work runs in the pass's session
  if (own_session) {
    PULSE_ASSIGN_OR_RETURN(OpenedSession s,
                           OpenToolSession(*oc.ctx.db, oc.ctx.workflow, kind, "", env_->NowSeconds()));
    t.session = s.session.id;
    t.token = s.token;
  }
  TurnRequest r = request;
  r.kind = t.kind;
  r.input["module"] = module;
  Result<json> out = Status::Internal("the turn did not run");
  try {
    out = RunTurn(oc, t, r, json());
  } catch (const std::exception& e) {
    out = Status::Internal(std::string("internal error in the turn: ") + e.what());
  }
  if (own_session) (void)CloseToolSession(*oc.ctx.db, t.session, env_->NowSeconds());
  if (out.ok() && module == "technical") {
    // The fix run's JSON result, read as a QA fix run's is.
    QaResult res = QaResultFromRunner(JStr(*out, "result"), JStr(*out, "error"));
    const std::string line = res.status + (res.technical_review.empty() ? "" : ": " + res.technical_review);
    json shaped = {{"result", line}};
    if (res.status == "failed") shaped["error"] = res.reason.empty() ? line : res.reason;
    return shaped;
  }
  return out;
}

// The steps run in PassOrderFor(has goal); each module's end is recorded in
// the worklist (a failed one is due by recovery next time).
Result<json> TurnManager::RunPass(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request) {
  ApiContext& ctx = oc.ctx;
  const bool has_goal = ctx.config.HasGoal();
  std::string kind = JStr(request.input, "pass_kind", "full");
  PULSE_ASSIGN_OR_RETURN(PassRecord pass, StartPass(*ctx.db, *env_, kind, request.trigger));
  TurnRequest work;
  std::string failed;
  for (const std::string& step : PassOrderFor(has_goal)) {
    PassStep done{step, "skipped", "no such step", 0};
    if (step == "gate") {
      done = GateStep(ctx, pass, request, env_->NowSeconds(), &work);
    } else if (step == "finalize") {
      done = FinalizeStep(ctx, *env_, &pass, request.trigger, ticket.pulse_run_id);
    } else {
      // Goal Work in the conversation (beginning with the goal check) for a
      // goal workflow; each module in its own session without a goal.
      done = ModuleStep(step, has_goal ? ConversationTurn(oc, ticket, work, "goal_work")
                                       : ModuleTurn(oc, ticket, work, step));
      Status fin = FinishModule(*ctx.db, pass.id, step, done.state == "completed", done.detail, env_->NowSeconds());
      if (!fin.ok()) spdlog::warn("{}: pass {}: worklist {}: {}", ctx.workflow, pass.id, step, fin.message());
    }
    if (done.state != "completed" && failed.empty()) failed = step + ": " + done.detail;
    pass.steps.push_back(done);
  }
  pass.state = failed.empty() ? "completed" : "failed";
  PULSE_RETURN_IF_ERROR(FinishPass(*ctx.db, pass, env_->NowSeconds()));
  json out = {{"result", pass.summary}, {"pass", pass.ToJson()}};
  if (!failed.empty()) out["error"] = "pass " + std::to_string(pass.id) + ": " + failed;
  return out;
}

}  // namespace pulse::serve

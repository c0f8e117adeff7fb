// ask_pulse's waiting: the round's turn runs on the turn threads like every
// Pulse turn; the caller's request waits for its answer here, bounded by
// the call's wait_seconds (agent/turns/pulse_asks.h and core/asks/asks.h hold the rules);
// and the owner's answer followed by its apply message.
#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

#include "server-shim/serve.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

// The round's turn on the turn threads; a turn that cannot start ends the
// ask failed (the round was counted; its thread stays open for another try).
void SubmitAskTurn(TurnManager& turns, ApiContext& ctx, const AskStart& start, const std::string& trigger) {
  TurnRequest t;
  t.workflow = ctx.workflow;
  t.kind = "ask_pulse";
  t.trigger = trigger;
  t.input = start.turn_input;
  Result<TurnTicket> ticket = turns.Submit(t);
  if (ticket.ok()) return;
  Status s = Asks(*ctx.db, ctx.workflow)
                 .FinishAsk(start.record.call_id, "failed", "", "not started: " + ticket.status().message(),
                            json::object(), ctx.env->NowSeconds());
  if (!s.ok()) spdlog::warn("{}: ask {}: {}", ctx.workflow, start.record.call_id, s.message());
}

}  // namespace

int StartQueuedAsks(TurnManager& turns, ApiContext& ctx) {
  int started = 0;
  // Bounded by the cap: at most kAsksPerHour slots can free at once.
  for (int i = 0; i < kAsksPerHour; ++i) {
    Result<std::optional<AskStart>> next = StartNextQueuedAsk(ctx);
    if (!next.ok()) {
      spdlog::warn("tick: {}: queued asks: {}", ctx.workflow, next.status().message());
      break;
    }
    if (!*next) break;
    spdlog::info("tick: {}: ask {} leaves the queue (its slot freed)", ctx.workflow, (*next)->record.call_id);
    SubmitAskTurn(turns, ctx, **next, "ask_queue");
    ++started;
  }
  return started;
}

Result<json> AskAndWait(TurnManager& turns, ApiContext& ctx, const AskCall& call, bool drain) {
  PULSE_ASSIGN_OR_RETURN(AskStart start, BeginAskPulse(ctx, call));
  const std::string call_id = start.record.call_id;
  Asks asks(*ctx.db, ctx.workflow);
  if (start.start_turn) SubmitAskTurn(turns, ctx, start, "ask");
  if (drain) {
    turns.Drain();
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(call.wait_seconds);
    for (;;) {
      PULSE_ASSIGN_OR_RETURN(AskRecord r, asks.Get(call_id));
      if (r.finished() || r.status == "queued" || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
    }
  }
  PULSE_ASSIGN_OR_RETURN(AskRecord r, asks.Get(call_id));
  return r.ToJson();
}

Result<json> AnswerWithApply(ApiContext& ctx, const json& args) {
  PULSE_ASSIGN_OR_RETURN(json doc, CallApi(ctx, "decision.answer", args));
  if (!JBool(args, "dismiss") && doc.contains("id") && doc["id"].is_number_integer()) {
    Result<ApplyOutcome> applied = SendApplyMessage(ctx, doc["id"].get<int64_t>());
    doc["apply"] = applied.ok() ? applied->ToJson() : json{{"sent", false}, {"reason", applied.status().message()}};
  }
  return doc;
}

}  // namespace pulse::serve

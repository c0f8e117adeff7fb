// ask_pulse as a turn of Pulse's conversation (agent/turns/pulse_asks.h).
#include "agent/turns/pulse_asks.h"

#include <atomic>

#include "agent/tools/pulse_tools.h"
#include "agent/turns/pulse_turns.h"
#include "core/conversation/conversation.h"
#include "core/facts/fact_snapshot.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

std::atomic<const BuilderChannel*> g_builder{nullptr};
std::atomic<const AskPulseWaiter*> g_ask_waiter{nullptr};

const char* kRelayPart =
    "This ask comes from the owner's own Builder chat: an owner relay, the owner's voice. Lasting direction (a "
    "preference, a rule, a choice) goes to goal memory with record_pulse_goal_memory(action=\"add\", section "
    "\"owner\", source \"owner answer\"); time-boxed "
    "direction (\"this month, focus on ...\") becomes a proposed focus area with record_pulse_focus_area(action="
    "\"propose\", title, end_date, check); a change of the goal itself becomes a proposed soul.md edit in a decision "
    "request: you never edit soul.md yourself.";

const char* kRecommendPart =
    "It only asks for your recommendation: it is not the owner's voice, so record no owner direction from it.";

std::string CallerWords(const std::string& caller) {
  if (caller == "builder") return "a Builder chat";
  if (caller == "run") return "a Run chat";
  if (caller == "step") return "a workflow step";
  if (caller == "bot") return "a bot channel";
  return caller;
}

// Who asks, the round, and the decision lines every ask turn ends with.
std::string AskInstruction(const json& ask) {
  const std::string caller = JStr(ask, "caller");
  const bool relay = JBool(ask, "owner_relay");
  const std::string thread = JStr(ask, "thread_id");
  const int round = ask.value("round", 1);
  std::string s = "This is an ask_pulse turn: " + CallerWords(caller) + " (" + JStr(ask, "session") +
                  (JStr(ask, "account").empty() ? "" : ", account " + JStr(ask, "account")) +
                  ") asks you, the goal expert. " + (relay ? kRelayPart : kRecommendPart) +
                  " This is round " + std::to_string(round) + " of at most " + std::to_string(kThreadMaxRounds) +
                  " of thread " + thread +
                  ": answer as the next step of the thread, from the facts (get_pulse_state), framed as your "
                  "recommendation. End your reply with the decision lines, each on its own line: either \"question: "
                  "<the one fact you need from the caller>\" (the thread stays open for the answer) or \"decision: "
                  "<what to do> because <why>\"; then \"owner_needed: yes|no (why)\" — yes only when it is beyond "
                  "your levels, a preference only the owner knows, spending, irreversible, or soul.md. A reply "
                  "without them is taken as a question, never as a decision. Ask only in your reply: never call "
                  "the chat back with a tool. When the owner approves something you recommended: at "
                  "pulse.autonomy.change=auto the chat passes you the go-ahead and you make the change yourself and "
                  "report it; at change=ask the chat makes it and tells you \"done: ...\", and you record the "
                  "outcome (record_pulse_decision_outcome for a decision, else a result line in goal memory).";
  if (round >= kThreadMaxRounds) s += " This is the thread's last round: decide now.";
  return s;
}

// The turn's input for one round: {message, caller, account?, ask: {...}}.
json AskTurnInput(const AskRecord& r) {
  json ask = {{"call_id", r.call_id}, {"thread_id", r.thread_id}, {"round", r.round},
              {"caller", r.caller},   {"session", r.session},     {"owner_relay", r.owner_relay}};
  if (!r.account.empty()) ask["account"] = r.account;
  json input = {{"message", r.message}, {"caller", r.owner_relay ? "owner" : r.caller}, {"ask", ask}};
  if (!r.account.empty()) input["account"] = r.account;
  return input;
}

}  // namespace

void SetBuilderChannel(const BuilderChannel* channel) { g_builder.store(channel); }
const BuilderChannel* CurrentBuilderChannel() { return g_builder.load(); }
void SetAskPulseWaiter(const AskPulseWaiter* waiter) { g_ask_waiter.store(waiter); }

Result<json> AskPulseTool(ApiContext& ctx, const ToolSession& session, const json& args) {
  if (!args.is_object()) return Status::InvalidArgument("ask_pulse: arguments must be a JSON object");
  const std::string root = session.root.empty() ? session.id : session.root;
  if (root != session.id) {
    // A step one of Pulse's turns (or a Builder turn it started) opened is
    // part of that turn: Pulse never asks itself, and never gets asked back.
    PULSE_ASSIGN_OR_RETURN(ToolSession top, LoadToolSession(*ctx.db, root));
    if (top.turn != TurnKind::kWorkflowStep) {
      return Status::Refused("ask_pulse: session " + session.id + " is a step of a " + TurnKindName(top.turn) +
                             " turn (" + root + "); Pulse never asks itself, and a turn it started never asks back");
    }
  }
  json call = {{"caller", "step"}, {"session", root}};
  for (const char* key : {"message", "thread_id", "thread", "call_id", "wait_seconds"}) {
    if (args.contains(key)) call[key] = args[key];
  }
  // Callers also write "question" for "message": both are taken.
  if (!call.contains("message") && args.contains("question")) call["message"] = args["question"];
  PULSE_ASSIGN_OR_RETURN(AskCall ask, ReadAskCall(Args("ask_pulse", call)));
  const AskPulseWaiter* waiter = g_ask_waiter.load();
  if (!waiter || !*waiter) {
    return Status::Refused("ask_pulse: this process runs no Pulse turns; call it through `pulse serve` (the session "
                           "tool route or MCP), or ask with `pulse ask --caller step`");
  }
  return (*waiter)(ctx, ask);
}

Result<AskCall> ReadAskCall(const Args& a) {
  AskCall c;
  PULSE_RETURN_IF_ERROR(a.Text("caller", &c.ask.caller));
  PULSE_RETURN_IF_ERROR(a.Text("session", &c.ask.session));
  PULSE_RETURN_IF_ERROR(a.OptString("account", &c.ask.account));
  PULSE_RETURN_IF_ERROR(a.OptString("call_id", &c.call_id));
  if (c.call_id.empty()) {
    PULSE_RETURN_IF_ERROR(a.Text("message", &c.ask.message));
  } else {
    PULSE_RETURN_IF_ERROR(a.OptString("message", &c.ask.message));
  }
  PULSE_RETURN_IF_ERROR(a.OptString("thread_id", &c.ask.thread_id));
  if (c.ask.thread_id.empty()) PULSE_RETURN_IF_ERROR(a.OptString("thread", &c.ask.thread_id));
  PULSE_RETURN_IF_ERROR(a.OptInt("wait_seconds", 0, kAskWaitMax, &c.wait_seconds));
  if (c.ask.caller != "builder" && c.ask.caller != "run" && c.ask.caller != "step" && c.ask.caller != "bot") {
    return a.Error("caller", "must be builder, run, step or bot, not \"" + c.ask.caller + "\"");
  }
  // Pulse never asks itself: its own sessions are not callers.
  if (c.ask.session.rfind("schedule-goallead--", 0) == 0) {
    return Status::Refused(a.where() + ": \"session\" " + c.ask.session + " is Pulse's own; Pulse never asks itself");
  }
  return c;
}

Result<AskStart> BeginAskPulse(ApiContext& ctx, const AskCall& call) {
  Asks asks(*ctx.db, ctx.workflow);
  const int64_t now = ctx.env->NowSeconds();
  AskStart out;
  if (!call.call_id.empty()) {
    PULSE_ASSIGN_OR_RETURN(out.record, asks.Load(call.call_id, call.ask.session));
    PULSE_ASSIGN_OR_RETURN(out.start_turn, asks.StartIfSlotFree(call.call_id, now));
    if (out.start_turn) {
      PULSE_ASSIGN_OR_RETURN(out.record, asks.Get(call.call_id));
    }
  } else {
    NewAskPulse ask = call.ask;
    if (!ctx.workflow_dir.empty()) (void)SnapshotChatsFile(*ctx.env, *ctx.db, ctx.workflow_dir, now);
    PULSE_ASSIGN_OR_RETURN(std::vector<ChatRow> chats, ReadChats(*ctx.db));
    ask.owner_relay = IsOwnerRelay(chats, ctx.config, ask.caller, ask.session, ask.account);
    PULSE_ASSIGN_OR_RETURN(out.record, asks.OpenAskPulse(ask, now));
    out.start_turn = out.record.status == "running";
  }
  if (out.start_turn) out.turn_input = AskTurnInput(out.record);
  return out;
}

Result<std::optional<AskStart>> StartNextQueuedAsk(ApiContext& ctx) {
  Asks asks(*ctx.db, ctx.workflow);
  PULSE_ASSIGN_OR_RETURN(std::string call_id, asks.OldestQueued(AskDirection::kToPulse));
  if (call_id.empty()) return std::optional<AskStart>();
  PULSE_ASSIGN_OR_RETURN(bool started, asks.StartIfSlotFree(call_id, ctx.env->NowSeconds()));
  if (!started) return std::optional<AskStart>();
  AskStart out;
  PULSE_ASSIGN_OR_RETURN(out.record, asks.Get(call_id));
  out.start_turn = true;
  out.turn_input = AskTurnInput(out.record);
  return std::optional<AskStart>(std::move(out));
}

std::string AskTurnText(const json& ask, const std::string& message) {
  std::string head = "PULSE TURN ask_pulse (round " + std::to_string(ask.value("round", 1)) + " of at most " +
                     std::to_string(kThreadMaxRounds) + " of thread " + JStr(ask, "thread_id") + ")";
  std::string who = JBool(ask, "owner_relay") ? "The owner wrote in their Builder chat" :
                    "The " + CallerWords(JStr(ask, "caller")).substr(2) + " wrote";
  std::string text = head + "\n" + AskInstruction(ask) + "\n\n" + who + ":\n" + message;
  return std::string(Utf8Prefix(text, kMaxTurnTextBytes));
}

std::string AskCharter(const std::string& workflow, const json& ask, bool report_only) {
  std::string c = CharterCommon(workflow) + " " + AskInstruction(ask);
  if (report_only) {
    c += " All of this workflow's schedules are paused: this is a report-only turn. Run, Outward and Change are all "
         "held; report, do not act.";
  }
  return c;
}

Status FinishAskTurn(ApiContext& ctx, const json& ask, int64_t turn_id, bool ok, const std::string& reply,
                     const std::string& error, const std::string& state) {
  Asks asks(*ctx.db, ctx.workflow);
  const std::string call_id = JStr(ask, "call_id");
  const int64_t now = ctx.env->NowSeconds();
  if (ok) return asks.FinishAskPulse(call_id, turn_id, std::string(Utf8Prefix(RepairUtf8(reply), 60000)), now);
  std::string status = state == "interrupted" ? "interrupted"
                       : error.find("timed out") != std::string::npos ? "timeout"
                                                                      : "failed";
  return asks.FinishAsk(call_id, status, "", std::string(Utf8Prefix(RepairUtf8(error), 4000)),
                        json{{"turn_id", turn_id}}, now);
}

}  // namespace pulse

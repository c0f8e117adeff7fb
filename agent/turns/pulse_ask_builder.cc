// ask_builder and the apply message: Pulse's words carried to the owner's
// Builder chat through the server's Builder channel (agent/turns/pulse_asks.h).
#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>
#include <utility>

#include "agent/outbox/outbox.h"
#include "agent/turns/pulse_asks.h"
#include "agent/turns/pulse_conversation.h"
#include "agent/tools/pulse_tools.h"
#include "core/api/decisions.h"
#include "core/autonomy/autonomy.h"
#include "core/conversation/conversation.h"
#include "core/facts/fact_snapshot.h"
#include "core/base/utf8.h"
#include "core/base/text.h"

namespace pulse {

using nlohmann::json;

namespace {

constexpr const char* kApplyKind = "apply_message";

struct BuilderAskArgs {
  std::string kind, message, evidence, title, why, named;
  int wait = kAskBuilderWaitDefault;
  json Detail() const {
    json d = {{"title", title}, {"evidence", evidence}, {"why", why}};
    if (!named.empty()) d["builder_session_id"] = named;
    return d;
  }
};

Status ReadBuilderAskArgs(const Args& a, BuilderAskArgs* out) {
  PULSE_RETURN_IF_ERROR(a.Text("kind", &out->kind));
  if (out->kind != "question" && out->kind != "fix") {
    return a.Error("kind", "must be question or fix, not \"" + out->kind + "\"");
  }
  PULSE_RETURN_IF_ERROR(a.Text("message", &out->message));
  PULSE_RETURN_IF_ERROR(a.OptString("evidence", &out->evidence));
  PULSE_RETURN_IF_ERROR(a.OptString("title", &out->title));
  PULSE_RETURN_IF_ERROR(a.OptString("why", &out->why));
  PULSE_RETURN_IF_ERROR(a.OptString("builder_session_id", &out->named));
  PULSE_RETURN_IF_ERROR(a.OptInt("wait_seconds", 1, kAskWaitMax, &out->wait));
  return Status::OK();
}

// A narrow text check (the guard holds the rest): a fix never touches the
// goal's own words, deletes, or migrates the contract.
std::string ForbiddenFix(const std::string& text) {
  std::string t = Lower(text);
  if (t.find("soul.md") != std::string::npos) return "soul.md is the owner's";
  for (const char* w : {"delete ", "remove step", "drop step"}) {
    if (t.find(w) != std::string::npos) return "deletions are the owner's";
  }
  if (t.find("migrat") != std::string::npos || t.find("contract version") != std::string::npos) {
    return "contract migrations are the owner's";
  }
  return "";
}

Result<std::optional<ChatRow>> TargetChat(ApiContext& ctx, const std::string& named) {
  if (!ctx.workflow_dir.empty()) (void)SnapshotChatsFile(*ctx.env, *ctx.db, ctx.workflow_dir, ctx.env->NowSeconds());
  PULSE_ASSIGN_OR_RETURN(std::vector<ChatRow> chats, ReadChats(*ctx.db));
  return SelectBuilderChat(chats, ctx.config, named);
}

// The fix as one decision with Pulse's recommendation; its Accept sends the
// fix to the Builder chat (SendApplyMessage).
std::string OneLine(const std::string& text, size_t cap) {
  std::string s(Utf8Prefix(RepairUtf8(text), cap));
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s.size() < text.size() ? s + "…" : s;
}

// Each ask and what came of it goes into Pulse's conversation as a line of
// the platform's, so the Pulse chat shows it beside the turn that asked and
// the next turn reads it.
void NoteBuilderAsk(ApiContext& ctx, const std::string& call_id) {
  if (!ctx.config.HasGoal()) return;
  Result<AskRecord> r = Asks(*ctx.db, ctx.workflow).Get(call_id);
  if (!r.ok()) return;
  const std::string chat = r->target_session.empty() ? JStr(r->detail, "builder_session_id") : r->target_session;
  std::string line = "Pulse asked " + (chat.empty() ? std::string("the Builder chat") : "Builder chat " + chat) + " (" +
                     r->kind + ", " + call_id + "): \"" + OneLine(r->message, 300) + "\" — " + r->status;
  if (!r->answer.empty()) line += ": \"" + OneLine(r->answer, 600) + "\"";
  else if (!r->error.empty()) line += ": " + OneLine(r->error, 300);
  Conversation c(*ctx.db, ctx.workflow);
  const int64_t now = ctx.env->NowSeconds();
  Result<Generation> g = c.Ensure(ConversationCharter(ctx.workflow), now);
  Status s = g.ok() ? c.AppendNote("ask_builder", line, now) : g.status();
  if (!s.ok()) ctx.env->Log(LogLevel::kWarn, ctx.workflow + ": ask_builder not written to the conversation: " + s.message());
}

Result<json> FixDecision(ApiContext& ctx, const std::string& session, const BuilderAskArgs& b, const std::string& call_id,
                         const std::string& why_decision) {
  DecisionRequest req;
  req.question = b.title.empty() ? "Pulse asks for a fix: " + b.message : "Pulse asks for a fix: " + b.title;
  req.options = {"Make this fix", "Not now"};
  req.why = b.message;
  req.raised_by = "pulse";
  RecommendationInput in;
  in.option = "Make this fix";
  in.why = b.why.empty() ? b.message : b.why;
  in.evidence = b.evidence;
  in.confidence = Confidence::kMedium;
  in.session = session;
  PULSE_ASSIGN_OR_RETURN(RecommendationOutcome made, RaiseRecommendation(ctx, req, in));
  Asks asks(*ctx.db, ctx.workflow);
  PULSE_RETURN_IF_ERROR(asks.FinishAsk(call_id, "decision", "", why_decision, json{{"decision_id", made.decision_id}},
                                       ctx.env->NowSeconds()));
  NoteBuilderAsk(ctx, call_id);
  return json{{"status", "decision"}, {"decision_id", made.decision_id}, {"call_id", call_id}, {"ask_id", call_id},
              {"note", why_decision + ": the fix waits for the owner in Needs you with your recommendation \"Make this "
                       "fix\"; the owner's Accept sends it to the Builder chat"}};
}

Result<AskRecord> OpenBuilderAsk(ApiContext& ctx, const std::string& session, const BuilderAskArgs& b) {
  Asks asks(*ctx.db, ctx.workflow);
  return asks.OpenAskBuilder(session, b.kind, b.message, b.Detail(), ctx.env->NowSeconds());
}

// Runs the Builder turn and stores what came of it.
Result<json> RunBuilderAsk(ApiContext& ctx, const BuilderAskArgs& b, const AskRecord& r, const ChatRow& chat) {
  BuilderTurnRequest req;
  req.workflow = ctx.workflow;
  req.workflow_dir = ctx.workflow_dir;
  req.chat_session = chat.session_id;
  req.kind = b.kind;
  req.message = b.message;
  req.turn = b.kind == "fix" ? TurnKind::kBuilderFix : TurnKind::kBuilderQuestion;
  req.wait_seconds = b.wait;
  req.extra = {{"call_id", r.call_id}, {"title", b.title}, {"evidence", b.evidence}, {"why", b.why}};
  BuilderTurnResult done = CurrentBuilderChannel()->Run(req);
  Asks asks(*ctx.db, ctx.workflow);
  const std::string reply = std::string(Utf8Prefix(RepairUtf8(done.reply), 16000));
  json detail = {{"builder_session_id", chat.session_id}, {"guard_session", done.guard_session},
                 {"held", BuilderStdin(req)["held"]}};
  PULSE_RETURN_IF_ERROR(asks.FinishAsk(r.call_id, done.status, reply, done.error, detail, ctx.env->NowSeconds()));
  NoteBuilderAsk(ctx, r.call_id);
  json out = {{"status", done.status}, {"call_id", r.call_id}, {"ask_id", r.call_id},
              {"builder_session_id", chat.session_id}, {"held", detail["held"]},
              {"answer", done.status == "answered" ? json(reply) : json(nullptr)}};
  if (!done.error.empty()) out["error"] = done.error;
  if (done.status == "answered" && b.kind == "question") {
    // Pulse keeps what the Builder said, dated, as a Builder answer.
    std::string line = "Builder chat " + chat.session_id + " on \"" + std::string(Utf8Prefix(b.message, 200)) +
                       "\": " + std::string(Utf8Prefix(reply, 600));
    Result<json> kept = AddGoalMemoryEntry(ctx, MemorySection::kLessons, MemorySource::kBuilderAnswer, line);
    out["in_memory"] = kept.ok();
  }
  return out;
}

}  // namespace

Result<json> AskBuilderTool(ApiContext& ctx, const std::string& session, const Args& a) {
  BuilderAskArgs b;
  PULSE_RETURN_IF_ERROR(ReadBuilderAskArgs(a, &b));
  if (b.kind == "fix") {
    std::string forbidden = ForbiddenFix(b.message + " " + b.title);
    if (!forbidden.empty()) {
      return Status::Refused("ask_builder: a fix is refused here (" + forbidden +
                             "); raise it with create_decision_request instead");
    }
  }
  PULSE_ASSIGN_OR_RETURN(std::optional<ChatRow> chat, TargetChat(ctx, b.named));
  PULSE_ASSIGN_OR_RETURN(AskRecord r, OpenBuilderAsk(ctx, session, b));
  Asks asks(*ctx.db, ctx.workflow);
  const int64_t now = ctx.env->NowSeconds();
  const bool channel = CurrentBuilderChannel() != nullptr;
  if (!chat || !channel) {
    const std::string why = !chat ? "no Builder chat of the owner's in chats.json"
                                  : "this server has no Builder command (pulse serve --builder)";
    if (b.kind == "fix") return FixDecision(ctx, session, b, r.call_id, why);
    PULSE_RETURN_IF_ERROR(asks.FinishAsk(r.call_id, "no_builder_chat", "", why, json::object(), now));
    NoteBuilderAsk(ctx, r.call_id);
    return json{{"status", "no_builder_chat"}, {"call_id", r.call_id}, {"ask_id", r.call_id}, {"answer", nullptr},
                {"note", why + "; no chat is created. Ask the owner with create_decision_request if the answer "
                               "matters now"}};
  }
  if (chat->busy) {
    PULSE_RETURN_IF_ERROR(asks.FinishAsk(r.call_id, "busy", "", "the Builder chat is busy with another turn",
                                         json{{"builder_session_id", chat->session_id}}, now));
    NoteBuilderAsk(ctx, r.call_id);
    return Status::Refused("ask_builder: Builder chat " + chat->session_id +
                           " is busy with another turn; ask later (call " + r.call_id + ")");
  }
  if (b.kind == "fix") {
    // Sent only when the turn holds Change at auto; the guard refused it
    // otherwise, and that refusal became a decision (AskBuilderFixAsDecision).
    Result<ToolSession> s = LoadToolSession(*ctx.db, session);
    TurnKind turn = s.ok() ? s->turn : TurnKind::kGoalCheck;
    HeldLevels held = LevelsForTurn(turn, ctx.config.autonomy, ctx.config.AllSchedulesPaused());
    if (held.change != Level::kAuto) return FixDecision(ctx, session, b, r.call_id, "pulse.autonomy.change is ask");
  }
  return RunBuilderAsk(ctx, b, r, *chat);
}

Result<json> AskBuilderFixAsDecision(ApiContext& ctx, const std::string& session, const json& args,
                                     const std::string& held) {
  Args a("ask_builder", args);
  BuilderAskArgs b;
  PULSE_RETURN_IF_ERROR(ReadBuilderAskArgs(a, &b));
  PULSE_ASSIGN_OR_RETURN(AskRecord r, OpenBuilderAsk(ctx, session, b));
  return FixDecision(ctx, session, b, r.call_id, held);
}

// ---- the apply message ----

json ApplyOutcome::ToJson() const {
  json out = {{"sent", sent}, {"delivered", delivered}};
  if (outbox_id) out["outbox_id"] = outbox_id;
  if (!builder_session_id.empty()) out["builder_session_id"] = builder_session_id;
  if (!reason.empty()) out["reason"] = reason;
  if (!reply.empty()) out["reply"] = reply;
  return out;
}

namespace {

// Apply messages on their way to a Builder chat right now (workflow folder,
// outbox id). The owner's answer delivers its message at once while the
// tick retries the undelivered ones, and a Builder turn takes seconds: one
// message must reach the chat once, not once from each.
std::mutex g_delivering_mu;
std::set<std::pair<std::string, int64_t>> g_delivering;

class DeliveryClaim {
 public:
  DeliveryClaim(std::string dir, int64_t id) : key_(std::move(dir), id) {
    std::lock_guard<std::mutex> l(g_delivering_mu);
    held_ = g_delivering.insert(key_).second;
  }
  ~DeliveryClaim() {
    if (!held_) return;
    std::lock_guard<std::mutex> l(g_delivering_mu);
    g_delivering.erase(key_);
  }
  DeliveryClaim(const DeliveryClaim&) = delete;
  DeliveryClaim& operator=(const DeliveryClaim&) = delete;
  bool held() const { return held_; }

 private:
  std::pair<std::string, int64_t> key_;
  bool held_ = false;
};

// Whether apply message `id` still waits (one delivered meanwhile does not).
bool StillUndelivered(ApiContext& ctx, int64_t id) {
  OutboxQuery q;
  q.undelivered_only = true;
  q.kind = kApplyKind;
  q.limit = 100;
  Result<std::vector<OutboxMessage>> waiting = ListOutbox(*ctx.db, q);
  if (!waiting.ok()) return false;
  return std::any_of(waiting->begin(), waiting->end(), [id](const OutboxMessage& w) { return w.id == id; });
}

// One try at delivering an apply message; records the attempt when one was
// made or when nothing can carry it (so the tab can say why it waits).
ApplyOutcome TryDeliverApply(ApiContext& ctx, const OutboxMessage& m, bool record_waiting) {
  ApplyOutcome out;
  out.sent = true;
  out.outbox_id = m.id;
  DeliveryClaim claim(ctx.workflow_dir, m.id);
  if (!claim.held() || !StillUndelivered(ctx, m.id)) {
    out.reason = "undelivered here: the message is being delivered, or was, by another attempt";
    return out;
  }
  const int64_t now = ctx.env->NowSeconds();
  Result<std::optional<ChatRow>> chat = TargetChat(ctx, JStr(m.payload, "builder_session_id"));
  if (!chat.ok() || !*chat || !CurrentBuilderChannel() || (*chat)->busy) {
    out.reason = !chat.ok() ? chat.status().message()
                 : !*chat   ? "undelivered: no Builder chat of the owner's in chats.json; the message waits in the outbox"
                 : !CurrentBuilderChannel()
                     ? "undelivered: no Builder command (pulse serve --builder); the message waits in the outbox"
                     : "undelivered: Builder chat " + (*chat)->session_id + " is busy; tried again at the next tick";
    if (record_waiting) (void)MarkOutboxDelivery(*ctx.db, m.id, false, out.reason, now);
    return out;
  }
  BuilderTurnRequest req;
  req.workflow = ctx.workflow;
  req.workflow_dir = ctx.workflow_dir;
  req.chat_session = (*chat)->session_id;
  req.kind = "apply";
  req.message = m.text;
  req.turn = TurnKind::kBuilderFix;
  req.wait_seconds = kAskWaitMax;
  req.extra = {{"decision_id", JGet(m.payload, "decision_id", json(nullptr))}, {"outbox_id", m.id}};
  BuilderTurnResult done = CurrentBuilderChannel()->Run(req);
  out.builder_session_id = req.chat_session;
  out.delivered = done.status == "answered";
  out.reply = std::string(Utf8Prefix(RepairUtf8(done.reply), 4000));
  if (!out.delivered) out.reason = "undelivered: " + done.status + (done.error.empty() ? "" : ": " + done.error);
  (void)MarkOutboxDelivery(*ctx.db, m.id, out.delivered, out.reason, ctx.env->NowSeconds());
  return out;
}

// The ask_builder fix a decision stands for, if it does.
json FixOfDecision(ApiContext& ctx, int64_t decision_id) {
  Asks asks(*ctx.db, ctx.workflow);
  Result<std::vector<AskRecord>> list = asks.List(AskDirection::kToBuilder, 500);
  if (!list.ok()) return json();
  for (const AskRecord& r : *list) {
    if (r.status != "decision" || !r.detail.contains("decision_id") || r.detail["decision_id"] != decision_id) continue;
    json fix = r.detail;
    fix["message"] = r.message;
    fix["call_id"] = r.call_id;
    return fix;
  }
  return json();
}

}  // namespace

Result<ApplyOutcome> SendApplyMessage(ApiContext& ctx, int64_t decision_id) {
  PULSE_ASSIGN_OR_RETURN(Decision d, LoadDecision(*ctx.db, decision_id));
  json fix = FixOfDecision(ctx, decision_id);
  std::optional<std::string> text = ApplyMessageFor(d, fix);
  ApplyOutcome out;
  if (!text) {
    out.reason = d.status == DecisionStatus::kAnswered
                     ? "nothing to apply: the owner chose \"" + d.Chosen() + "\""
                     : std::string("nothing to apply: the decision is ") + DecisionStatusName(d.status);
    return out;
  }
  OutboxMessage m;
  m.kind = kApplyKind;
  m.title = "Apply decision " + std::to_string(d.id) + " in the Builder chat";
  m.text = *text;
  m.payload = {{"decision_id", d.id}};
  if (fix.is_object() && fix.contains("builder_session_id")) m.payload["builder_session_id"] = fix["builder_session_id"];
  PULSE_ASSIGN_OR_RETURN(m.id, AddOutboxMessage(*ctx.db, m, ctx.env->NowSeconds()));
  return TryDeliverApply(ctx, m, true);
}

void DeliverApplyMessages(ApiContext& ctx) {
  if (!CurrentBuilderChannel()) return;
  OutboxQuery q;
  q.undelivered_only = true;
  q.kind = kApplyKind;
  q.max_attempts = 5;
  q.limit = 10;
  Result<std::vector<OutboxMessage>> pending = ListOutbox(*ctx.db, q);
  if (!pending.ok()) return;
  for (const OutboxMessage& m : *pending) {
    ApplyOutcome o = TryDeliverApply(ctx, m, false);
    if (!o.delivered && o.reason.find("busy") == std::string::npos && o.reason.find("no Builder chat") != std::string::npos) break;
  }
}

}  // namespace pulse

#include "agent/tools/agent_api.h"

#include "agent/outbox/outbox.h"
#include "agent/turns/pulse_conversation.h"
#include "agent/tools/pulse_tools.h"
#include "agent/turns/pulse_turns.h"
#include "core/api/goal.h"
#include "core/autonomy/autonomy.h"
#include "core/autonomy/tool_catalog.h"

namespace pulse {

using nlohmann::json;

namespace {

Result<json> ToolsMethod(ApiContext&, const Args& a) {
  std::string name;
  PULSE_RETURN_IF_ERROR(a.OptString("name", &name));
  if (!a.Has("name")) return json{{"tools", PulseToolDefinitions()}};
  json out = json::array();
  if (IsPulseTool(name)) {
    std::string n = NormalizeToolName(name);
    for (const json& t : PulseToolDefinitions()) {
      if (t["name"] == n) out.push_back(t);
    }
  }
  return json{{"tools", out}};
}

// The session comes from the token, resolved here once; "session", when
// given, must be the token's.
Result<json> ToolCallMethod(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string token, tool, claimed;
  PULSE_RETURN_IF_ERROR(a.Text("token", &token));
  PULSE_RETURN_IF_ERROR(a.Text("tool", &tool));
  PULSE_RETURN_IF_ERROR(a.OptString("session", &claimed));
  json arguments = json::object();
  PULSE_RETURN_IF_ERROR(a.OptObject("arguments", &arguments));
  PULSE_ASSIGN_OR_RETURN(ToolSession session, ResolveSessionToken(*ctx.db, token));
  if (!claimed.empty() && claimed != session.id) return Status::Refused(a.where() + ": the token belongs to another session");
  PULSE_ASSIGN_OR_RETURN(ToolCallOutcome out, DispatchToolCall(ctx, session, tool, arguments));
  return out.ToJson();
}

// ---- the outbox ----

Result<json> OutboxAdd(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  OutboxMessage m;
  PULSE_RETURN_IF_ERROR(a.String("kind", &m.kind));
  PULSE_RETURN_IF_ERROR(a.OptString("title", &m.title));
  PULSE_RETURN_IF_ERROR(a.String("text", &m.text));
  PULSE_RETURN_IF_ERROR(a.OptString("pulse_run_id", &m.pulse_run_id));
  PULSE_RETURN_IF_ERROR(a.OptObject("payload", &m.payload));
  PULSE_ASSIGN_OR_RETURN(int64_t id, AddOutboxMessage(*ctx.db, m, ctx.env->NowSeconds()));
  return json{{"id", id}};
}

Result<json> OutboxList(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  OutboxQuery q;
  PULSE_RETURN_IF_ERROR(a.OptBool("undelivered", &q.undelivered_only));
  PULSE_RETURN_IF_ERROR(a.OptString("kind", &q.kind));
  PULSE_RETURN_IF_ERROR(a.OptString("pulse_run_id", &q.pulse_run_id));
  PULSE_RETURN_IF_ERROR(a.OptInt("limit", 1, 10000, &q.limit));
  PULSE_RETURN_IF_ERROR(a.OptInt("max_attempts", 1, 10000, &q.max_attempts));
  PULSE_ASSIGN_OR_RETURN(std::vector<OutboxMessage> messages, ListOutbox(*ctx.db, q));
  json out = json::array();
  for (const OutboxMessage& m : messages) out.push_back(OutboxMessageToJson(m));
  return json{{"messages", out}};
}

Result<json> OutboxMark(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  int64_t id = 0;
  PULSE_RETURN_IF_ERROR(a.Int("id", 1, INT64_MAX, &id));
  bool delivered = false;
  if (!a.Has("delivered")) return a.Error("delivered", "is required");
  PULSE_RETURN_IF_ERROR(a.OptBool("delivered", &delivered));
  std::string error;
  PULSE_RETURN_IF_ERROR(a.OptString("error", &error));
  PULSE_RETURN_IF_ERROR(MarkOutboxDelivery(*ctx.db, id, delivered, error, ctx.env->NowSeconds()));
  return json{{"id", id}, {"delivered", delivered}};
}

// ---- the turns ----

Result<json> TurnCheckDueMethod(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  CheckLoad load;
  PULSE_RETURN_IF_ERROR(a.OptBool("pulse_pass_active", &load.pulse_pass_active));
  PULSE_RETURN_IF_ERROR(a.OptInt("running_checks", 0, 1000000, &load.running_checks));
  PULSE_RETURN_IF_ERROR(a.OptInt("cap", 1, 1000000, &load.cap));
  PULSE_ASSIGN_OR_RETURN(CheckDue due, TurnCheckDue(ctx, load));
  return CheckDueJson(due);
}

Result<TurnKind> KindArg(const Args& a) {
  std::string kind;
  PULSE_RETURN_IF_ERROR(a.Text("kind", &kind));
  Result<TurnKind> k = ParseTurnKind(kind);
  if (!k.ok()) return a.Error("kind", k.status().message());
  return k;
}

Result<json> TurnContextMethod(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  PULSE_ASSIGN_OR_RETURN(TurnKind kind, KindArg(a));
  bool report_only = false;
  PULSE_RETURN_IF_ERROR(a.OptBool("report_only", &report_only));
  const json* message = a.Find("message");
  std::string caller, account;
  PULSE_RETURN_IF_ERROR(a.OptString("caller", &caller));
  PULSE_RETURN_IF_ERROR(a.OptString("account", &account));
  return TurnContext(ctx, kind, report_only, message ? *message : json(), caller, account);
}

Result<json> TurnRulesMethod(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  RulesTurn turn;
  PULSE_ASSIGN_OR_RETURN(turn.kind, KindArg(a));
  PULSE_RETURN_IF_ERROR(a.OptString("session", &turn.session));
  PULSE_RETURN_IF_ERROR(a.OptString("pulse_run_id", &turn.pulse_run_id));
  PULSE_RETURN_IF_ERROR(a.OptString("message", &turn.message));
  PULSE_ASSIGN_OR_RETURN(RulesReport report, RunRulesTurn(ctx, turn));
  return report.ToJson();
}

// The Pulse tab opening a workflow with a goal: its conversation exists from
// then on (generation 1 with the charter), as after the first goal check.
Result<json> ConversationOpenMethod(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  if (!ctx.config.HasGoal()) {
    return Status::Refused(ctx.workflow + " has no goal (goal.primary_metric): Pulse keeps no conversation for it");
  }
  PULSE_RETURN_IF_ERROR(Conversation(*ctx.db, ctx.workflow)
                            .Ensure(ConversationCharter(ctx.workflow), ctx.env->NowSeconds())
                            .status());
  return CallApi(ctx, "conversation.show", json::object());
}

}  // namespace

const ApiRegistry& ServerApi() {
  static const ApiRegistry registry = [] {
    ApiRegistry r;
    r.AddAll(CoreApi());
    AddGuardApi(r);
    r.Add("outbox.add", OutboxAdd, Access::kOwner,
          "stores a message from Pulse to the owner (pulse_summary, pulse_reply) in the outbox");
    r.Add("outbox.list", OutboxList, Access::kRead, "the outbox, oldest first (undelivered only on request)");
    r.Add("outbox.mark", OutboxMark, Access::kServer, "records one delivery attempt of an outbox message");
    r.Add("pulse.tools", ToolsMethod, Access::kRead, "Pulse's own tools (MCP descriptors) {name?}");
    r.Add("pulse.tool_call", ToolCallMethod, Access::kServer,
          "one agent tool call for a session token: the autonomy guard first, then Pulse's own tools run");
    r.Add("turn.check_due", TurnCheckDueMethod, Access::kServer,
          "whether the daily goal check is due now (goal.check_due, at most one turn a day)");
    r.Add("turn.context", TurnContextMethod, Access::kServer,
          "a background turn's charter, context and tools (an external runner's stdin)");
    r.Add("conversation.open", ConversationOpenMethod, Access::kOwner,
          "creates the workflow's Pulse conversation when it has none (the Pulse tab opening it); then as "
          "conversation.show");
    r.Add("turn.rules", TurnRulesMethod, Access::kServer,
          "the built-in rules runner: one background turn without a model");
    return r;
  }();
  return registry;
}

ApiContext ServerContext(WorkflowHandle& handle) { return ContextFor(handle, &ServerApi()); }

ApiContext ServerContext(const OpenedWorkflow& w, Env& env) {
  ApiContext ctx;
  ctx.db = w.db.get();
  ctx.env = &env;
  ctx.workflow = w.paths.name;
  ctx.config = w.config;
  ctx.workflow_dir = w.paths.dir;
  ctx.outside_files = &ReadOutsideFiles;
  ctx.api = &ServerApi();
  return ctx;
}

}  // namespace pulse

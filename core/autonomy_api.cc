// API methods of the autonomy guard: autonomy.guard,
// autonomy.catalog, autonomy.levels, autonomy.decisions, session.open,
// session.resolve, session.close. The CLI, the HTTP server and the browser
// call these; the rules are in autonomy.cc.
#include "core/api.h"
#include "core/autonomy.h"
#include "core/tool_catalog.h"

namespace pulse {

using nlohmann::json;

namespace {

Status NeedDb(ApiContext& ctx, const char* method) {
  if (!ctx.db) return Status::InvalidArgument(std::string(method) + ": needs a workflow database");
  return Status::OK();
}

// A string argument: missing is "" unless required; any other type is an error.
Status StringArg(const json& args, const char* key, bool required, std::string* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(std::string(key) + ": missing");
    return Status::OK();
  }
  if (!it->is_string()) return Status::InvalidArgument(std::string(key) + ": expected a string");
  *out = it->get<std::string>();
  if (required && out->empty()) return Status::InvalidArgument(std::string(key) + ": must not be empty");
  return Status::OK();
}

Result<json> Guard(ApiContext& ctx, const json& args) {
  std::string tool, turn_text, session, token;
  PULSE_RETURN_IF_ERROR(StringArg(args, "tool", true, &tool));
  PULSE_RETURN_IF_ERROR(StringArg(args, "turn", false, &turn_text));
  PULSE_RETURN_IF_ERROR(StringArg(args, "session", false, &session));
  PULSE_RETURN_IF_ERROR(StringArg(args, "token", false, &token));
  json tool_args = json::object();
  auto it = args.find("args");
  if (it != args.end() && !it->is_null()) {
    if (!it->is_object()) return Status::InvalidArgument("args: expected a JSON object (the tool's arguments)");
    tool_args = *it;
  }
  int64_t now = ctx.env->NowSeconds();
  if (!session.empty()) {
    // The session's record decides the turn; a "turn" given here changes nothing.
    PULSE_RETURN_IF_ERROR(NeedDb(ctx, "autonomy.guard"));
    // Resolved once; the guard takes the typed session.
    PULSE_ASSIGN_OR_RETURN(ToolSession s, token.empty() ? LoadToolSession(*ctx.db, session)
                                                         : AuthenticateSession(*ctx.db, session, token));
    PULSE_ASSIGN_OR_RETURN(GuardDecision d, GuardSessionCall(*ctx.db, ctx.config, s, tool, tool_args, now));
    json out = DecisionToJson(d);
    out["session"] = session;
    out["turn"] = TurnKindName(s.turn);
    out["recorded"] = true;
    return out;
  }
  if (turn_text.empty()) return Status::InvalidArgument("turn: missing (or give a session)");
  PULSE_ASSIGN_OR_RETURN(TurnKind turn, ParseTurnKind(turn_text));
  PULSE_ASSIGN_OR_RETURN(GuardDecision d, GuardTurnCall(ctx.db, ctx.config, turn, tool, tool_args, now));
  json out = DecisionToJson(d);
  out["turn"] = TurnKindName(turn);
  out["recorded"] = ctx.db != nullptr;
  return out;
}

Result<json> Catalog(ApiContext&, const json&) {
  json tools = json::array();
  for (const ToolEntry& e : ToolCatalog()) {
    json aliases = json::array();
    for (const ToolAlias& a : ToolAliases()) {
      if (std::string(a.name) == e.name) aliases.push_back(a.alias);
    }
    const char* level = e.cls == ToolClass::kRun       ? "run"
                        : e.cls == ToolClass::kChange  ? "change"
                        : e.cls == ToolClass::kOutward ? "outward"
                        : e.cls == ToolClass::kShell   ? "unclassified"
                                                       : "";
    json t = {{"name", e.name}, {"class", ToolClassName(e.cls)}, {"note", e.note}, {"aliases", aliases}};
    if (*level) t["level"] = level;
    if (e.check == ArgCheck::kGoogleCli) t["args_check"] = "google_cli";
    if (e.check == ArgCheck::kRecipients) t["args_check"] = "email_recipients";
    if (e.check == ArgCheck::kAskBuilderMode) t["args_check"] = "ask_builder_mode";
    tools.push_back(std::move(t));
  }
  json turns = json::array();
  for (TurnKind k : AllTurnKinds()) turns.push_back(TurnKindName(k));
  return json{{"tools", tools}, {"turns", turns}};
}

Result<json> Levels(ApiContext& ctx, const json&) {
  const AutonomyLevels& a = ctx.config.autonomy;
  return json{{"run", LevelName(a.run)},
              {"outward", LevelName(a.outward)},
              {"change", LevelName(a.change)},
              {"answer", AnswerLevelName(a.answer)},
              {"unclassified", a.unclassified},
              {"schedules_paused", ctx.config.AllSchedulesPaused()}};
}

Result<json> Decisions(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "autonomy.decisions"));
  std::string session;
  PULSE_RETURN_IF_ERROR(StringArg(args, "session", false, &session));
  int limit = 1000;
  auto it = args.find("limit");
  if (it != args.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 100000) {
      return Status::InvalidArgument("limit: expected a whole number between 1 and 100000");
    }
    limit = it->get<int>();
  }
  PULSE_ASSIGN_OR_RETURN(std::vector<GuardRecord> rows, ListGuardDecisions(*ctx.db, session, limit));
  json out = json::array();
  for (const GuardRecord& r : rows) {
    out.push_back({{"id", r.id},         {"session", r.session}, {"turn", r.turn},   {"tool", r.tool},
                   {"args_sha256", r.args_sha256}, {"allowed", r.allowed}, {"rule", r.rule},
                   {"level", r.level},   {"reason", r.reason},   {"at", r.at}});
  }
  return json{{"decisions", out}};
}

json SessionJson(const ToolSession& s) {
  return json{{"session", s.id},         {"turn", TurnKindName(s.turn)}, {"parent", s.parent},
              {"root", s.root},          {"open", s.open()},             {"opened_at", s.opened_at},
              {"closed_at", s.closed_at}};
}

Result<json> SessionOpen(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "session.open"));
  std::string turn_text, parent;
  PULSE_RETURN_IF_ERROR(StringArg(args, "turn", false, &turn_text));
  PULSE_RETURN_IF_ERROR(StringArg(args, "parent", false, &parent));
  TurnKind turn = TurnKind::kGoalCheck;
  if (turn_text.empty()) {
    if (parent.empty()) return Status::InvalidArgument("turn: missing (a helper may give parent instead)");
  } else {
    PULSE_ASSIGN_OR_RETURN(turn, ParseTurnKind(turn_text));
  }
  PULSE_ASSIGN_OR_RETURN(OpenedSession o,
                         OpenToolSession(*ctx.db, ctx.workflow, turn, parent, ctx.env->NowSeconds()));
  json out = SessionJson(o.session);
  out["token"] = o.token;
  return out;
}

Result<json> SessionResolve(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "session.resolve"));
  std::string token;
  PULSE_RETURN_IF_ERROR(StringArg(args, "token", true, &token));
  PULSE_ASSIGN_OR_RETURN(ToolSession s, ResolveSessionToken(*ctx.db, token));
  return SessionJson(s);
}

Result<json> SessionClose(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "session.close"));
  std::string session;
  PULSE_RETURN_IF_ERROR(StringArg(args, "session", true, &session));
  PULSE_ASSIGN_OR_RETURN(std::vector<std::string> closed, CloseToolSession(*ctx.db, session, ctx.env->NowSeconds()));
  PULSE_ASSIGN_OR_RETURN(ToolSession s, LoadToolSession(*ctx.db, session));
  json out = SessionJson(s);
  out["closed"] = closed;
  return out;
}

}  // namespace

void AddAutonomyApi(ApiRegistry& r) {
  r.Add("autonomy.guard", Guard, "the autonomy decision for one tool call: {turn|session, tool, args?} -> {allowed, reason, rule}");
  r.Add("autonomy.catalog", Catalog, "every tool the guard knows, with its class");
  r.Add("autonomy.levels", Levels, "pulse.autonomy as the guard reads it");
  r.Add("autonomy.decisions", Decisions, "recorded guard decisions, oldest first: {session?}");
  r.Add("session.open", SessionOpen, "opens a guarded tool session: {turn, parent?} -> {session, token}");
  r.Add("session.resolve", SessionResolve, "the session a token belongs to: {token} -> {session, turn, open}");
  r.Add("session.close", SessionClose, "closes a session and its helpers: {session}");
}

}  // namespace pulse

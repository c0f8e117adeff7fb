// API methods of the autonomy guard: autonomy.guard,
// autonomy.catalog, autonomy.levels, autonomy.decisions, session.open,
// session.resolve, session.close. The CLI, the HTTP server and the browser
// call these; the rules are in autonomy.cc.
#include "core/api/autonomy.h"

#include "core/api/api.h"
#include "core/base/time_util.h"
#include "core/autonomy/tool_catalog.h"

namespace pulse {

using nlohmann::json;

namespace {

Result<json> Guard(ApiContext& ctx, const Args& a) {
  std::string tool, turn_text, session, token;
  PULSE_RETURN_IF_ERROR(a.Text("tool", &tool));
  PULSE_RETURN_IF_ERROR(a.OptString("turn", &turn_text));
  PULSE_RETURN_IF_ERROR(a.OptString("session", &session));
  PULSE_RETURN_IF_ERROR(a.OptString("token", &token));
  json tool_args = json::object();
  PULSE_RETURN_IF_ERROR(a.OptObject("args", &tool_args));
  int64_t now = ctx.env->NowSeconds();
  if (!session.empty()) {
    // The session's record decides the turn; a "turn" given here changes nothing.
    PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
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
  if (turn_text.empty()) return a.Error("turn", "is required (or give a session)");
  PULSE_ASSIGN_OR_RETURN(TurnKind turn, ParseTurnKind(turn_text));
  PULSE_ASSIGN_OR_RETURN(GuardDecision d, GuardTurnCall(ctx.db, ctx.config, turn, tool, tool_args, now));
  json out = DecisionToJson(d);
  out["turn"] = TurnKindName(turn);
  out["recorded"] = ctx.db != nullptr;
  return out;
}

Result<json> Catalog(ApiContext&, const Args&) {
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

Result<json> Levels(ApiContext& ctx, const Args&) { return AutonomyLevelsJson(ctx.config); }

Result<json> Decisions(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string session;
  PULSE_RETURN_IF_ERROR(a.OptString("session", &session));
  int limit = 1000;
  PULSE_RETURN_IF_ERROR(a.OptInt("limit", 1, 100000, &limit));
  PULSE_ASSIGN_OR_RETURN(std::vector<GuardRecord> rows, ListGuardDecisions(*ctx.db, session, limit));
  json out = json::array();
  for (const GuardRecord& r : rows) {
    out.push_back({{"id", r.id},         {"session", r.session}, {"turn", r.turn},   {"tool", r.tool},
                   {"args_sha256", r.args_sha256}, {"allowed", r.allowed}, {"rule", r.rule},
                   {"level", r.level},   {"reason", r.reason},   {"at", FormatTime(r.at)}});
  }
  return json{{"decisions", out}};
}

json SessionJson(const ToolSession& s) {
  return json{{"session", s.id},         {"turn", TurnKindName(s.turn)}, {"parent", s.parent},
              {"root", s.root},          {"open", s.open()},             {"opened_at", FormatTime(s.opened_at)},
              {"closed_at", s.closed_at ? FormatTime(*s.closed_at) : std::string()}};
}

Result<json> SessionOpen(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string turn_text, parent;
  PULSE_RETURN_IF_ERROR(a.OptString("turn", &turn_text));
  PULSE_RETURN_IF_ERROR(a.OptString("parent", &parent));
  TurnKind turn = TurnKind::kGoalCheck;
  if (turn_text.empty()) {
    if (parent.empty()) return a.Error("turn", "is required (a helper may give parent instead)");
  } else {
    PULSE_ASSIGN_OR_RETURN(turn, ParseTurnKind(turn_text));
  }
  PULSE_ASSIGN_OR_RETURN(OpenedSession o,
                         OpenToolSession(*ctx.db, ctx.workflow, turn, parent, ctx.env->NowSeconds()));
  json out = SessionJson(o.session);
  out["token"] = o.token;
  return out;
}

Result<json> SessionResolve(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string token;
  PULSE_RETURN_IF_ERROR(a.Text("token", &token));
  PULSE_ASSIGN_OR_RETURN(ToolSession s, ResolveSessionToken(*ctx.db, token));
  return SessionJson(s);
}

Result<json> SessionClose(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string session;
  PULSE_RETURN_IF_ERROR(a.Text("session", &session));
  PULSE_ASSIGN_OR_RETURN(std::vector<std::string> closed, CloseToolSession(*ctx.db, session, ctx.env->NowSeconds()));
  PULSE_ASSIGN_OR_RETURN(ToolSession s, LoadToolSession(*ctx.db, session));
  json out = SessionJson(s);
  out["closed"] = closed;
  return out;
}

// The core's registry (the WebAssembly module's) answers autonomy.guard
// with where the guard runs; ServerApi replaces it with AddGuardApi's.
Result<json> GuardNotHere(ApiContext&, const Args&) {
  return Status::NotFound(
      "autonomy.guard: the autonomy guard decides tool calls in `pulse serve` and `pulse guard`, not in the "
      "WebAssembly module (nothing in the browser makes tool calls); its recorded decisions are autonomy.decisions");
}

}  // namespace

json AutonomyLevelsJson(const WorkflowConfig& config) {
  const AutonomyLevels& a = config.autonomy;
  return json{{"run", LevelName(a.run)},
              {"outward", LevelName(a.outward)},
              {"change", LevelName(a.change)},
              {"answer", AnswerLevelName(a.answer)},
              {"unclassified", a.unclassified},
              {"schedules_paused", config.AllSchedulesPaused()}};
}

void AddGuardApi(ApiRegistry& r) {
  r.Add("autonomy.guard", Guard, Access::kOwner, "the autonomy decision for one tool call: {turn|session, tool, args?} -> {allowed, reason, rule}");
}

void AddAutonomyApi(ApiRegistry& r) {
  r.Add("autonomy.guard", GuardNotHere, Access::kOwner,
        "the autonomy decision for one tool call (in the server and the CLI: ServerApi)");
  r.Add("autonomy.catalog", Catalog, Access::kRead, "every tool the guard knows, with its class");
  r.Add("autonomy.levels", Levels, Access::kRead, "pulse.autonomy as the guard reads it");
  r.Add("autonomy.decisions", Decisions, Access::kRead, "recorded guard decisions, oldest first: {session?}");
  r.Add("session.open", SessionOpen, Access::kServer, "opens a guarded tool session: {turn, parent?} -> {session, token}");
  r.Add("session.resolve", SessionResolve, Access::kServer, "the session a token belongs to: {token} -> {session, turn, open}");
  r.Add("session.close", SessionClose, Access::kServer, "closes a session and its helpers: {session}");
}

}  // namespace pulse

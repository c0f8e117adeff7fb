#include "core/pulse_tools.h"

#include <algorithm>
#include <cctype>

#include "core/goal_memory.h"
#include "core/tool_catalog.h"

namespace pulse {

using nlohmann::json;

std::string JStr(const json& doc, const char* key, const std::string& fallback) {
  if (!doc.is_object()) return fallback;
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool JBool(const json& doc, const char* key, bool fallback) {
  if (!doc.is_object()) return fallback;
  auto it = doc.find(key);
  return it != doc.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

json JGet(const json& doc, const char* key, const json& fallback) {
  if (!doc.is_object()) return fallback;
  auto it = doc.find(key);
  return it != doc.end() && !it->is_null() ? *it : fallback;
}

const json& PulseToolDefinitions() {
  static const json kTools = json::parse(R"JSON([
  {"name": "get_pulse_state",
   "title": "Pulse state",
   "description": "Reads the workflow's Pulse state. view=goal_status: the goal check document (status, key number, last measured, alarms). view=goal_work: the goal status plus readings, runs by route, pending decisions, goal memory and autonomy levels. view=agent_log: the durable background-agent log, oldest first (filter by session, pulse_run_id, status, since).",
   "inputSchema": {"type": "object",
     "properties": {
       "view": {"type": "string", "enum": ["goal_status", "goal_work", "agent_log"]},
       "session": {"type": "string", "description": "agent_log: only this session"},
       "pulse_run_id": {"type": "string", "description": "agent_log: only this Pulse run"},
       "status": {"type": "string", "description": "agent_log: only rows with this status (running, completed, ...)"},
       "since": {"type": "string", "description": "agent_log: rows updated at or after this RFC 3339 time"}},
     "required": ["view"], "additionalProperties": false}},
  {"name": "record_pulse_goal_check",
   "title": "Record the goal check",
   "description": "Records today's goal check: the core computes the status from the database and stores it (this is what keeps a reported pause quiet). Pass your verdict; the stored check is returned.",
   "inputSchema": {"type": "object",
     "properties": {
       "verdict": {"type": "string", "enum": ["on_track", "at_risk", "off_track", "not_measured", "no_goal"]},
       "note": {"type": "string"}},
     "additionalProperties": false}},
  {"name": "record_pulse_recommendation",
   "title": "Recommend on a decision",
   "description": "Attaches Pulse's recommendation to a pending decision (decision_id), or opens one batched decision request for the owner with the recommendation when no decision_id is given. Pulse recommends; only the owner answers.",
   "inputSchema": {"type": "object",
     "properties": {
       "decision_id": {"type": ["integer", "string"]},
       "question": {"type": "string", "description": "for a new decision"},
       "options": {"type": "array", "items": {"type": "string"}},
       "blocks": {"type": "string"},
       "option": {"type": "string", "description": "the recommended option (one of options)"},
       "text": {"type": "string", "description": "a free-text recommended answer when there are no options"},
       "why": {"type": "string"},
       "evidence": {"type": "string"},
       "confidence": {"type": "string", "enum": ["low", "medium", "high"]},
       "safe_default_by": {"type": "string", "description": "RFC 3339; applied then when answer=act and nobody answered"}},
     "required": ["why", "confidence"], "additionalProperties": false}},
  {"name": "record_pulse_goal_memory",
   "title": "Add to goal memory",
   "description": "Adds one dated line to the workflow's goal memory (memory/goal.md).",
   "inputSchema": {"type": "object",
     "properties": {
       "section": {"type": "string", "description": "e.g. lessons, open bets, decisions and outcomes"},
       "text": {"type": "string"},
       "source": {"type": "string", "description": "default: Pulse inference"}},
     "required": ["section", "text"], "additionalProperties": false}},
  {"name": "record_pulse_decision_outcome",
   "title": "Record a decision's outcome",
   "description": "Records what came of an answered decision (the decision log's result).",
   "inputSchema": {"type": "object",
     "properties": {
       "id": {"type": ["integer", "string"]},
       "result": {"type": "string"}},
     "required": ["id", "result"], "additionalProperties": false}}
])JSON");
  return kTools;
}

bool IsPulseTool(std::string_view name) {
  std::string n = NormalizeToolName(name);
  for (const json& t : PulseToolDefinitions()) {
    if (t["name"] == n) return true;
  }
  return false;
}

namespace {

Status RequireString(const json& args, const char* tool, const char* key, std::string* out, bool required = true) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(std::string(tool) + ": \"" + key + "\" is required");
    return Status::OK();
  }
  if (!it->is_string()) return Status::InvalidArgument(std::string(tool) + ": \"" + key + "\" must be a string");
  *out = it->get<std::string>();
  if (required && out->find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument(std::string(tool) + ": \"" + key + "\" is empty");
  }
  return Status::OK();
}

// A part of a composite view: the method's result, or {"error": ...} so one
// missing piece does not hide the rest.
json Part(ApiContext& ctx, const char* method, const json& args) {
  Result<json> r = CallApi(ctx, method, args);
  if (r.ok()) return *r;
  return json{{"error", r.status().message()}};
}

Result<json> GetPulseState(ApiContext& ctx, const json& args) {
  std::string view;
  PULSE_RETURN_IF_ERROR(RequireString(args, "get_pulse_state", "view", &view));
  if (view == "goal_status") return CallApi(ctx, "goal.check", json::object());
  if (view == "agent_log") {
    json q = json::object();
    for (const char* k : {"session", "pulse_run_id", "status", "since"}) {
      std::string v;
      PULSE_RETURN_IF_ERROR(RequireString(args, "get_pulse_state", k, &v, false));
      if (!v.empty()) q[k] = v;
    }
    return CallApi(ctx, "agent_log.show", q);
  }
  if (view == "goal_work") {
    PULSE_ASSIGN_OR_RETURN(json status, CallApi(ctx, "goal.check", json::object()));
    return json{{"goal_status", status},
                {"readings", Part(ctx, "goal.readings", json::object())},
                {"runs_by_route", Part(ctx, "goal.runs_by_route", json::object())},
                {"decisions", Part(ctx, "decision.list", json{{"status", "pending"}})},
                {"memory", Part(ctx, "memory.show", json::object())},
                {"autonomy", Part(ctx, "autonomy.levels", json::object())}};
  }
  return Status::InvalidArgument("get_pulse_state: \"view\" must be goal_status, goal_work or agent_log, not \"" +
                                 view + "\"");
}

Result<json> RecordGoalCheck(ApiContext& ctx, const json& args) {
  std::string verdict, note;
  PULSE_RETURN_IF_ERROR(RequireString(args, "record_pulse_goal_check", "verdict", &verdict, false));
  PULSE_RETURN_IF_ERROR(RequireString(args, "record_pulse_goal_check", "note", &note, false));
  PULSE_ASSIGN_OR_RETURN(json check, CallApi(ctx, "goal.check", json{{"record", true}}));
  json out = {{"recorded", true}, {"check", check}};
  if (!verdict.empty()) {
    out["verdict"] = verdict;
    // The stored status is the core's; a different reading by the agent is
    // reported back, not stored over it.
    out["verdict_matches"] = JStr(check, "status") == verdict;
  }
  if (!note.empty()) out["note"] = note;
  return out;
}

Result<json> RecordRecommendation(ApiContext& ctx, const std::string& session, const json& args) {
  const char* tool = "record_pulse_recommendation";
  json id;
  auto it = args.find("decision_id");
  if (it != args.end() && !it->is_null()) {
    if (!it->is_number_integer() && !it->is_string()) {
      return Status::InvalidArgument(std::string(tool) + ": \"decision_id\" must be an id");
    }
    id = *it;
  }
  std::string why, confidence, option;
  PULSE_RETURN_IF_ERROR(RequireString(args, tool, "why", &why));
  PULSE_RETURN_IF_ERROR(RequireString(args, tool, "confidence", &confidence));
  PULSE_RETURN_IF_ERROR(RequireString(args, tool, "option", &option, false));
  json rec = json::object();
  for (const char* k : {"option", "text", "why", "evidence", "confidence", "safe_default_by"}) {
    if (args.contains(k) && !args[k].is_null()) rec[k] = args[k];
  }
  if (!session.empty()) rec["session"] = session;
  if (!id.is_null()) {
    rec["id"] = id;
    PULSE_ASSIGN_OR_RETURN(json out, CallApi(ctx, "decision.recommend", rec));
    return json{{"decision_id", id}, {"created", false}, {"recommendation", out}};
  }

  // A new decision with the recommendation. What the recommendation needs is
  // checked before the decision exists, so a bad call leaves nothing behind.
  std::string question;
  PULSE_RETURN_IF_ERROR(RequireString(args, tool, "question", &question));
  if (confidence != "low" && confidence != "medium" && confidence != "high") {
    return Status::InvalidArgument(std::string(tool) + ": \"confidence\" must be low, medium or high");
  }
  json create = {{"question", question}, {"raised_by", "pulse"}};
  if (args.contains("options") && !args["options"].is_null()) {
    const json& options = args["options"];
    if (!options.is_array()) return Status::InvalidArgument(std::string(tool) + ": \"options\" must be a list of strings");
    bool found = option.empty();
    for (const json& o : options) {
      if (!o.is_string()) return Status::InvalidArgument(std::string(tool) + ": \"options\" must be a list of strings");
      if (o == option) found = true;
    }
    if (!found) return Status::InvalidArgument(std::string(tool) + ": option \"" + option + "\" is not among the options");
    create["options"] = options;
  }
  if (args.contains("blocks") && !args["blocks"].is_null()) create["blocks"] = args["blocks"];
  PULSE_ASSIGN_OR_RETURN(json made, CallApi(ctx, "decision.create", create));
  id = made["id"];
  rec["id"] = id;
  Result<json> out = CallApi(ctx, "decision.recommend", rec);
  json result = {{"decision_id", id}, {"created", true}};
  if (!out.ok() && out.status().code() == Code::kRefused && rec.contains("safe_default_by")) {
    // The decisions module accepts a safe default only with high confidence
    // and when applying it needs no level held at ask. The decision exists
    // now, so the recommendation is kept without the safe default and the
    // refusal is reported.
    result["safe_default_refused"] = out.status().message();
    rec.erase("safe_default_by");
    out = CallApi(ctx, "decision.recommend", rec);
  }
  if (!out.ok()) return out.status().WithContext(std::string(tool) + ": decision " + id.dump() + " was opened but");
  result["recommendation"] = *out;
  return result;
}

Result<json> RecordGoalMemory(ApiContext& ctx, const json& args) {
  std::string section, text, source = "Pulse inference";
  PULSE_RETURN_IF_ERROR(RequireString(args, "record_pulse_goal_memory", "section", &section));
  PULSE_RETURN_IF_ERROR(RequireString(args, "record_pulse_goal_memory", "text", &text));
  PULSE_RETURN_IF_ERROR(RequireString(args, "record_pulse_goal_memory", "source", &source, false));
  if (source.empty()) source = "Pulse inference";
  // Owner lines are written only where an owner's answer is recorded
  // (decision.answer); Pulse's memory tool never speaks for the owner.
  Result<MemorySource> parsed = ParseMemorySource(source);
  if (parsed.ok() && *parsed == MemorySource::kOwnerAnswer) {
    return Status::Refused("record_pulse_goal_memory: \"source\" cannot be owner_answer; only the owner's own "
                           "answer to a decision writes owner lines (use pulse_inference, result or builder_answer)");
  }
  return CallApi(ctx, "memory.add", json{{"section", section}, {"source", source}, {"text", text}});
}

Result<json> RecordDecisionOutcome(ApiContext& ctx, const json& args) {
  auto it = args.find("id");
  if (it == args.end() || !(it->is_number_integer() || it->is_string())) {
    return Status::InvalidArgument("record_pulse_decision_outcome: \"id\" (the decision) is required");
  }
  std::string result;
  PULSE_RETURN_IF_ERROR(RequireString(args, "record_pulse_decision_outcome", "result", &result));
  return CallApi(ctx, "decision.outcome", json{{"id", *it}, {"result", result}});
}

}  // namespace

Result<json> ExecutePulseTool(ApiContext& ctx, const std::string& session, const std::string& tool,
                              const json& args) {
  std::string name = NormalizeToolName(tool);
  if (!args.is_object()) return Status::InvalidArgument(name + ": arguments must be a JSON object");
  if (name == "get_pulse_state") return GetPulseState(ctx, args);
  if (name == "record_pulse_goal_check") return RecordGoalCheck(ctx, args);
  if (name == "record_pulse_recommendation") return RecordRecommendation(ctx, session, args);
  if (name == "record_pulse_goal_memory") return RecordGoalMemory(ctx, args);
  if (name == "record_pulse_decision_outcome") return RecordDecisionOutcome(ctx, args);
  return Status::NotFound("\"" + tool + "\" is not one of Pulse's own tools");
}

Result<json> DispatchToolCall(ApiContext& ctx, const std::string& session, const std::string& turn,
                              const std::string& tool, const json& args, const std::string& token) {
  json guard_args = {{"turn", turn}, {"tool", tool}, {"args", args}, {"session", session}};
  if (!token.empty()) guard_args["token"] = token;
  PULSE_ASSIGN_OR_RETURN(json guard, CallApi(ctx, "autonomy.guard", guard_args));
  json out = {{"tool", tool}, {"allowed", JBool(guard, "allowed", false)}, {"reason", JStr(guard, "reason")},
              {"rule", JStr(guard, "rule")}};
  if (guard.contains("level")) out["level"] = guard["level"];
  if (!out["allowed"].get<bool>()) {
    out["refused"] = true;
    return out;
  }
  if (!IsPulseTool(tool)) {
    out["executed"] = false;
    out["note"] = "allowed by the autonomy guard and recorded; this tool runs on the workflow platform, which is "
                  "outside Pulse, so Pulse itself does not execute it";
    return out;
  }
  PULSE_ASSIGN_OR_RETURN(json result, ExecutePulseTool(ctx, session, tool, args));
  out["executed"] = true;
  out["tool"] = NormalizeToolName(tool);
  out["result"] = result;
  return out;
}

namespace {

Result<json> ToolsMethod(ApiContext&, const json& args) {
  auto it = args.find("name");
  if (it == args.end() || it->is_null()) return json{{"tools", PulseToolDefinitions()}};
  if (!it->is_string()) return Status::InvalidArgument("pulse.tools: \"name\" must be a string");
  json out = json::array();
  std::string n = NormalizeToolName(it->get<std::string>());
  for (const json& t : PulseToolDefinitions()) {
    if (t["name"] == n) out.push_back(t);
  }
  return json{{"tools", out}};
}

Result<json> ToolCallMethod(ApiContext& ctx, const json& args) {
  auto token = args.find("token");
  if (token == args.end() || !token->is_string() || token->get<std::string>().empty()) {
    return Status::InvalidArgument("pulse.tool_call: \"token\" (the session token) is required");
  }
  auto tool = args.find("tool");
  if (tool == args.end() || !tool->is_string() || tool->get<std::string>().empty()) {
    return Status::InvalidArgument("pulse.tool_call: \"tool\" is required");
  }
  json arguments = args.contains("arguments") && !args["arguments"].is_null() ? args["arguments"] : json::object();
  if (!arguments.is_object()) return Status::InvalidArgument("pulse.tool_call: \"arguments\" must be a JSON object");
  PULSE_ASSIGN_OR_RETURN(json who, CallApi(ctx, "session.resolve", json{{"token", *token}}));
  std::string session = JStr(who, "session");
  std::string turn = JStr(who, "turn");
  if (args.contains("session") && args["session"].is_string() && args["session"] != session) {
    return Status::Refused("pulse.tool_call: the token belongs to another session");
  }
  if (!JBool(who, "open", false)) {
    return json{{"tool", *tool},
                {"allowed", false},
                {"refused", true},
                {"reason", "session " + session + " is closed; its tools are no longer available"},
                {"rule", "session_closed"}};
  }
  return DispatchToolCall(ctx, session, turn, *tool, arguments, token->get<std::string>());
}

}  // namespace

void AddPulseToolsApi(ApiRegistry& r) {
  r.Add("pulse.tools", ToolsMethod, "Pulse's own tools (MCP descriptors)");
  r.Add("pulse.tool_call", ToolCallMethod,
        "one agent tool call for a session token: the autonomy guard first, then Pulse's own tools run");
}

}  // namespace pulse

#include "core/pulse_turns.h"

#include <cctype>

#include "core/pulse_tools.h"
#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

const char* kCharterCommon =
    "You are Pulse, the goal owner of workflow \"{wf}\". You hold its goal and its memory; you recommend, only the "
    "owner answers. Use only Pulse's tools over MCP (MCP_API_URL with the bearer token in MCP_API_TOKEN); your tools "
    "are held to pulse.autonomy by the server, and a refused call means: raise a decision request instead. Never "
    "script tool-API calls from a shell.";

const char* kCharterCheck =
    " This is the daily goal check, one short turn. 1. get_pulse_state(view=\"goal_status\"). 2. On track: "
    "record_pulse_goal_check(verdict=\"on_track\") and stop. 3. Otherwise record_pulse_goal_check with your verdict, "
    "then make at most one batched decision for the owner with record_pulse_recommendation (question, options, the "
    "option you recommend, why, evidence, confidence, and safe_default_by only when applying it needs no level held at "
    "ask) unless one you raised is still pending, and finish with a one-paragraph summary on stdout (it becomes the "
    "pulse_summary message).";

const char* kCharterWork =
    " This is Goal Work, the strategic review. Start with the goal check (step 0: get_pulse_state(view=\"goal_work\")); "
    "work on what blocks the goal within your autonomy; record lessons and bets with record_pulse_goal_memory "
    "(consolidate when memory passes 45 entries); record results of answered decisions with "
    "record_pulse_decision_outcome.";

const char* kCharterAsk =
    " The owner wrote to you (context.message). Answer from the facts (get_pulse_state), briefly, on stdout. Record "
    "anything the owner tells you about preferences with record_pulse_goal_memory (source \"owner answer\").";

const char* kReportOnly =
    " All of this workflow's schedules are paused: this is a report-only turn. Run, Outward and Change are all held; "
    "report, do not act.";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

json Part(ApiContext& ctx, const char* method, const json& args) {
  Result<json> r = CallApi(ctx, method, args);
  if (r.ok()) return *r;
  return json{{"error", r.status().message()}};
}

std::string Num(const json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v.get<double>());
    return buf;
  }
  if (v.is_string()) return v.get<std::string>();
  return "?";
}

std::string ShortDay(const json& t) {
  if (!t.is_string()) return "";
  Result<int64_t> at = ParseTime(t.get<std::string>());
  return at.ok() ? FormatShortDay(*at) : "";
}

// "subscribers 412 of 1000 (last measured 7 Oct; by a run 17 Sep)"
std::string KeyNumber(const json& check) {
  const json m = JGet(check, "metric", json::object());
  if (!m.is_object() || !m.contains("name")) return "";
  std::string s = Num(m["name"]) + " " + (m.contains("value") && !m["value"].is_null() ? Num(m["value"]) : "unmeasured");
  if (m.contains("target") && !m["target"].is_null()) s += " of " + Num(m["target"]);
  std::string last = ShortDay(JGet(m, "last_measured_at", json()));
  std::string by_run = ShortDay(JGet(m, "last_measured_by_run_at", json()));
  if (!last.empty()) {
    s += " (last measured " + last;
    if (!by_run.empty() && by_run != last) s += "; by a workflow run " + by_run;
    s += ")";
  }
  return s;
}

json Alarms(const json& check) {
  json a = JGet(check, "alarms", json::array());
  return a.is_array() ? a : json::array();
}

bool HasAlarm(const json& alarms, const std::string& kind) {
  for (const json& a : alarms) {
    if (JStr(a, "kind") == kind) return true;
  }
  return false;
}

}  // namespace

std::string PulseName(const std::string& workflow) {
  std::string w = workflow;
  if (!w.empty()) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
  return w + " Pulse";
}

std::string StatusWords(const std::string& status) {
  if (status == "on_track") return "on track";
  if (status == "at_risk") return "at risk";
  if (status == "off_track") return "off track";
  if (status == "not_measured") return "not measured";
  if (status == "no_goal") return "no goal";
  return status;
}

Result<std::string> TurnCharter(const std::string& kind, bool report_only) {
  std::string c = kCharterCommon;
  if (kind == "goal_check") c += kCharterCheck;
  else if (kind == "goal_work") c += std::string(kCharterCheck) + kCharterWork;
  else if (kind == "ask_pulse") c += kCharterAsk;
  else return Status::NotFound("no charter for turn kind \"" + kind + "\" (goal_check, goal_work, ask_pulse)");
  if (report_only) c += kReportOnly;
  return c;
}

json BuildGoalRecommendation(const json& check, const WorkflowConfig& config, const std::string& workflow) {
  std::string status = JStr(check, "status");
  json alarms = Alarms(check);
  std::string metric = config.primary_metric ? config.primary_metric->name : "the primary metric";
  std::string route = config.primary_metric && !config.primary_metric->route.empty() ? config.primary_metric->route
                                                                                      : "the goal route";
  json options = json::array();
  auto add = [&](const std::string& o) {
    for (const json& x : options) if (x == o) return;
    options.push_back(o);
  };
  if (HasAlarm(alarms, "not_measured") || HasAlarm(alarms, "goal_work_without_reading")) {
    add("Add a step to " + route + " that records " + metric + " on every run");
  }
  if (HasAlarm(alarms, "goal_work_not_completed")) add("Make " + route + " the next scheduled run and fix what stops it");
  if (HasAlarm(alarms, "no_run") || HasAlarm(alarms, "schedules_paused")) add("Resume the paused schedules");
  if (options.empty()) add("Review the plan for " + route + " with Pulse and change what does not move " + metric);
  add("Leave it as it is for now");

  std::string why;
  for (const json& a : alarms) {
    if (!why.empty()) why += "; ";
    why += JStr(a, "message", JStr(a, "kind"));
  }
  if (why.empty()) why = metric + " is " + StatusWords(status) + " against the line to the target";
  std::string evidence = KeyNumber(check);
  if (evidence.empty()) evidence = "goal check of " + JStr(check, "checked_at");
  bool report_only = config.AllSchedulesPaused();
  return json{{"question", PulseName(workflow) + ": the goal is " + StatusWords(status) +
                               ". Which fix should come first?"},
              {"options", options},
              {"option", options[0]},
              {"why", why},
              {"evidence", evidence},
              // A paused workflow's check is report-only: Pulse is less sure
              // the owner wants anything running.
              {"confidence", !alarms.empty() && !report_only ? "high" : "medium"},
              {"blocks", "the goal: " + metric}};
}

namespace {

Result<json> CheckDue(ApiContext& ctx, const json& args) {
  PULSE_ASSIGN_OR_RETURN(json due, CallApi(ctx, "goal.check_due", args));
  if (!JBool(due, "due", false)) return due;
  int64_t now = ctx.env->NowSeconds();
  Result<json> rows = CallApi(ctx, "agent_log.show", json{{"since", FormatTime(StartOfDay(now))}});
  if (!rows.ok()) return rows.status();
  for (const json& r : JGet(*rows, "rows", json::array())) {
    if (JStr(r, "kind") != "goal_check") continue;
    std::string started = JStr(r, "started_at");
    if (started.empty() || started < FormatTime(StartOfDay(now))) continue;
    return json{{"due", false},
                {"report_only", JBool(due, "report_only", false)},
                {"reason", "a goal check turn already started today at " + started + " (" +
                               JStr(r, "pulse_run_id") + ")"}};
  }
  return due;
}

Result<json> Context(ApiContext& ctx, const json& args) {
  std::string kind = JStr(args, "kind");
  bool report_only = JBool(args, "report_only", false) || ctx.config.AllSchedulesPaused();
  PULSE_ASSIGN_OR_RETURN(std::string charter, TurnCharter(kind, report_only));
  charter = Replace(charter, "{wf}", ctx.workflow);
  json context = {{"workflow", ctx.workflow},
                  {"now", FormatTime(ctx.env->NowSeconds())},
                  {"report_only", report_only},
                  {"goal_status", Part(ctx, "goal.check", json::object())},
                  {"pending_decisions", Part(ctx, "decision.list", json{{"status", "pending"}})},
                  {"memory", Part(ctx, "memory.show", json::object())},
                  {"autonomy", Part(ctx, "autonomy.levels", json::object())}};
  if (args.contains("message")) context["message"] = args["message"];
  return json{{"charter", charter}, {"context", context}, {"tools", PulseToolDefinitions()}};
}

// A tool call of the rules runner, through the same guard as any agent's.
struct Caller {
  ApiContext& ctx;
  std::string session;
  std::string turn;
  json log = json::array();
  Result<json> Call(const std::string& tool, const json& args) {
    PULSE_ASSIGN_OR_RETURN(json out, DispatchToolCall(ctx, session, turn, tool, args));
    log.push_back(json{{"tool", tool}, {"allowed", JBool(out, "allowed", false)}, {"reason", JStr(out, "reason")}});
    return out;
  }
};

json PendingFromPulse(ApiContext& ctx) {
  Result<json> list = CallApi(ctx, "decision.list", json{{"status", "pending"}});
  if (!list.ok()) return nullptr;
  for (const json& d : JGet(*list, "decisions", json::array())) {
    std::string by = JStr(d, "raised_by");
    for (char& c : by) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (by.rfind("pulse", 0) == 0) return d;
  }
  return nullptr;
}

Result<json> RulesCheck(ApiContext& ctx, Caller& call, const json& args) {
  std::string run_id = JStr(args, "pulse_run_id");
  PULSE_ASSIGN_OR_RETURN(json recorded, call.Call("record_pulse_goal_check", json::object()));
  if (JBool(recorded, "refused", false)) {
    return Status::Refused("record_pulse_goal_check was refused: " + JStr(recorded, "reason"));
  }
  json check = recorded["result"]["check"];
  std::string status = JStr(check, "status");
  json out = {{"status", status}, {"pulse_run_id", run_id}, {"tools", json()}};
  if (status == "on_track" || status == "no_goal") {
    out["outcome"] = status;
    out["summary"] = PulseName(ctx.workflow) + ": " + StatusWords(status) +
                     (KeyNumber(check).empty() ? "" : " — " + KeyNumber(check)) + ". Recorded; nothing to do.";
    out["tools"] = call.log;
    return out;
  }
  if (JBool(check, "quiet", false)) {
    out["outcome"] = "quiet";
    out["summary"] = PulseName(ctx.workflow) + ": " + StatusWords(status) +
                     "; the pause was reported already and nothing changed since. Recorded; no message.";
    out["tools"] = call.log;
    return out;
  }

  // One batched decision, unless one Pulse raised is still pending.
  std::string decision_line;
  json pending = PendingFromPulse(ctx);
  if (!pending.is_null()) {
    out["decision_id"] = pending["id"];
    out["decision_reused"] = true;
    decision_line = "Still waiting on you: decision " + pending["id"].dump() + " (" + JStr(pending, "question") + ").";
  } else {
    json rec = BuildGoalRecommendation(check, ctx.config, ctx.workflow);
    if (rec["confidence"] == "high") {
      rec["safe_default_by"] = FormatTime(ctx.env->NowSeconds() + 2 * kSecondsPerDay);
    }
    PULSE_ASSIGN_OR_RETURN(json made, call.Call("record_pulse_recommendation", rec));
    if (JBool(made, "refused", false)) {
      decision_line = "No decision raised: " + JStr(made, "reason") + ".";
    } else {
      const json& r = made["result"];
      json id = r["decision_id"];
      out["decision_id"] = id;
      bool safe_default = rec.contains("safe_default_by") && !r.contains("safe_default_refused");
      out["safe_default"] = safe_default;
      if (r.contains("safe_default_refused")) out["safe_default_refused"] = r["safe_default_refused"];
      decision_line = "Decision " + id.dump() + " is waiting on you: " + rec["question"].get<std::string>() +
                      " Pulse recommends: " + rec["option"].get<std::string>() +
                      (safe_default ? " (safe default at " + rec["safe_default_by"].get<std::string>() +
                                          ": applied then if nobody answers and pulse.autonomy.answer is act)"
                                    : "") +
                      ".";
    }
  }

  std::string title = PulseName(ctx.workflow) + ": " + StatusWords(status);
  std::string text = title;
  if (!KeyNumber(check).empty()) text += " — " + KeyNumber(check);
  text += ".\n";
  for (const json& a : Alarms(check)) text += "- " + JStr(a, "message", JStr(a, "kind")) + "\n";
  text += decision_line;
  json payload = {{"check", check}};
  if (out.contains("decision_id")) payload["decision_id"] = out["decision_id"];
  PULSE_ASSIGN_OR_RETURN(json sent, CallApi(ctx, "outbox.add",
                                            json{{"kind", "pulse_summary"}, {"title", title}, {"text", text},
                                                 {"payload", payload}, {"pulse_run_id", run_id}}));
  out["outcome"] = "reported";
  out["outbox_id"] = sent["id"];
  out["summary"] = text;
  out["tools"] = call.log;
  return out;
}

Result<json> RulesAsk(ApiContext& ctx, Caller& call, const json& args) {
  std::string message = JStr(args, "message");
  if (message.empty()) return Status::InvalidArgument("turn.rules: ask_pulse needs \"message\"");
  PULSE_ASSIGN_OR_RETURN(json state, call.Call("get_pulse_state", json{{"view", "goal_status"}}));
  std::string reply;
  if (JBool(state, "refused", false)) {
    reply = "I could not read the goal status: " + JStr(state, "reason");
  } else {
    const json& check = state["result"];
    std::string status = JStr(check, "status");
    reply = "Goal: " + StatusWords(status);
    if (!KeyNumber(check).empty()) reply += " — " + KeyNumber(check);
    reply += ".";
    for (const json& a : Alarms(check)) reply += "\n- " + JStr(a, "message");
    json pending = PendingFromPulse(ctx);
    if (!pending.is_null()) {
      reply += "\nWaiting on you: decision " + pending["id"].dump() + " — " + JStr(pending, "question");
      if (pending.contains("recommendation") && pending["recommendation"].is_object()) {
        const json& r = pending["recommendation"];
        std::string what = JStr(r, "option", JStr(r, "text"));
        if (!what.empty()) reply += " Pulse recommends: " + what + ".";
      }
    }
  }
  reply += "\n(This reply comes from Pulse's built-in rules runner, which answers from the facts only; start "
           "`pulse serve --runner CMD` with an agent for a conversation.)";
  std::string title = "Reply to: " + (message.size() > 60 ? message.substr(0, 60) + "…" : message);
  PULSE_ASSIGN_OR_RETURN(json sent, CallApi(ctx, "outbox.add",
                                            json{{"kind", "pulse_reply"}, {"title", title}, {"text", reply},
                                                 {"payload", {{"message", message}}},
                                                 {"pulse_run_id", JStr(args, "pulse_run_id")}}));
  return json{{"outcome", "replied"}, {"summary", reply}, {"outbox_id", sent["id"]}, {"tools", call.log}};
}

Result<json> Rules(ApiContext& ctx, const json& args) {
  std::string kind = JStr(args, "kind");
  Caller call{ctx, JStr(args, "session"), kind};
  if (kind == "goal_check") return RulesCheck(ctx, call, args);
  if (kind == "goal_work") {
    PULSE_ASSIGN_OR_RETURN(json out, RulesCheck(ctx, call, args));
    // Goal Work also keeps the memory within its bound.
    Result<json> memory = CallApi(ctx, "memory.show", json::object());
    if (memory.ok() && memory->contains("entries") && (*memory)["entries"].is_array() &&
        (*memory)["entries"].size() > 45) {
      Result<json> c = CallApi(ctx, "memory.consolidate", json::object());
      out["memory_consolidated"] = c.ok();
    }
    return out;
  }
  if (kind == "ask_pulse") return RulesAsk(ctx, call, args);
  return Status::InvalidArgument("turn.rules: the built-in runner handles goal_check, goal_work and ask_pulse, not \"" +
                                 kind + "\"");
}

}  // namespace

void AddPulseTurnsApi(ApiRegistry& r) {
  r.Add("turn.check_due", CheckDue, "whether the daily goal check is due now (goal.check_due, at most one turn a day)");
  r.Add("turn.context", Context, "a background turn's charter, context and tools (an external runner's stdin)");
  r.Add("turn.rules", Rules, "the built-in rules runner: one background turn without a model");
}

}  // namespace pulse

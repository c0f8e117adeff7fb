#include "agent/turns/pulse_turns.h"

#include <cctype>

#include "agent/outbox/outbox.h"
#include "agent/turns/pulse_qa.h"
#include "agent/tools/pulse_tools.h"
#include "agent/turns/skills.h"
#include "core/agent_log/agent_log.h"
#include "core/api/autonomy.h"
#include "core/api/decisions.h"
#include "core/api/facts.h"
#include "core/decisions/decisions.h"
#include "core/decisions/recommendation.h"
#include "core/base/time_util.h"
#include "core/base/text.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

const char* kCharterCommon =
    "You are Pulse, the goal owner of workflow \"{wf}\". You hold its goal and its memory; you recommend, only the "
    "owner answers. Use only Pulse's tools over MCP (MCP_API_URL with the bearer token in MCP_API_TOKEN); your tools "
    "are held to pulse.autonomy by the server, and a refused call means: raise a decision request instead. Never "
    "script tool-API calls from a shell.";

const char* kCharterCheck =
    " This is the daily goal check, one short turn. 1. get_pulse_state(view=\"goal_status\"). 2. Recommend on every "
    "pending decision with record_pulse_recommendation (its decision_id, the option you recommend, why, evidence, "
    "confidence), on track or not, also the ones you did not raise. 3. On track: "
    "record_pulse_goal_check(verdict=\"on_track\") and stop. 4. Otherwise record_pulse_goal_check with your verdict, "
    "then make at most one new batched decision for the owner with record_pulse_recommendation (question, options, the "
    "option you recommend, why, evidence, confidence, and safe_default_by only when applying it needs no level held at "
    "ask), and finish with a one-paragraph summary on stdout (it becomes the pulse_summary message). Every pass, on track or not: record what came of each decision "
    "listed in outcomes_due (answered over a day ago, no result yet) with record_pulse_decision_outcome, and keep the "
    "open focus areas (goal_lead.focus_areas) in view. A refused call means create_decision_request. "
    "goal_status.facts says what happened since the last check: a plan change with touches_goal (the goal route's "
    "steps or the metric) is a question for the Builder: ask_builder(kind=question, builder_session_id = its session "
    "when builder_chat) before judging it; owner_answers are the owner's answers; spend compares two weeks (there is "
    "no budget) and cost_spikes name their route and whether it is the goal's; error_rate.spike and run_health are "
    "the failures; with needs_reauth, say in the summary what to re-connect (each login hint names the run and the "
    "text). qa_results are what the QA fix runs you asked for found. Your skill documents are in skills "
    "(goal-lead-check.md, with its \"Failed runs\" rule).";

const char* kCharterWork =
    " This is Goal Work, the strategic review of a full Pulse pass. Step 0 is the goal check below (read "
    "get_pulse_state(view=\"goal_work\") first); then "
    "work on what blocks the goal within your autonomy; record lessons and bets with record_pulse_goal_memory; "
    "when memory passes 45 entries, rewrite your own lines with action=\"consolidate\" and entries=[{section, "
    "text}] (what still matters, merged; the owner's lines stay as they are); record results of answered decisions with "
    "record_pulse_decision_outcome; work within the open focus areas (goal_lead.focus_areas), track each active one "
    "once a day and close it with its lesson when done; propose a new one with record_pulse_focus_area.";

// Someone with access who is not the owner (an editor's Slack message,
// caller "bot"): the seed's "Steps, Run chats, bot channels and readers only
// ask for a recommendation".
const char* kCharterAskNotOwner =
    " Someone with access to this workflow who is not its owner wrote to you (the turn's message; context.caller "
    "and context.account say who): this is not an owner relay and not the owner's voice. Answer from the facts "
    "(get_pulse_state), briefly, on stdout, framed as your recommendation; say plainly what you cannot judge. Record "
    "nothing from their words as the owner's: no owner answer in goal memory, no focus area, no soul.md proposal on "
    "their say-so. What only the owner can decide goes to the owner as a decision request (create_decision_request).";

const char* kCharterAsk =
    " The owner wrote to you (the turn's message): this is an owner relay. Answer from the facts (get_pulse_state), "
    "briefly, on stdout; say plainly what you cannot judge. Lasting direction (a preference, a rule, a choice) goes "
    "to goal memory with record_pulse_goal_memory(action=\"add\", section \"owner\", source \"owner answer\"). "
    "Time-boxed direction "
    "(\"this month, focus on ...\") becomes a proposed focus area with record_pulse_focus_area(action=\"propose\", "
    "title, end_date, check). A change of the goal itself becomes a proposed soul.md edit in a decision request "
    "(create_decision_request with the new text): you never edit soul.md yourself.";

const char* kReportOnly =
    " All of this workflow's schedules are paused: this is a report-only turn. Run, Outward and Change are all held; "
    "report, do not act.";

json Part(const Result<json>& r) { return r.ok() ? *r : json{{"error", r.status().message()}}; }

std::string WithKeyNumber(const std::string& head, const GoalCheck& check) {
  std::string key = GoalKeyNumber(check);
  return key.empty() ? head : head + " — " + key;
}

}  // namespace

std::string GoalStatusLine(const GoalCheck& check, const std::string& workflow) {
  return WithKeyNumber(PulseName(workflow) + ": " + GoalStatusWords(check.status), check);
}

Result<std::string> TurnInstruction(TurnKind kind, bool report_only, bool from_owner) {
  std::string c;
  if (kind == TurnKind::kGoalCheck) c = kCharterCheck;
  else if (kind == TurnKind::kGoalWork) c = std::string(kCharterWork) + kCharterCheck;
  else if (kind == TurnKind::kAskPulse) c = from_owner ? kCharterAsk : kCharterAskNotOwner;
  else if (kind == TurnKind::kRunFailed) c = std::string(" ") + kInstructionRunFailed;
  else if (kind == TurnKind::kQaFix) c = std::string(" ") + kInstructionQaFix;
  else return Status::NotFound(std::string("no charter for turn kind \"") + TurnKindName(kind) +
                               "\" (goal_check, goal_work, ask_pulse, run_failed, qa_fix)");
  if (report_only) c += kReportOnly;
  return c.substr(1);  // the parts begin with the space that joins them to the common text
}

Result<std::string> TurnCharter(TurnKind kind, bool report_only, bool from_owner) {
  PULSE_ASSIGN_OR_RETURN(std::string part, TurnInstruction(kind, report_only, from_owner));
  return std::string(kCharterCommon) + " " + part;
}

std::string CharterCommon(const std::string& workflow) { return Replace(kCharterCommon, "{wf}", workflow); }

Result<CheckDue> TurnCheckDue(ApiContext& ctx, const CheckLoad& load) {
  const int64_t now = ctx.env->NowSeconds();
  PULSE_ASSIGN_OR_RETURN(CheckDue due, GoalCheckDue(*ctx.db, ctx.config, ctx.workflow, load, now));
  if (!due.due) return due;
  AgentLogQuery q;
  q.since = StartOfDay(now);
  PULSE_ASSIGN_OR_RETURN(std::vector<AgentLogRow> rows, ReadAgentLog(*ctx.db, q, now));
  const int64_t today = StartOfDay(now);
  for (const AgentLogRow& r : rows) {
    if (r.kind != "goal_check" || !r.started_at || *r.started_at < today) continue;
    CheckDue already;
    already.report_only = due.report_only;
    already.reason =
        "a goal check turn already started today at " + FormatTime(*r.started_at) + " (" + r.pulse_run_id + ")";
    return already;
  }
  return due;
}

Result<json> TurnContext(ApiContext& ctx, TurnKind kind, bool report_only, const json& message,
                         const std::string& caller, const std::string& account) {
  report_only = report_only || ctx.config.AllSchedulesPaused();
  PULSE_ASSIGN_OR_RETURN(std::string charter, TurnCharter(kind, report_only, caller == "owner"));
  charter = Replace(charter, "{wf}", ctx.workflow);
  Result<json> check = GoalStatusDocument(ctx, false, FactsWindow::kSinceLatestCheck);
  ContextDecisions decisions(ctx);
  json context = {{"workflow", ctx.workflow},
                  {"now", FormatTime(ctx.env->NowSeconds())},
                  {"report_only", report_only},
                  {"goal_status", Part(check)},
                  {"pending_decisions", Part(ListDecisionsJson(decisions.get(), "pending"))},
                  {"memory", Part(MemoryShowJson(ctx))},
                  {"goal_lead", GoalLeadJson(ctx)},
                  {"autonomy", AutonomyLevelsJson(ctx.config)}};
  if (!message.is_null()) context["message"] = message;
  if (!caller.empty()) context["caller"] = caller;
  if (!account.empty()) context["account"] = account;
  // Failed runs, CONCERNS: lines, open issues, schedules and unreadable run
  // folders since the last check, and what the fix runs Pulse asked for found.
  if (context["goal_status"].contains("facts")) context["run_health"] = context["goal_status"]["facts"]["run_health"];
  context["qa_results"] = QaResultsJson(*ctx.db);
  return json{{"charter", charter}, {"context", context}, {"tools", PulseToolDefinitions()}, {"skills", SkillsForTurn(kind)}};
}

Result<int64_t> SendOwnerMessage(ApiContext& ctx, const char* kind, const std::string& title, const std::string& text,
                                 const json& payload, const std::string& run_id) {
  OutboxMessage m;
  m.kind = kind;
  m.title = title;
  m.text = text;
  m.payload = payload;
  m.pulse_run_id = run_id;
  return AddOutboxMessage(*ctx.db, m, ctx.env->NowSeconds());
}

Result<int64_t> SendPulseReply(ApiContext& ctx, const std::string& message, const std::string& reply,
                               const json& reply_to, const std::string& run_id) {
  std::string title = "Reply to: " + (message.size() > 60 ? std::string(Utf8Prefix(message, 60)) + "…" : message);
  json payload = {{"message", message}};
  if (reply_to.is_object()) payload["slack"] = reply_to;
  return SendOwnerMessage(ctx, "pulse_reply", title, reply, payload, run_id);
}

json RulesReport::ToJson() const {
  json calls = json::array();
  for (const RulesToolCall& c : tools) calls.push_back({{"tool", c.tool}, {"allowed", c.allowed}, {"reason", c.reason}});
  json out = {{"outcome", outcome}, {"summary", summary}, {"tools", calls}};
  if (status) {
    out["status"] = GoalStatusName(*status);
    out["pulse_run_id"] = pulse_run_id;
  }
  if (decision_id) out["decision_id"] = *decision_id;
  if (decision_reused) out["decision_reused"] = true;
  if (safe_default) out["safe_default"] = *safe_default;
  if (!safe_default_refused.empty()) out["safe_default_refused"] = safe_default_refused;
  if (outbox_id) out["outbox_id"] = *outbox_id;
  if (memory_consolidated) out["memory_consolidated"] = *memory_consolidated;
  if (!recommended.empty()) out["recommended"] = recommended;
  return out;
}

Result<GuardDecision> AskGuardForRules(ApiContext& ctx, const RulesTurn& turn, RulesReport* report,
                                       const std::string& tool, const json& args) {
  PULSE_ASSIGN_OR_RETURN(ToolSession session, LoadToolSession(*ctx.db, turn.session));
  PULSE_ASSIGN_OR_RETURN(GuardDecision d, GuardSessionTool(ctx, session, tool, args));
  report->tools.push_back(RulesToolCall{tool, d.allowed, d.reason});
  return d;
}

namespace {

// The rules runner asks the autonomy guard before each step, as any agent's
// tool call does, logs the answer in its report, and then does the step
// through the typed call the tool stands for.
class GuardedRunner {
 public:
  GuardedRunner(ApiContext& ctx, const RulesTurn& turn, RulesReport* report)
      : ctx_(ctx), turn_(turn), report_(report) {}

  Result<GuardDecision> Ask(const std::string& tool, const json& args) {
    return AskGuardForRules(ctx_, turn_, report_, tool, args);
  }

  const std::string& session() const { return turn_.session; }

 private:
  ApiContext& ctx_;
  const RulesTurn& turn_;
  RulesReport* report_;
};

// The newest pending decision Pulse raised, if any.
Result<std::optional<Decision>> PendingFromPulse(Db& db) {
  PULSE_ASSIGN_OR_RETURN(std::vector<Decision> pending, PendingDecisions(db));
  for (const Decision& d : pending) {
    std::string by = d.raised_by;
    for (char& c : by) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (by.rfind("pulse", 0) == 0) return std::optional<Decision>(d);
  }
  return std::optional<Decision>();
}

json RecommendationArgs(const GoalRecommendation& rec, const std::optional<int64_t>& safe_default_by) {
  json args = {{"question", rec.question}, {"options", rec.options}, {"option", rec.option}, {"why", rec.why},
               {"evidence", rec.evidence}, {"confidence", ConfidenceName(rec.confidence)}, {"blocks", rec.blocks}};
  if (safe_default_by) args["safe_default_by"] = FormatTime(*safe_default_by);
  return args;
}

// Raises the one batched decision (or names the one still pending); returns
// the line the summary ends with.
Result<std::string> RaiseDecision(ApiContext& ctx, GuardedRunner& call, const GoalCheck& check, RulesReport* out) {
  PULSE_ASSIGN_OR_RETURN(std::optional<Decision> pending, PendingFromPulse(*ctx.db));
  if (pending) {
    out->decision_id = pending->id;
    out->decision_reused = true;
    return "Still waiting on you: decision " + std::to_string(pending->id) + " (" + pending->question + ").";
  }
  GoalRecommendation rec = BuildGoalRecommendation(check, ctx.config, ctx.workflow);
  std::optional<int64_t> safe_default_by;
  if (rec.confidence == Confidence::kHigh) safe_default_by = ctx.env->NowSeconds() + 2 * kSecondsPerDay;
  PULSE_ASSIGN_OR_RETURN(GuardDecision allowed,
                         call.Ask("record_pulse_recommendation", RecommendationArgs(rec, safe_default_by)));
  if (!allowed.allowed) return "No decision raised: " + allowed.reason + ".";
  DecisionRequest request{rec.question, rec.options, rec.blocks, "pulse", "", std::nullopt};
  RecommendationInput input;
  input.option = rec.option;
  input.why = rec.why;
  input.evidence = rec.evidence;
  input.confidence = rec.confidence;
  input.safe_default_by = safe_default_by;
  input.session = call.session();
  PULSE_ASSIGN_OR_RETURN(RecommendationOutcome made, RaiseRecommendation(ctx, request, input));
  out->decision_id = made.decision_id;
  out->safe_default = safe_default_by.has_value() && made.safe_default_refused.empty();
  out->safe_default_refused = made.safe_default_refused;
  return "Decision " + std::to_string(made.decision_id) + " is waiting on you: " + rec.question +
         " Pulse recommends: " + rec.option +
         (*out->safe_default ? " (safe default at " + FormatTime(*safe_default_by) +
                                   ": applied then if nobody answers and pulse.autonomy.answer is act)"
                             : "") +
         ".";
}

// The rules runner's pick on a decision it did not raise: the option that
// names the goal's metric or route, else it says it cannot judge.
RecommendationInput PickForDecision(const Decision& d, const GoalCheck& check, const WorkflowConfig& config,
                                    const std::string& workflow) {
  RecommendationInput in;
  in.decision_id = d.id;
  in.confidence = Confidence::kLow;
  in.evidence = GoalStatusLine(check, workflow);
  std::vector<std::string> words;
  if (config.primary_metric) {
    words.push_back(config.primary_metric->name);
    if (!config.primary_metric->route.empty()) words.push_back(config.primary_metric->route);
  }
  auto lower = [](std::string x) {
    for (char& c : x) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return x;
  };
  if (d.options.empty()) {
    in.text = "No recommendation on the merits: the rules runner has no model and cannot judge this question. "
              "Answer from what you know.";
    in.why = "the built-in rules runner answers only from the goal check, pending decisions and memory";
    return in;
  }
  for (const std::string& o : d.options) {
    for (const std::string& w : words) {
      if (!w.empty() && lower(o).find(lower(w)) != std::string::npos) {
        in.option = o;
        in.why = "it is the option that names the goal's " + w + " (" + GoalStatusWords(check.status) +
                 "); the rules runner cannot judge the rest of the question";
        return in;
      }
    }
  }
  in.option = d.options.front();
  in.why = "the rules runner cannot judge this question (no option names the goal's metric or route); \"" +
           d.options.front() + "\" is only the first option, not a judgement";
  return in;
}

// Every pending decision gets a recommendation each day, on track or not,
// also the ones the owner created; a decision recommended on today already
// keeps it.
Status RecommendOnPending(ApiContext& ctx, GuardedRunner& call, const GoalCheck& check, RulesReport* out) {
  PULSE_ASSIGN_OR_RETURN(std::vector<Decision> pending, PendingDecisions(*ctx.db));
  const int64_t today = StartOfDay(ctx.env->NowSeconds());
  for (const Decision& d : pending) {
    PULSE_ASSIGN_OR_RETURN(std::optional<Recommendation> rec, CurrentRecommendation(*ctx.db, d.id));
    if (rec && rec->recommended_at >= today) continue;
    RecommendationInput in;
    if (rec && !rec->Chosen().empty()) {
      // Its own earlier recommendation stands, with today's evidence.
      in = RecommendationInput{};
      in.decision_id = d.id;
      in.option = rec->option;
      in.text = rec->text;
      in.why = rec->why;
      in.confidence = rec->confidence;
      in.evidence = GoalStatusLine(check, ctx.workflow);
    } else {
      in = PickForDecision(d, check, ctx.config, ctx.workflow);
    }
    json args = {{"decision_id", d.id}, {"why", in.why}, {"confidence", ConfidenceName(in.confidence)}};
    if (in.option) args["option"] = *in.option;
    if (in.text) args["text"] = *in.text;
    PULSE_ASSIGN_OR_RETURN(GuardDecision allowed, call.Ask("record_pulse_recommendation", args));
    if (!allowed.allowed) continue;
    in.session = call.session();
    Result<RecommendationOutcome> made = RaiseRecommendation(ctx, DecisionRequest{}, in);
    if (made.ok()) out->recommended.push_back(d.id);
  }
  return Status::OK();
}

Result<RulesReport> RulesCheck(ApiContext& ctx, const RulesTurn& turn) {
  RulesReport out;
  out.pulse_run_id = turn.pulse_run_id;
  GuardedRunner call(ctx, turn, &out);
  PULSE_ASSIGN_OR_RETURN(GuardDecision allowed, call.Ask("record_pulse_goal_check", json::object()));
  if (!allowed.allowed) return Status::Refused("record_pulse_goal_check was refused: " + allowed.reason);
  // The facts run from the previous recorded check: gathered before this one is stored.
  PULSE_ASSIGN_OR_RETURN(ContextFacts facts, FactsNow(ctx));
  const std::string reauth = facts.needs_reauth() ? "\n" + NeedsReauthLine(facts) : "";
  PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, ctx.env->NowSeconds(), true));
  out.status = check.status;
  PULSE_RETURN_IF_ERROR(RecommendOnPending(ctx, call, check, &out));
  const std::string head = PulseName(ctx.workflow) + ": " + GoalStatusWords(check.status);
  if (check.status == GoalStatus::kOnTrack || check.status == GoalStatus::kNoGoal) {
    out.outcome = GoalStatusName(check.status);
    out.summary = WithKeyNumber(head, check) + ". Recorded; nothing to do." + reauth;
    return out;
  }
  if (check.quiet) {
    out.outcome = "quiet";
    out.summary = head + "; the pause was reported already and nothing changed since. Recorded; no message.";
    return out;
  }
  PULSE_ASSIGN_OR_RETURN(std::string decision_line, RaiseDecision(ctx, call, check, &out));
  std::string text = WithKeyNumber(head, check) + ".\n";
  for (const Alarm& a : check.alarms) text += "- " + (a.message.empty() ? AlarmKindName(a.kind) : a.message) + "\n";
  text += decision_line + reauth;
  json payload = {{"check", check.ToJson()}, {"needs_reauth", facts.needs_reauth()}};
  if (out.decision_id) payload["decision_id"] = *out.decision_id;
  PULSE_ASSIGN_OR_RETURN(out.outbox_id, SendOwnerMessage(ctx, "pulse_summary", head, text, payload, turn.pulse_run_id));
  out.outcome = "reported";
  out.summary = text;
  return out;
}

Result<RulesReport> RulesAsk(ApiContext& ctx, const RulesTurn& turn) {
  if (turn.message.empty()) return Status::InvalidArgument("turn.rules: ask_pulse needs \"message\"");
  RulesReport out;
  GuardedRunner call(ctx, turn, &out);
  PULSE_ASSIGN_OR_RETURN(GuardDecision allowed, call.Ask("get_pulse_state", json{{"view", "goal_status"}}));
  std::string reply;
  if (!allowed.allowed) {
    reply = "I could not read the goal status: " + allowed.reason;
  } else {
    PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, ctx.env->NowSeconds(), false));
    reply = WithKeyNumber(std::string("Goal: ") + GoalStatusWords(check.status), check) + ".";
    for (const Alarm& a : check.alarms) reply += "\n- " + a.message;
    PULSE_ASSIGN_OR_RETURN(std::vector<Decision> pending, PendingDecisions(*ctx.db));
    for (const Decision& d : pending) {
      reply += "\nWaiting on you: decision " + std::to_string(d.id) + " — " + d.question;
      PULSE_ASSIGN_OR_RETURN(std::optional<Recommendation> rec, CurrentRecommendation(*ctx.db, d.id));
      if (rec && !rec->Chosen().empty()) reply += " Pulse recommends: " + rec->Chosen() + ".";
    }
    Result<json> memory = MemoryShowJson(ctx);
    if (memory.ok() && (*memory)["entries"].is_array()) {
      reply += "\nGoal memory holds " + std::to_string((*memory)["entries"].size()) + " entries.";
    }
  }
  reply += "\nWhat I cannot judge: I am Pulse's built-in rules runner, with no model. I answer from the goal check, "
           "the pending decisions and goal memory only; I cannot weigh your message's direction, so nothing you asked "
           "for was recorded or changed. Start `pulse serve --runner CMD` with an agent for a real conversation.";
  if (turn.ask.is_object()) {
    // The caller acts on the decision lines; the rules runner cannot weigh
    // the question, so the owner decides.
    reply += "\ndecision: ask the owner, because Pulse's built-in rules runner cannot judge this question\n"
             "owner_needed: yes (no model runs this Pulse: only the owner can weigh it)";
    out.outcome = "replied";
    out.summary = reply;
    return out;
  }
  PULSE_ASSIGN_OR_RETURN(out.outbox_id, SendPulseReply(ctx, turn.message, reply, turn.reply_to, turn.pulse_run_id));
  out.outcome = "replied";
  out.summary = reply;
  return out;
}

}  // namespace

Result<RulesReport> RunRulesTurn(ApiContext& ctx, const RulesTurn& turn) {
  if (turn.kind == TurnKind::kAskPulse) return RulesAsk(ctx, turn);
  if (turn.kind == TurnKind::kRunFailed) {
    PULSE_ASSIGN_OR_RETURN(FailedRunSeen run, FailedRunFromJson(JGet(turn.input, "failed_run", json())));
    return RulesRunFailed(ctx, turn, run);
  }
  if (turn.kind == TurnKind::kQaFix) {
    json q = JGet(turn.input, "qa_request", json());
    if (!q.is_object()) return RulesQaFix(ctx, turn, nullptr);
    PulseRequest r;
    r.id = q.value("id", int64_t{0});
    r.what = q.value("what", "");
    r.why = q.value("why", "");
    return RulesQaFix(ctx, turn, &r);
  }
  if (JStr(turn.input, "module") == "architecture") return RulesArchitecture(ctx, turn);
  if (turn.kind != TurnKind::kGoalCheck && turn.kind != TurnKind::kGoalWork) {
    return Status::InvalidArgument(std::string("turn.rules: the built-in runner handles goal_check, goal_work, "
                                               "ask_pulse, run_failed and qa_fix, not \"") + TurnKindName(turn.kind) + "\"");
  }
  PULSE_ASSIGN_OR_RETURN(RulesReport out, RulesCheck(ctx, turn));
  if (turn.kind == TurnKind::kGoalWork) {
    // Goal Work also keeps the memory within its bound.
    Result<json> memory = MemoryShowJson(ctx);
    if (memory.ok() && (*memory)["entries"].is_array() && (*memory)["entries"].size() > static_cast<size_t>(kGoalMemoryConsolidatePast)) {
      out.memory_consolidated = ConsolidateGoalMemory(ctx).ok();
    }
  }
  return out;
}

}  // namespace pulse

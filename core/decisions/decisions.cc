#include "core/decisions/decisions.h"

#include <cctype>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/base/one_line.h"
#include "core/store/schema.h"
#include "core/autonomy/tool_sessions.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

Status EnsureDecisionsSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_decisions ("
       " id INTEGER PRIMARY KEY,"
       " question TEXT NOT NULL,"
       " options_json TEXT NOT NULL DEFAULT '[]',"
       " blocks TEXT NOT NULL DEFAULT '',"
       " raised_by TEXT NOT NULL DEFAULT '',"
       " status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'answered', 'dismissed')),"
       " created_at TEXT NOT NULL,"
       " answer_option TEXT,"
       " answer_text TEXT,"
       " answer_note TEXT NOT NULL DEFAULT '',"
       " answered_by TEXT CHECK (answered_by IN ('owner', 'pulse')),"
       " answer_session TEXT NOT NULL DEFAULT '',"
       // accepted | changed | dismissed | answered (no recommendation) | applied_by_pulse
       " answer_kind TEXT,"
       " overruled_pulse INTEGER NOT NULL DEFAULT 0,"
       " answered_at TEXT,"
       " outcome TEXT,"
       " outcome_at TEXT);"
       "CREATE INDEX IF NOT EXISTS pulse_decisions_status ON pulse_decisions(status, answered_at);"
       "CREATE TABLE IF NOT EXISTS pulse_recommendations ("
       " id INTEGER PRIMARY KEY,"
       " decision_id INTEGER NOT NULL REFERENCES pulse_decisions(id),"
       " option TEXT,"
       " text TEXT,"
       " why TEXT NOT NULL,"
       " evidence TEXT NOT NULL DEFAULT '',"
       " confidence TEXT NOT NULL CHECK (confidence IN ('low', 'medium', 'high')),"
       " blocks TEXT NOT NULL DEFAULT '',"
       " safe_default_by TEXT,"
       " needs TEXT NOT NULL DEFAULT 'change' CHECK (needs IN ('none', 'run', 'outward', 'change')),"
       " session TEXT NOT NULL DEFAULT '',"
       " recommended_at TEXT NOT NULL,"
       " status TEXT NOT NULL DEFAULT 'open' CHECK (status IN"
       "  ('open', 'superseded', 'accepted', 'changed', 'dismissed', 'applied', 'overruled')),"
       " resolved_at TEXT);"
       "CREATE INDEX IF NOT EXISTS pulse_recommendations_decision ON pulse_recommendations(decision_id, id);"
       "CREATE TABLE IF NOT EXISTS pulse_decision_events ("
       " id INTEGER PRIMARY KEY,"
       " decision_id INTEGER NOT NULL REFERENCES pulse_decisions(id),"
       " at TEXT NOT NULL,"
       " kind TEXT NOT NULL,"
       " actor TEXT NOT NULL DEFAULT '',"
       " detail TEXT NOT NULL DEFAULT '{}');"
       "CREATE INDEX IF NOT EXISTS pulse_decision_events_decision ON pulse_decision_events(decision_id, id);"},
  };
  PULSE_RETURN_IF_ERROR(EnsureGoalMemorySchema(db));
  return ApplyMigrations(db, "decisions", kMigrations);
}

namespace {

std::string OneLine(const std::string& s) { return FlattenLineBreaks(s); }

Status AddEvent(Db& db, int64_t decision_id, int64_t now, const std::string& kind, const std::string& actor,
                const json& detail) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_decision_events(decision_id, at, kind, actor, detail) VALUES(?, ?, ?, ?, ?)"));
  put.Bind(1, decision_id).BindTime(2, now).Bind(3, kind).Bind(4, actor).Bind(5, detail.dump());
  return put.Run();
}

// InvalidArgument listing the options when `option` is not one of them.
Status CheckOption(const std::string& what, const Decision& d, const std::string& option) {
  if (std::find(d.options.begin(), d.options.end(), option) != d.options.end()) return Status::OK();
  std::string list;
  for (const std::string& o : d.options) list += (list.empty() ? "\"" : ", \"") + o + "\"";
  return Status::InvalidArgument(what + ": option \"" + option + "\" is not one of " + list);
}

Status CheckNeedsLevel(const std::string& needs, const AutonomyLevels& levels) {
  Level level;
  if (needs == "none") return Status::OK();
  if (needs == "run") level = levels.run;
  else if (needs == "outward") level = levels.outward;
  else level = levels.change;
  if (level == Level::kAsk) {
    return Status::Refused("applying it needs " + needs + "=auto but pulse.autonomy." + needs + " is ask");
  }
  return Status::OK();
}

bool IsUtf8Line(const std::string& s) { return CheckUtf8(s, "").ok(); }

Status NonEmpty(const std::string& value, const std::string& what) {
  if (value.find_first_not_of(" \t\r\n") == std::string::npos) return Status::InvalidArgument(what + " is empty");
  if (!IsUtf8Line(value)) return Status::InvalidArgument(what + " is not valid UTF-8 text");
  return Status::OK();
}

// How an owner's answer relates to Pulse's recommendation.
struct AnswerKind {
  std::string kind;        // dismissed | accepted | changed | answered
  std::string rec_status;  // what becomes of the recommendation ("" when none)
  bool overruled = false;  // the owner went against Pulse
};

AnswerKind ClassifyAnswer(const AnswerInput& in, const std::string& chosen, const std::optional<Recommendation>& rec,
                          bool over_pulse_default) {
  if (in.dismiss) return {"dismissed", "dismissed", over_pulse_default};
  if (rec && (in.accept || chosen == rec->Chosen())) return {"accepted", "accepted", false};
  if (rec) return {"changed", rec->status == "applied" ? "overruled" : "changed", true};
  return {"answered", "", false};
}

// `clause` after `line`: "; clause", or as a sentence of its own when the
// owner's words already end one ("…today. Overruled Pulse …", not
// "…today.; overruled").
std::string AddClause(std::string line, const std::string& clause) {
  const char last = line.empty() ? ' ' : line.back();
  if (last != '.' && last != '!' && last != '?') return line + "; " + clause;
  return line + " " + static_cast<char>(std::toupper(static_cast<unsigned char>(clause[0]))) + clause.substr(1) + ".";
}

// The owner-answer line in goal memory: question, chosen option, note,
// accepted or overruled Pulse.
std::string OwnerAnswerLine(const Decision& d, const AnswerInput& in, const std::string& chosen,
                            const std::string& kind, const std::optional<Recommendation>& rec,
                            bool over_pulse_default) {
  std::string line = "\"" + d.question + "\" → " + (in.dismiss ? std::string("dismissed") : chosen);
  if (!in.note.empty()) line += " (note: " + in.note + ")";
  if (over_pulse_default) {
    return AddClause(line, kind == "accepted" ? "confirmed Pulse's applied default"
                                              : "overruled Pulse's applied default (" + (rec ? rec->Chosen() : std::string()) + ")");
  }
  if (!rec) return AddClause(line, "no Pulse recommendation");
  if (kind == "accepted") return AddClause(line, "accepted Pulse's recommendation");
  return AddClause(line, "overruled Pulse (recommended " + rec->Chosen() + ")");
}

// Writes a memory line and commits; on a failed commit puts goal.md back.
Status CommitWithMemory(Transaction& tx, GoalMemory& memory, MemorySection section, MemorySource source,
                        const std::string& line) {
  PULSE_ASSIGN_OR_RETURN(MemoryWrite w, memory.Add(section, source, OneLine(line)));
  Status s = tx.Commit();
  if (!s.ok()) memory.RestoreFile(w);
  return s;
}

}  // namespace

Result<UnattendedBy> WhyUnattended(Db& db, const std::string& session) {
  if (session.empty()) return UnattendedBy::kNone;
  // A session the database knows as a guarded turn: Pulse's own or another.
  Result<ToolSession> turn = LoadToolSession(db, session);
  if (turn.ok()) return turn->conversation ? UnattendedBy::kPulseTurn : UnattendedBy::kToolSession;
  if (turn.status().code() != Code::kNotFound) return turn.status();
  // A background agent's session, known only from the agent log.
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT 1 FROM background_agent_log WHERE session_id = ? LIMIT 1"));
  q.Bind(1, session);
  PULSE_ASSIGN_OR_RETURN(bool logged, q.Step());
  if (logged) return UnattendedBy::kAgentLog;
  return HasUnattendedPrefix(session) ? UnattendedBy::kNamePrefix : UnattendedBy::kNone;
}

const char* UnattendedByName(UnattendedBy by) {
  switch (by) {
    case UnattendedBy::kPulseTurn: return "pulse_turn";
    case UnattendedBy::kToolSession: return "tool_session";
    case UnattendedBy::kAgentLog: return "agent_log";
    case UnattendedBy::kNamePrefix: return "name_prefix";
    case UnattendedBy::kNone: break;
  }
  return "";
}

Result<bool> IsUnattendedSession(Db& db, const std::string& session) {
  PULSE_ASSIGN_OR_RETURN(UnattendedBy by, WhyUnattended(db, session));
  return by != UnattendedBy::kNone;
}

namespace {

// The refusal's words for each leg.
const char* UnattendedWhat(UnattendedBy by) {
  switch (by) {
    case UnattendedBy::kPulseTurn: return "a session of Pulse's own turns";
    case UnattendedBy::kToolSession: return "a guarded tool session (a runner's, a Builder's or one session.open made)";
    case UnattendedBy::kAgentLog: return "a background agent's session in the agent log";
    case UnattendedBy::kNamePrefix: return "named as a Pulse, scheduled or background session (schedule-, pulse-, bg-, background-)";
    case UnattendedBy::kNone: break;
  }
  return "the owner";
}

}  // namespace

Result<int64_t> CreateDecision(DecisionContext& ctx, const DecisionRequest& req) {
  PULSE_RETURN_IF_ERROR(NonEmpty(req.question, "decision question"));
  json options = json::array();
  for (const std::string& o : req.options) {
    PULSE_RETURN_IF_ERROR(NonEmpty(o, "decision option"));
    if (std::find(options.begin(), options.end(), json(o)) != options.end()) {
      return Status::InvalidArgument("decision option \"" + o + "\" is given twice");
    }
    options.push_back(o);
  }
  int64_t now = ctx.env.NowSeconds();
  Transaction tx(ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement put, ctx.db.Prepare(
      "INSERT INTO pulse_decisions(question, options_json, blocks, raised_by, status, created_at)"
      " VALUES(?, ?, ?, ?, 'pending', ?)"));
  put.Bind(1, req.question).Bind(2, options.dump()).Bind(3, req.blocks).Bind(4, req.raised_by).BindTime(5, now);
  PULSE_RETURN_IF_ERROR(put.Run());
  int64_t id = ctx.db.LastInsertRowId();
  json detail = {{"options", options}, {"blocks", req.blocks}};
  // The context lives in the creation event, so no column changes: the
  // decision's JSON lifts it out (DecisionJson).
  if (!req.why.empty()) detail["why"] = OneLine(req.why);
  if (req.refused_call) {
    const RefusedCall& c = *req.refused_call;
    detail["refused_call"] = {{"tool", c.tool}, {"rule", c.rule}, {"reason", c.reason}, {"at", c.at},
                              {"session", c.session}};
  }
  PULSE_RETURN_IF_ERROR(AddEvent(ctx.db, id, now, "created", req.raised_by, detail));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return id;
}

const char* DecisionStatusName(DecisionStatus status) {
  switch (status) {
    case DecisionStatus::kPending: return "pending";
    case DecisionStatus::kAnswered: return "answered";
    case DecisionStatus::kDismissed: return "dismissed";
  }
  return "pending";
}

const char* ConfidenceName(Confidence confidence) {
  switch (confidence) {
    case Confidence::kLow: return "low";
    case Confidence::kMedium: return "medium";
    case Confidence::kHigh: return "high";
  }
  return "medium";
}

Result<Confidence> ParseConfidence(std::string_view text, const std::string& what) {
  for (Confidence c : {Confidence::kLow, Confidence::kMedium, Confidence::kHigh}) {
    if (text == ConfidenceName(c)) return c;
  }
  return Status::InvalidArgument(what + ": confidence \"" + std::string(text) + "\" is not low, medium or high");
}

Result<DecisionView> Recommend(DecisionContext& ctx, const RecommendationInput& in) {
  const std::string what = "decision " + std::to_string(in.decision_id);
  std::string needs = in.needs.empty() ? "change" : in.needs;
  if (needs != "none" && needs != "run" && needs != "outward" && needs != "change") {
    return Status::InvalidArgument(what + ": needs \"" + in.needs + "\" is not none, run, outward or change");
  }
  PULSE_RETURN_IF_ERROR(NonEmpty(in.why, what + ": why"));
  if (in.option.has_value() == in.text.has_value()) {
    return Status::InvalidArgument(what + ": a recommendation names exactly one of an option or a free-text answer");
  }
  int64_t now = ctx.env.NowSeconds();
  const std::optional<int64_t>& safe_by = in.safe_default_by;
  if (safe_by && *safe_by <= now) {
    return Status::InvalidArgument(what + ": safe_default_by " + FormatTime(*safe_by) + " is not in the future (now " +
                                   FormatTime(now) + ")");
  }
  Transaction tx(ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Decision d, LoadDecision(ctx.db, in.decision_id));
  if (d.status != DecisionStatus::kPending) {
    return Status::Conflict(what + " is already " + DecisionStatusName(d.status) + (d.answered_at ? " (" + FormatTime(*d.answered_at) + ")" : "") +
                            "; a recommendation is only for a pending decision");
  }
  if (in.option) {
    if (d.options.empty()) {
      return Status::InvalidArgument(what + " has no options; recommend a free-text answer (--text)");
    }
    PULSE_RETURN_IF_ERROR(CheckOption(what, d, *in.option));
  } else {
    PULSE_RETURN_IF_ERROR(NonEmpty(*in.text, what + ": recommended text"));
    if (!d.options.empty()) {
      return Status::InvalidArgument(what + " offers options; recommend one of them (--option)");
    }
  }
  if (safe_by) {
    if (in.confidence != Confidence::kHigh) {
      return Status::Refused(what + ": safe_default_by refused: a safe default needs high confidence (this is " +
                             ConfidenceName(in.confidence) + "); recommend without it");
    }
    Status level = CheckNeedsLevel(needs, ctx.levels);
    if (!level.ok()) {
      return Status::Refused(what + ": safe_default_by refused: " + level.message() + "; recommend without it");
    }
  }
  PULSE_ASSIGN_OR_RETURN(Statement sup, ctx.db.Prepare(
      "UPDATE pulse_recommendations SET status = 'superseded', resolved_at = ? WHERE decision_id = ? AND status = 'open'"));
  sup.BindTime(1, now).Bind(2, d.id);
  PULSE_RETURN_IF_ERROR(sup.Run());
  PULSE_ASSIGN_OR_RETURN(Statement put, ctx.db.Prepare(
      "INSERT INTO pulse_recommendations(decision_id, option, text, why, evidence, confidence, blocks,"
      " safe_default_by, needs, session, recommended_at, status) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open')"));
  put.Bind(1, d.id);
  if (in.option) put.Bind(2, *in.option); else put.BindNull(2);
  if (in.text) put.Bind(3, *in.text); else put.BindNull(3);
  put.Bind(4, in.why).Bind(5, in.evidence).Bind(6, ConfidenceName(in.confidence)).Bind(7, in.blocks.empty() ? d.blocks : in.blocks);
  if (safe_by) put.BindTime(8, *safe_by); else put.BindNull(8);
  put.Bind(9, needs).Bind(10, in.session).BindTime(11, now);
  PULSE_RETURN_IF_ERROR(put.Run());
  int64_t rec_id = ctx.db.LastInsertRowId();
  PULSE_RETURN_IF_ERROR(AddEvent(ctx.db, d.id, now, "recommended", in.session.empty() ? "pulse" : in.session,
                                 {{"recommendation_id", rec_id},
                                  {"option", in.option ? json(*in.option) : json(nullptr)},
                                  {"text", in.text ? json(*in.text) : json(nullptr)},
                                  {"confidence", ConfidenceName(in.confidence)},
                                  {"safe_default_by", safe_by ? json(FormatTime(*safe_by)) : json(nullptr)}}));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  PULSE_ASSIGN_OR_RETURN(Decision after, LoadDecision(ctx.db, d.id));
  return ViewDecision(ctx.db, after, now);
}

Result<DecisionView> Answer(DecisionContext& ctx, const AnswerInput& in) {
  const std::string what = "decision " + std::to_string(in.decision_id);
  int given = (in.accept ? 1 : 0) + (in.option ? 1 : 0) + (in.text ? 1 : 0) + (in.dismiss ? 1 : 0);
  if (given != 1) {
    return Status::InvalidArgument(what + ": an answer is exactly one of accept, option, text or dismiss");
  }
  int64_t now = ctx.env.NowSeconds();
  Transaction tx(ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Decision d, LoadDecision(ctx.db, in.decision_id));
  PULSE_ASSIGN_OR_RETURN(UnattendedBy by, WhyUnattended(ctx.db, in.session));
  if (by != UnattendedBy::kNone) {
    // Kept in the log (the flight recorder), the decision itself untouched.
    PULSE_RETURN_IF_ERROR(AddEvent(ctx.db, d.id, now, "answer_refused", in.session,
                                   {{"reason", "unattended session"}, {"leg", UnattendedByName(by)}}));
    PULSE_RETURN_IF_ERROR(tx.Commit());
    return Status::Refused(what + ": session \"" + in.session + "\" is " + UnattendedWhat(by) +
                           "; only the owner answers (it may recommend instead); the decision stays " + DecisionStatusName(d.status));
  }
  bool over_pulse_default = d.status == DecisionStatus::kAnswered && d.answered_by && *d.answered_by == "pulse";
  const std::string answered_at = d.answered_at ? FormatTime(*d.answered_at) : "?";
  if (d.status == DecisionStatus::kDismissed) return Status::Conflict(what + " was dismissed at " + answered_at + "; nothing changed");
  if (d.status == DecisionStatus::kAnswered && !over_pulse_default) {
    return Status::Conflict(what + " was already answered by the owner at " + answered_at + "; nothing changed");
  }
  PULSE_ASSIGN_OR_RETURN(std::optional<Recommendation> rec, CurrentRecommendation(ctx.db, d.id));
  std::optional<std::string> option = in.option, text = in.text;
  if (in.accept) {
    if (!rec) return Status::InvalidArgument(what + " has no Pulse recommendation to accept; answer with an option or text");
    option = rec->option;
    text = rec->text;
  } else if (in.option) {
    if (d.options.empty()) return Status::InvalidArgument(what + " has no options; answer with text");
    PULSE_RETURN_IF_ERROR(CheckOption(what, d, *in.option));
  } else if (in.text) {
    PULSE_RETURN_IF_ERROR(NonEmpty(*in.text, what + ": answer text"));
  }
  if (!in.note.empty() && !IsUtf8Line(in.note)) return Status::InvalidArgument(what + ": note is not valid UTF-8 text");

  std::string chosen = option ? *option : text.value_or("");
  const AnswerKind k = ClassifyAnswer(in, chosen, rec, over_pulse_default);
  const std::string& kind = k.kind;
  const std::string& rec_status = k.rec_status;
  const bool overruled = k.overruled;

  PULSE_ASSIGN_OR_RETURN(Statement upd, ctx.db.Prepare(
      "UPDATE pulse_decisions SET status = ?, answer_option = ?, answer_text = ?, answer_note = ?,"
      " answered_by = 'owner', answer_session = ?, answer_kind = ?, overruled_pulse = ?, answered_at = ?"
      " WHERE id = ?"));
  upd.Bind(1, in.dismiss ? "dismissed" : "answered");
  if (option && !in.dismiss) upd.Bind(2, *option); else upd.BindNull(2);
  if (text && !in.dismiss) upd.Bind(3, *text); else upd.BindNull(3);
  upd.Bind(4, in.note).Bind(5, in.session).Bind(6, kind).Bind(7, int64_t{overruled ? 1 : 0}).BindTime(8, now).Bind(9, d.id);
  PULSE_RETURN_IF_ERROR(upd.Run());
  if (rec) {
    PULSE_ASSIGN_OR_RETURN(Statement r, ctx.db.Prepare(
        "UPDATE pulse_recommendations SET status = ?, resolved_at = ? WHERE id = ?"));
    r.Bind(1, rec_status).BindTime(2, now).Bind(3, rec->id);
    PULSE_RETURN_IF_ERROR(r.Run());
  }
  std::string event = in.dismiss ? "dismissed" : (over_pulse_default && overruled ? "overruled_default" : "answered");
  PULSE_RETURN_IF_ERROR(AddEvent(ctx.db, d.id, now, event, in.session.empty() ? "owner" : in.session,
                                 {{"kind", kind}, {"chosen", in.dismiss ? json(nullptr) : json(chosen)},
                                  {"note", in.note}, {"overruled_pulse", overruled}}));

  std::string line = OwnerAnswerLine(d, in, chosen, kind, rec, over_pulse_default);
  PULSE_RETURN_IF_ERROR(CommitWithMemory(tx, ctx.memory, MemorySection::kOwner, MemorySource::kOwnerAnswer, line));
  PULSE_ASSIGN_OR_RETURN(Decision after, LoadDecision(ctx.db, d.id));
  return ViewDecision(ctx.db, after, now);
}

Result<DecisionView> RecordDecisionOutcome(DecisionContext& ctx, int64_t decision_id, const std::string& result) {
  const std::string what = "decision " + std::to_string(decision_id);
  PULSE_RETURN_IF_ERROR(NonEmpty(result, what + ": result"));
  int64_t now = ctx.env.NowSeconds();
  Transaction tx(ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Decision d, LoadDecision(ctx.db, decision_id));
  if (d.status != DecisionStatus::kAnswered) {
    return Status::Conflict(what + " is " + DecisionStatusName(d.status) + "; an outcome is recorded for an answered decision");
  }
  PULSE_ASSIGN_OR_RETURN(Statement upd, ctx.db.Prepare(
      "UPDATE pulse_decisions SET outcome = ?, outcome_at = ? WHERE id = ?"));
  upd.Bind(1, result).BindTime(2, now).Bind(3, d.id);
  PULSE_RETURN_IF_ERROR(upd.Run());
  PULSE_RETURN_IF_ERROR(AddEvent(ctx.db, d.id, now, "outcome", "pulse",
                                 {{"result", result}, {"previous", d.outcome ? json(*d.outcome) : json(nullptr)}}));
  std::string line = "\"" + d.question + "\" → " + d.Chosen() + ": " + result;
  PULSE_RETURN_IF_ERROR(CommitWithMemory(tx, ctx.memory, MemorySection::kDecisions, MemorySource::kResult, line));
  PULSE_ASSIGN_OR_RETURN(Decision after, LoadDecision(ctx.db, d.id));
  return ViewDecision(ctx.db, after, now);
}

namespace {

enum class DefaultOutcome { kApplied, kSkipped, kRaced };

// Applies one due safe default in its own transaction. kSkipped sets
// `reason`; kRaced: an answer or a newer recommendation came first.
Result<DefaultOutcome> ApplyDueDefault(DecisionContext& ctx, int64_t id, int64_t now, std::string* reason) {
  Transaction tx(ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Decision d, LoadDecision(ctx.db, id));
  PULSE_ASSIGN_OR_RETURN(std::optional<Recommendation> rec, CurrentRecommendation(ctx.db, id));
  if (d.status != DecisionStatus::kPending || !rec || rec->status != "open" || !rec->safe_default_by) return DefaultOutcome::kRaced;
  // The levels may have changed since the recommendation was accepted.
  Status level = CheckNeedsLevel(rec->needs, ctx.levels);
  if (rec->confidence != Confidence::kHigh) level = Status::Refused(std::string("confidence is ") + ConfidenceName(rec->confidence));
  if (!level.ok()) {
    *reason = "not within Pulse's levels now: " + level.message();
    return DefaultOutcome::kSkipped;
  }
  PULSE_ASSIGN_OR_RETURN(Statement upd, ctx.db.Prepare(
      "UPDATE pulse_decisions SET status = 'answered', answer_option = ?, answer_text = ?, answer_note = '',"
      " answered_by = 'pulse', answer_session = '', answer_kind = 'applied_by_pulse', overruled_pulse = 0,"
      " answered_at = ? WHERE id = ?"));
  if (rec->option) upd.Bind(1, *rec->option); else upd.BindNull(1);
  if (rec->text) upd.Bind(2, *rec->text); else upd.BindNull(2);
  upd.BindTime(3, now).Bind(4, id);
  PULSE_RETURN_IF_ERROR(upd.Run());
  PULSE_ASSIGN_OR_RETURN(Statement r, ctx.db.Prepare(
      "UPDATE pulse_recommendations SET status = 'applied', resolved_at = ? WHERE id = ?"));
  r.BindTime(1, now).Bind(2, rec->id);
  PULSE_RETURN_IF_ERROR(r.Run());
  const std::string by = FormatTime(*rec->safe_default_by);
  PULSE_RETURN_IF_ERROR(AddEvent(ctx.db, id, now, "applied_default", "pulse",
                                 {{"chosen", rec->Chosen()}, {"safe_default_by", by}}));
  std::string line = "\"" + d.question + "\" → " + rec->Chosen() + ": Pulse applied its safe default (no owner answer by " +
                     by + "); the owner can overrule it";
  Status s = CommitWithMemory(tx, ctx.memory, MemorySection::kDecisions, MemorySource::kPulseInference, line);
  if (!s.ok()) {
    *reason = s.message();
    return DefaultOutcome::kSkipped;
  }
  return DefaultOutcome::kApplied;
}

}  // namespace

Result<DefaultsApplied> ApplyDueDefaults(DecisionContext& ctx) {
  DefaultsApplied out;
  if (ctx.levels.answer != AnswerLevel::kAct) return out;
  out.act = true;
  int64_t now = ctx.env.NowSeconds();
  PULSE_ASSIGN_OR_RETURN(Statement q, ctx.db.Prepare(
      "SELECT d.id FROM pulse_decisions d JOIN pulse_recommendations r ON r.decision_id = d.id"
      " WHERE d.status = 'pending' AND r.status = 'open' AND r.safe_default_by IS NOT NULL AND r.safe_default_by <= ?"
      " ORDER BY r.safe_default_by, d.id"));
  q.BindTime(1, now);
  std::vector<int64_t> ids;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    ids.push_back(q.Int64(0));
  }
  for (int64_t id : ids) {
    std::string reason;
    PULSE_ASSIGN_OR_RETURN(DefaultOutcome applied, ApplyDueDefault(ctx, id, now, &reason));
    if (applied == DefaultOutcome::kRaced) continue;
    if (applied == DefaultOutcome::kSkipped) {
      out.skipped.push_back({id, reason});
      continue;
    }
    PULSE_ASSIGN_OR_RETURN(Decision after, LoadDecision(ctx.db, id));
    PULSE_ASSIGN_OR_RETURN(DecisionView v, ViewDecision(ctx.db, after, now));
    out.applied.push_back(std::move(v));
  }
  return out;
}

Result<std::optional<int64_t>> NextSafeDefault(Db& db, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT MIN(r.safe_default_by) FROM pulse_recommendations r JOIN pulse_decisions d ON d.id = r.decision_id"
      " WHERE d.status = 'pending' AND r.status = 'open' AND r.safe_default_by > :now"));
  st.Bind(":now", FormatTime(now));
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row || st.IsNull(0)) return std::optional<int64_t>();
  std::optional<int64_t> at = st.Time(0);
  if (!at) return Status::Corruption("pulse_recommendations: a safe_default_by that is not a time");
  return at;
}

}  // namespace pulse

#include "core/conversation/conversation.h"

#include <algorithm>

#include "core/store/db_rows.h"
#include "core/store/schema.h"
#include "core/base/sha256.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

const char* kCallerNames[] = {"platform", "tick", "owner", "builder", "run", "step", "bot"};
const char* kStateNames[] = {"running", "completed", "failed", "interrupted", "stopped"};

// Entries the platform writes (not Pulse turns): they do not count toward
// the rollover and never claim the conversation.
bool IsLogLine(const std::string& turn) { return turn == "charter" || turn == "generation"; }

const char kTurnColumns[] =
    "id, generation, at, turn, caller, account, text, reply, state, error, pulse_run_id, thread_id, round, finished_at";

ConversationTurn ReadTurn(const Statement& st) {
  ConversationTurn t;
  t.id = st.Int64(0);
  t.generation = static_cast<int>(st.Int64(1));
  t.at = st.Text(2);
  t.turn = st.Text(3);
  Result<Caller> c = ParseCaller(st.Text(4));
  t.caller = c.ok() ? *c : Caller::kPlatform;
  t.account = st.Text(5);
  t.text = st.Text(6);
  t.reply = st.Text(7);
  std::string state = st.Text(8);
  for (int i = 0; i < 5; ++i) {
    if (state == kStateNames[i]) t.state = static_cast<TurnState>(i);
  }
  t.error = st.Text(9);
  t.pulse_run_id = st.Text(10);
  t.thread_id = st.Text(11);
  t.round = static_cast<int>(st.Int64(12));
  t.finished_at = st.Text(13);
  return t;
}

Status CheckText(const std::string& text, size_t cap, const char* what) {
  if (!IsValidUtf8(text)) return Status::InvalidArgument(std::string(what) + ": not valid UTF-8");
  if (text.size() > cap) {
    return Status::InvalidArgument(std::string(what) + ": longer than " + std::to_string(cap) + " bytes");
  }
  return Status::OK();
}

}  // namespace

const char* CallerName(Caller c) { return kCallerNames[static_cast<int>(c)]; }

Result<Caller> ParseCaller(const std::string& text) {
  for (int i = 0; i < 7; ++i) {
    if (text == kCallerNames[i]) return static_cast<Caller>(i);
  }
  return Status::InvalidArgument("caller: \"" + text + "\" is not one of platform, tick, owner, builder, run, step, bot");
}

const char* TurnStateName(TurnState s) { return kStateNames[static_cast<int>(s)]; }

json ConversationTurn::ToJson() const {
  json out = {{"id", id},         {"generation", generation}, {"at", at},       {"turn", turn},
              {"caller", CallerName(caller)}, {"text", text}, {"reply", reply}, {"state", TurnStateName(state)}};
  if (!account.empty()) out["account"] = account;
  if (!error.empty()) out["error"] = error;
  if (!pulse_run_id.empty()) out["pulse_run_id"] = pulse_run_id;
  if (!thread_id.empty()) {
    out["thread_id"] = thread_id;
    out["round"] = round;
  }
  if (!finished_at.empty()) out["finished_at"] = finished_at;
  return out;
}

json Generation::ToJson() const {
  return json{{"generation", number}, {"session_id", session_id}, {"started_at", started_at},
              {"reason", reason},     {"turns", turns}};
}

json ConversationView::ToJson() const {
  json gens = json::array();
  for (const Generation& g : generations) gens.push_back(g.ToJson());
  json list = json::array();
  for (const ConversationTurn& t : turns) list.push_back(t.ToJson());
  return json{{"workflow", workflow},     {"exists", exists},   {"session_id", session_id},
              {"generation", generation}, {"generations", gens}, {"shown_generation", shown_generation},
              {"turns", list},            {"stopped", stopped}, {"running", running},
              {"earlier_turns", earlier_turns},
              {"rollover", {{"days", kRolloverDays}, {"turns", kRolloverTurns}}}};
}

std::string ConversationSessionId(const std::string& workflow, int generation) {
  return "schedule-goallead--" + Sha256Hex(workflow).substr(0, 16) + "-g" + std::to_string(generation);
}

Status EnsureConversationSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_conversation_generations ("
       " generation INTEGER PRIMARY KEY,"
       " session_id TEXT NOT NULL,"
       " started_at TEXT NOT NULL,"
       " reason TEXT NOT NULL DEFAULT '');"
       "CREATE TABLE IF NOT EXISTS pulse_conversation_turns ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " generation INTEGER NOT NULL,"
       " at TEXT NOT NULL,"
       " turn TEXT NOT NULL,"
       " caller TEXT NOT NULL,"
       " account TEXT NOT NULL DEFAULT '',"
       " text TEXT NOT NULL DEFAULT '',"
       " reply TEXT NOT NULL DEFAULT '',"
       " state TEXT NOT NULL,"
       " error TEXT NOT NULL DEFAULT '',"
       " pulse_run_id TEXT NOT NULL DEFAULT '',"
       " thread_id TEXT NOT NULL DEFAULT '',"
       " round INTEGER NOT NULL DEFAULT 0,"
       " finished_at TEXT NOT NULL DEFAULT '');"
       "CREATE INDEX IF NOT EXISTS pulse_conversation_turns_gen ON pulse_conversation_turns(generation, id);"
       "CREATE INDEX IF NOT EXISTS pulse_conversation_turns_state ON pulse_conversation_turns(state);"
       // One row: which turn holds the conversation, and the owner's Stop.
       "CREATE TABLE IF NOT EXISTS pulse_conversation_state ("
       " id INTEGER PRIMARY KEY CHECK (id = 1),"
       " running_turn INTEGER NOT NULL DEFAULT 0,"
       " claimed_at TEXT NOT NULL DEFAULT '',"
       " stopped_at TEXT NOT NULL DEFAULT '');"
       "INSERT OR IGNORE INTO pulse_conversation_state(id) VALUES(1);"},
      {2,
       // Each generation's turn count (the view and Current() skip the
       // log lines) from the index alone, not from 10,000 long rows.
       "CREATE INDEX IF NOT EXISTS pulse_conversation_turns_gen_kind ON pulse_conversation_turns(generation, turn);"},
  };
  return ApplyMigrations(db, "conversation", kMigrations);
}

Result<Generation> Conversation::Current() {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT g.generation, g.session_id, g.started_at, g.reason,"
      " (SELECT COUNT(*) FROM pulse_conversation_turns t WHERE t.generation = g.generation"
      "   AND t.turn NOT IN ('charter', 'generation'))"
      " FROM pulse_conversation_generations g ORDER BY g.generation DESC LIMIT 1"));
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("conversation: " + workflow_ + " has no Pulse conversation yet");
  Generation g;
  g.number = static_cast<int>(st.Int64(0));
  g.session_id = st.Text(1);
  g.started_at = st.Text(2);
  g.reason = st.Text(3);
  g.turns = static_cast<int>(st.Int64(4));
  return g;
}

Status Conversation::AppendLine(int generation, const std::string& turn, const std::string& text, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement ins, db_.Prepare(
      "INSERT INTO pulse_conversation_turns(generation, at, turn, caller, text, state, finished_at)"
      " VALUES(?, ?, ?, 'platform', ?, 'completed', ?)"));
  ins.Bind(1, static_cast<int64_t>(generation)).Bind(2, FormatTime(now)).Bind(3, turn).Bind(4, text)
      .Bind(5, FormatTime(now));
  return ins.Run();
}

Status Conversation::AppendNote(const std::string& turn, const std::string& text, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Generation g, Current());
  return AppendLine(g.number, turn, std::string(Utf8Prefix(RepairUtf8(text), kMaxTurnTextBytes)), now);
}

Result<Generation> Conversation::Ensure(const std::string& charter, int64_t now) {
  Result<Generation> current = Current();
  if (current.ok() || current.status().code() != Code::kNotFound) return current;
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  // Another process may have created it while we waited for the lock.
  PULSE_ASSIGN_OR_RETURN(int64_t n, db_.QueryInt64("SELECT COUNT(*) FROM pulse_conversation_generations"));
  if (n == 0) {
    PULSE_ASSIGN_OR_RETURN(Statement ins, db_.Prepare(
        "INSERT INTO pulse_conversation_generations(generation, session_id, started_at, reason) VALUES(1, ?, ?, ?)"));
    ins.Bind(1, ConversationSessionId(workflow_, 1)).Bind(2, FormatTime(now)).Bind(3, "first turn");
    PULSE_RETURN_IF_ERROR(ins.Run());
    PULSE_RETURN_IF_ERROR(AppendLine(1, "charter", charter, now));
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return Current();
}

Result<RolloverDue> Conversation::RolloverDueAt(int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Generation g, Current());
  RolloverDue due;
  PULSE_ASSIGN_OR_RETURN(int64_t started, ParseTime(g.started_at));
  if (now - started >= static_cast<int64_t>(kRolloverDays) * kSecondsPerDay) {
    due.due = true;
    due.reason = std::to_string(kRolloverDays) + " days";
  } else if (g.turns >= kRolloverTurns) {
    due.due = true;
    due.reason = std::to_string(kRolloverTurns) + " turns";
  }
  return due;
}

Result<Generation> Conversation::Rollover(const std::string& charter, const std::string& reason, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Generation g, Current());
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(int64_t running, db_.QueryInt64("SELECT running_turn FROM pulse_conversation_state"));
  if (running != 0) return Status::Busy("conversation: a turn is running; the new generation starts after it");
  PULSE_ASSIGN_OR_RETURN(int64_t top, db_.QueryInt64("SELECT MAX(generation) FROM pulse_conversation_generations"));
  if (top != g.number) return Current();  // someone else rolled over first
  const int next = g.number + 1;
  const std::string next_id = ConversationSessionId(workflow_, next);
  PULSE_RETURN_IF_ERROR(AppendLine(g.number, "generation",
                                   "Generation " + std::to_string(g.number) + " ends after " + reason +
                                       "; the conversation goes on as " + next_id + ".",
                                   now));
  PULSE_ASSIGN_OR_RETURN(Statement ins, db_.Prepare(
      "INSERT INTO pulse_conversation_generations(generation, session_id, started_at, reason) VALUES(?, ?, ?, ?)"));
  ins.Bind(1, static_cast<int64_t>(next)).Bind(2, next_id).Bind(3, FormatTime(now)).Bind(4, reason);
  PULSE_RETURN_IF_ERROR(ins.Run());
  PULSE_RETURN_IF_ERROR(AppendLine(next, "generation",
                                   "Generation " + std::to_string(next) + " begins (" + g.session_id + " ended after " +
                                       reason + "); goal memory carries what matters.",
                                   now));
  PULSE_RETURN_IF_ERROR(AppendLine(next, "charter", charter, now));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return Current();
}

Result<ConversationTurn> Conversation::BeginTurn(const TurnStart& start, int64_t now) {
  if (start.turn.empty() || IsLogLine(start.turn)) return Status::InvalidArgument("turn: a Pulse turn kind is required");
  PULSE_RETURN_IF_ERROR(CheckText(start.text, kMaxTurnTextBytes, "text"));
  PULSE_RETURN_IF_ERROR(CheckText(start.account, 200, "account"));
  PULSE_ASSIGN_OR_RETURN(Generation g, Current());
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement claim, db_.Prepare("SELECT running_turn, claimed_at FROM pulse_conversation_state"));
  PULSE_ASSIGN_OR_RETURN(bool row, claim.Step());
  if (row && claim.Int64(0) != 0) {
    Result<int64_t> at = ParseTime(claim.Text(1));
    if (at.ok() && now - *at < kTurnLeaseSeconds) {
      return Status::Busy("conversation: turn " + std::to_string(claim.Int64(0)) + " is running since " +
                          claim.Text(1) + "; one turn at a time");
    }
  }
  claim.Reset();
  PULSE_ASSIGN_OR_RETURN(Statement ins, db_.Prepare(
      "INSERT INTO pulse_conversation_turns(generation, at, turn, caller, account, text, state, pulse_run_id,"
      " thread_id, round) VALUES(?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)"));
  ins.Bind(1, static_cast<int64_t>(g.number)).Bind(2, FormatTime(now)).Bind(3, start.turn)
      .Bind(4, CallerName(start.caller)).Bind(5, start.account).Bind(6, start.text).Bind(7, start.pulse_run_id)
      .Bind(8, start.thread_id).Bind(9, static_cast<int64_t>(start.round));
  PULSE_RETURN_IF_ERROR(ins.Run());
  const int64_t id = db_.LastInsertRowId();
  // A new turn clears an earlier Stop.
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_conversation_state SET running_turn = ?, claimed_at = ?, stopped_at = ''"));
  up.Bind(1, id).Bind(2, FormatTime(now));
  PULSE_RETURN_IF_ERROR(up.Run());
  PULSE_RETURN_IF_ERROR(tx.Commit());
  ConversationTurn t;
  t.id = id;
  t.generation = g.number;
  t.at = FormatTime(now);
  t.turn = start.turn;
  t.caller = start.caller;
  t.account = start.account;
  t.text = start.text;
  t.state = TurnState::kRunning;
  t.pulse_run_id = start.pulse_run_id;
  t.thread_id = start.thread_id;
  t.round = start.round;
  return t;
}

Status Conversation::FinishTurn(int64_t turn_id, const TurnEnd& end, int64_t now) {
  if (end.state == TurnState::kRunning) return Status::InvalidArgument("state: a finished turn cannot be running");
  PULSE_RETURN_IF_ERROR(CheckText(end.reply, kMaxReplyBytes, "reply"));
  PULSE_RETURN_IF_ERROR(CheckText(end.error, kMaxReplyBytes, "error"));
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  // A turn the owner stopped stays stopped whatever the runner said after.
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_conversation_turns SET state = CASE WHEN state = 'stopped' THEN 'stopped' ELSE ? END,"
      " reply = ?, error = ?, finished_at = ? WHERE id = ? AND finished_at = ''"));
  up.Bind(1, TurnStateName(end.state)).Bind(2, end.reply).Bind(3, end.error).Bind(4, FormatTime(now)).Bind(5, turn_id);
  PULSE_RETURN_IF_ERROR(up.Run());
  if (db_.Changes() == 0) {
    return Status::NotFound("conversation turn " + std::to_string(turn_id) + ": no such running turn");
  }
  PULSE_ASSIGN_OR_RETURN(Statement rel, db_.Prepare(
      "UPDATE pulse_conversation_state SET running_turn = 0, claimed_at = '' WHERE running_turn = ?"));
  rel.Bind(1, turn_id);
  PULSE_RETURN_IF_ERROR(rel.Run());
  return tx.Commit();
}

Result<bool> Conversation::Stop(int64_t now) {
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_conversation_turns SET state = 'stopped', error = 'stopped by the owner'"
      " WHERE state = 'running' AND id = (SELECT running_turn FROM pulse_conversation_state)"));
  PULSE_RETURN_IF_ERROR(up.Run());
  bool stopped_running = db_.Changes() > 0;
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare("UPDATE pulse_conversation_state SET stopped_at = ?"));
  st.Bind(1, FormatTime(now));
  PULSE_RETURN_IF_ERROR(st.Run());
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return stopped_running;
}

Result<std::optional<ConversationTurn>> Conversation::RunningTurnOf(const std::string& session) {
  std::optional<ConversationTurn> found;
  if (session.empty()) return found;
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      std::string("SELECT ") + kTurnColumns + " FROM pulse_conversation_turns WHERE state = 'running'"
      " AND id = (SELECT running_turn FROM pulse_conversation_state WHERE id = 1)"
      " AND generation IN (SELECT generation FROM pulse_conversation_generations WHERE session_id = ?)"));
  st.Bind(1, session);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (row) found = ReadTurn(st);
  return found;
}

Result<int> Conversation::RecoverInterrupted(const std::string& why, int64_t now) {
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_conversation_turns SET state = 'interrupted', error = ?, finished_at = ?"
      " WHERE state IN ('running', 'stopped') AND finished_at = ''"));
  up.Bind(1, why).Bind(2, FormatTime(now));
  PULSE_RETURN_IF_ERROR(up.Run());
  int n = db_.Changes();
  // Only a claim that is there is released: a recovery with nothing to
  // recover writes nothing (the database's stamp stays, first_open.h).
  PULSE_RETURN_IF_ERROR(db_.Exec(
      "UPDATE pulse_conversation_state SET running_turn = 0, claimed_at = '' WHERE running_turn != 0 OR claimed_at != ''"));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return n;
}

Result<std::vector<ConversationTurn>> Conversation::Transcript(int generation, int limit, int64_t before_id) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string("SELECT ") + kTurnColumns +
                                                  " FROM pulse_conversation_turns WHERE generation = ?1"
                                                  " AND (?2 = 0 OR id < ?2) ORDER BY id DESC LIMIT ?3"));
  st.Bind(1, static_cast<int64_t>(generation)).Bind(2, before_id).Bind(3, limit > 0 ? int64_t{limit} : int64_t{-1});
  PULSE_ASSIGN_OR_RETURN(std::vector<ConversationTurn> out, ReadRows(st, ReadTurn));
  std::reverse(out.begin(), out.end());
  return out;
}

Result<std::vector<ConversationTurn>> Conversation::ReplayTranscript(int generation) {
  PULSE_ASSIGN_OR_RETURN(std::vector<ConversationTurn> tail, Transcript(generation, kReplayTurns));
  if (tail.empty()) return tail;
  // The log lines and the charter from before the tail come first.
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string("SELECT ") + kTurnColumns +
                                                  " FROM pulse_conversation_turns WHERE generation = ?1 AND id < ?2"
                                                  " AND turn IN ('charter', 'generation') ORDER BY id"));
  st.Bind(1, static_cast<int64_t>(generation)).Bind(2, tail.front().id);
  PULSE_ASSIGN_OR_RETURN(std::vector<ConversationTurn> out, ReadRows(st, ReadTurn));
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

Result<ConversationView> Conversation::View(int generation, int limit, int64_t before_id) {
  ConversationView v;
  v.workflow = workflow_;
  // A read: a database that never had a conversation (an older copy opened
  // in the browser) is shown as having none, and nothing is created in it.
  PULSE_ASSIGN_OR_RETURN(int64_t tables, db_.QueryInt64(
      "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name IN"
      " ('pulse_conversation_generations', 'pulse_conversation_turns', 'pulse_conversation_state')"));
  if (tables < 3) return v;
  Result<Generation> current = Current();
  if (!current.ok()) {
    if (current.status().code() == Code::kNotFound) return v;
    return current.status();
  }
  v.exists = true;
  v.generation = current->number;
  v.session_id = current->session_id;
  PULSE_ASSIGN_OR_RETURN(Statement gens, db_.Prepare(
      "SELECT g.generation, g.session_id, g.started_at, g.reason,"
      " (SELECT COUNT(*) FROM pulse_conversation_turns t WHERE t.generation = g.generation"
      "   AND t.turn NOT IN ('charter', 'generation'))"
      " FROM pulse_conversation_generations g ORDER BY g.generation"));
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, gens.Step());
    if (!row) break;
    Generation g;
    g.number = static_cast<int>(gens.Int64(0));
    g.session_id = gens.Text(1);
    g.started_at = gens.Text(2);
    g.reason = gens.Text(3);
    g.turns = static_cast<int>(gens.Int64(4));
    v.generations.push_back(g);
  }
  v.shown_generation = generation > 0 ? generation : current->number;
  if (v.shown_generation > current->number) {
    return Status::NotFound("generation: " + std::to_string(generation) + " does not exist (the current one is " +
                            std::to_string(current->number) + ")");
  }
  PULSE_ASSIGN_OR_RETURN(v.turns, Transcript(v.shown_generation, limit, before_id));
  if (!v.turns.empty()) {
    PULSE_ASSIGN_OR_RETURN(Statement before, db_.Prepare(
        "SELECT COUNT(*) FROM pulse_conversation_turns WHERE generation = ? AND id < ?"));
    before.Bind(1, static_cast<int64_t>(v.shown_generation)).Bind(2, v.turns.front().id);
    PULSE_ASSIGN_OR_RETURN(bool counted, before.Step());
    if (counted) v.earlier_turns = static_cast<int>(before.Int64(0));
  }
  PULSE_ASSIGN_OR_RETURN(Statement state, db_.Prepare("SELECT running_turn, stopped_at FROM pulse_conversation_state"));
  PULSE_ASSIGN_OR_RETURN(bool row, state.Step());
  if (row) {
    v.running = state.Int64(0) != 0;
    v.stopped = !state.Text(1).empty();
  }
  return v;
}

}  // namespace pulse

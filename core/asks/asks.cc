#include "core/asks/asks.h"

#include "core/store/db_rows.h"
#include "core/base/json_limits.h"
#include "core/store/schema.h"
#include "core/base/sha256.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

const char kAskColumns[] =
    "id, call_id, direction, caller, session, account, owner_relay, thread_id, round, kind, target_session, message,"
    " status, answer, decision, question, owner_needed, owner_needed_why, thread_open, error, created_at, started_at,"
    " slot_at, answered_at, turn_id, detail";

std::optional<std::string> OptText(const Statement& st, int col) {
  if (st.IsNull(col)) return std::nullopt;
  return st.Text(col);
}

AskRecord ReadAsk(const Statement& st) {
  AskRecord r;
  r.id = st.Int64(0);
  r.call_id = st.Text(1);
  r.direction = st.Text(2) == "ask_builder" ? AskDirection::kToBuilder : AskDirection::kToPulse;
  r.caller = st.Text(3);
  r.session = st.Text(4);
  r.account = st.Text(5);
  r.owner_relay = st.Int64(6) != 0;
  r.thread_id = st.Text(7);
  r.round = static_cast<int>(st.Int64(8));
  r.kind = st.Text(9);
  r.target_session = st.Text(10);
  r.message = st.Text(11);
  r.status = st.Text(12);
  r.answer = st.Text(13);
  r.lines.decision = OptText(st, 14);
  r.lines.question = OptText(st, 15);
  if (!st.IsNull(16)) r.lines.owner_needed = st.Int64(16) != 0;
  r.lines.owner_needed_why = st.Text(17);
  r.thread_open = st.Int64(18) != 0;
  r.error = st.Text(19);
  r.created_at = st.Time(20).value_or(0);
  r.started_at = st.Time(21);
  r.slot_at = st.Time(22);
  r.answered_at = st.Time(23);
  r.turn_id = st.Int64(24);
  Result<json> detail = ParseJsonBounded(st.Text(25), "pulse_asks.detail");
  if (detail.ok() && detail->is_object()) r.detail = *detail;
  return r;
}

Status CheckText(const std::string& text, size_t cap, const char* what, bool required) {
  if (required && text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument(std::string(what) + ": empty");
  }
  if (!IsValidUtf8(text)) return Status::InvalidArgument(std::string(what) + ": not valid UTF-8");
  if (text.size() > cap) {
    return Status::InvalidArgument(std::string(what) + ": longer than " + std::to_string(cap) + " bytes");
  }
  return Status::OK();
}

std::string LastLine(const std::string& s) {
  size_t e = s.find_last_not_of(" \t\r\n");
  if (e == std::string::npos) return "";
  size_t b = s.rfind('\n', e);
  return s.substr(b == std::string::npos ? 0 : b + 1, e - (b == std::string::npos ? 0 : b + 1) + 1);
}

}  // namespace

const char* AskDirectionName(AskDirection d) { return d == AskDirection::kToBuilder ? "ask_builder" : "ask_pulse"; }

std::string ThreadIdPrefix(const std::string& workflow) { return "th-" + Sha256Hex(workflow).substr(0, 8) + "-"; }

json AskRecord::ToJson() const {
  json out = {{"call_id", call_id},   {"direction", AskDirectionName(direction)},
              {"status", status},     {"caller", caller},
              {"session", session},   {"message", message},
              {"answer", answer},     {"created_at", FormatTime(created_at)}};
  if (!account.empty()) out["account"] = account;
  if (started_at) out["started_at"] = FormatTime(*started_at);
  if (answered_at) out["answered_at"] = FormatTime(*answered_at);
  if (slot_at && status == "queued") out["slot_at"] = FormatTime(*slot_at);
  if (!error.empty()) out["error"] = error;
  if (turn_id) out["turn_id"] = turn_id;
  if (direction == AskDirection::kToBuilder) {
    out["kind"] = kind;
    out["builder_session_id"] = target_session.empty() ? json(nullptr) : json(target_session);
    for (auto it = detail.begin(); it != detail.end(); ++it) {
      if (!out.contains(it.key())) out[it.key()] = it.value();
    }
    return out;
  }
  out["owner_relay"] = owner_relay;
  out["decision"] = lines.decided() ? json(*lines.decision) : json(nullptr);
  out["owner_needed"] = lines.decided() ? json(*lines.owner_needed) : json(nullptr);
  if (lines.decided() && !lines.owner_needed_why.empty()) out["owner_needed_why"] = lines.owner_needed_why;
  std::string q;
  if (status == "answered" && !lines.decided()) q = lines.question ? *lines.question : LastLine(answer);
  out["pulse_question"] = q.empty() ? json(nullptr) : json(q);
  out["thread_id"] = thread_id;
  out["round"] = round;
  out["max_rounds"] = kThreadMaxRounds;
  out["thread_open"] = thread_open;
  out["next"] = Next();
  return out;
}

json AskThread::ToJson() const {
  json out = {{"thread_id", id}, {"caller", caller}, {"session", session}, {"rounds", rounds},
              {"open", open},    {"opened_at", FormatTime(opened_at)}};
  if (!decision.empty()) out["decision"] = decision;
  if (closed_at) out["closed_at"] = FormatTime(*closed_at);
  return out;
}

Status EnsureAsksSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_asks ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " call_id TEXT NOT NULL UNIQUE,"
       " direction TEXT NOT NULL,"
       " caller TEXT NOT NULL DEFAULT '',"
       " session TEXT NOT NULL DEFAULT '',"
       " account TEXT NOT NULL DEFAULT '',"
       " owner_relay INTEGER NOT NULL DEFAULT 0,"
       " thread_id TEXT NOT NULL DEFAULT '',"
       " round INTEGER NOT NULL DEFAULT 0,"
       " kind TEXT NOT NULL DEFAULT '',"
       " target_session TEXT NOT NULL DEFAULT '',"
       " message TEXT NOT NULL DEFAULT '',"
       " status TEXT NOT NULL,"
       " answer TEXT NOT NULL DEFAULT '',"
       " decision TEXT,"
       " question TEXT,"
       " owner_needed INTEGER,"
       " owner_needed_why TEXT NOT NULL DEFAULT '',"
       " thread_open INTEGER NOT NULL DEFAULT 0,"
       " error TEXT NOT NULL DEFAULT '',"
       " created_at TEXT NOT NULL,"
       " started_at TEXT NOT NULL DEFAULT '',"
       " slot_at TEXT NOT NULL DEFAULT '',"
       " answered_at TEXT NOT NULL DEFAULT '',"
       " turn_id INTEGER NOT NULL DEFAULT 0,"
       " detail TEXT NOT NULL DEFAULT '{}');"
       "CREATE INDEX IF NOT EXISTS pulse_asks_started ON pulse_asks(direction, started_at);"
       "CREATE INDEX IF NOT EXISTS pulse_asks_thread ON pulse_asks(thread_id, round);"
       "CREATE TABLE IF NOT EXISTS pulse_ask_threads ("
       " thread_id TEXT PRIMARY KEY,"
       " caller TEXT NOT NULL,"
       " session TEXT NOT NULL,"
       " rounds INTEGER NOT NULL DEFAULT 0,"
       " open INTEGER NOT NULL DEFAULT 1,"
       " decision TEXT NOT NULL DEFAULT '',"
       " opened_at TEXT NOT NULL,"
       " closed_at TEXT NOT NULL DEFAULT '');"},
  };
  return ApplyMigrations(db, "asks", kMigrations);
}

Result<std::optional<int64_t>> Asks::NextSlotAt(AskDirection direction, int64_t now) {
  // The rounds that started within the hour, oldest first: the k-th queued
  // ask takes the slot the k-th of them frees.
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT started_at FROM pulse_asks WHERE direction = ? AND started_at > ? ORDER BY started_at"));
  st.Bind(1, AskDirectionName(direction)).BindTime(2, now - kAskWindowSeconds);
  std::vector<int64_t> started;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    if (std::optional<int64_t> t = st.Time(0)) started.push_back(*t);
  }
  if (static_cast<int>(started.size()) < kAsksPerHour) return std::optional<int64_t>();
  PULSE_ASSIGN_OR_RETURN(Statement q, db_.Prepare("SELECT COUNT(*) FROM pulse_asks WHERE direction = ? AND status = 'queued'"));
  q.Bind(1, AskDirectionName(direction));
  PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
  size_t queued = row ? static_cast<size_t>(q.Int64(0)) : 0;
  size_t k = started.size() - kAsksPerHour + queued;
  int64_t at = k < started.size() ? started[k] + kAskWindowSeconds : now + kAskWindowSeconds;
  return std::optional<int64_t>(at);
}

Result<AskRecord> Asks::Insert(AskRecord r, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement ins, db_.Prepare(
      "INSERT INTO pulse_asks(call_id, direction, caller, session, account, owner_relay, thread_id, round, kind,"
      " target_session, message, status, thread_open, created_at, started_at, slot_at, detail)"
      " VALUES('', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  ins.Bind(1, AskDirectionName(r.direction)).Bind(2, r.caller).Bind(3, r.session).Bind(4, r.account)
      .Bind(5, int64_t{r.owner_relay}).Bind(6, r.thread_id).Bind(7, int64_t{r.round}).Bind(8, r.kind)
      .Bind(9, r.target_session).Bind(10, r.message).Bind(11, r.status).Bind(12, int64_t{r.thread_open})
      .BindTime(13, now).Bind(14, r.started_at ? FormatTime(*r.started_at) : "")
      .Bind(15, r.slot_at ? FormatTime(*r.slot_at) : "").Bind(16, r.detail.dump());
  PULSE_RETURN_IF_ERROR(ins.Run());
  r.id = db_.LastInsertRowId();
  r.call_id = "ask-" + std::to_string(r.id);
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare("UPDATE pulse_asks SET call_id = ? WHERE id = ?"));
  up.Bind(1, r.call_id).Bind(2, r.id);
  PULSE_RETURN_IF_ERROR(up.Run());
  r.created_at = now;
  return r;
}

Result<AskRecord> Asks::OpenAskPulse(const NewAskPulse& ask, int64_t now) {
  if (ask.caller != "builder" && ask.caller != "run" && ask.caller != "step" && ask.caller != "bot") {
    return Status::InvalidArgument("caller: \"" + ask.caller + "\" is not one of builder, run, step, bot");
  }
  PULSE_RETURN_IF_ERROR(CheckText(ask.session, 200, "session", true));
  PULSE_RETURN_IF_ERROR(CheckText(ask.account, 200, "account", false));
  PULSE_RETURN_IF_ERROR(CheckText(ask.message, kMaxAskMessageBytes, "message", true));
  PULSE_RETURN_IF_ERROR(CheckText(ask.thread_id, 100, "thread_id", false));
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  AskRecord r;
  r.direction = AskDirection::kToPulse;
  r.caller = ask.caller;
  r.session = ask.session;
  r.account = ask.account;
  r.owner_relay = ask.owner_relay;
  r.message = ask.message;
  r.thread_open = true;
  if (!ask.thread_id.empty()) {
    const std::string& t = ask.thread_id;
    if (t.rfind(ThreadIdPrefix(workflow_), 0) != 0) {
      if (t.rfind("th-", 0) == 0 && t.size() > 12 && t[11] == '-') {
        return Status::Refused("thread_id: " + t + " belongs to another workflow's Pulse, not " + workflow_ + "'s");
      }
      return Status::NotFound("thread_id: " + t + ": no such thread");
    }
    PULSE_ASSIGN_OR_RETURN(AskThread th, Thread(t));
    if (th.session != ask.session || th.caller != ask.caller) {
      return Status::Refused("thread_id: " + t + " was opened by another caller; open a new thread");
    }
    if (th.rounds >= kThreadMaxRounds) {
      return Status::Refused("thread_id: " + t + ": round " + std::to_string(th.rounds + 1) + " refused; a thread has at most " +
                             std::to_string(kThreadMaxRounds) + " rounds");
    }
    if (!th.open) {
      return Status::Refused("thread_id: " + t + " is closed (" +
                             (th.decision.empty() ? "after " + std::to_string(th.rounds) + " rounds" : "decided: " + th.decision) +
                             "); open a new thread for a new topic");
    }
    r.thread_id = t;
    r.round = th.rounds + 1;
    PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare("UPDATE pulse_ask_threads SET rounds = ? WHERE thread_id = ?"));
    up.Bind(1, int64_t{r.round}).Bind(2, t);
    PULSE_RETURN_IF_ERROR(up.Run());
  } else {
    PULSE_ASSIGN_OR_RETURN(int64_t n, db_.QueryInt64("SELECT COUNT(*) FROM pulse_ask_threads"));
    r.thread_id = ThreadIdPrefix(workflow_) + std::to_string(n + 1);
    r.round = 1;
    PULSE_ASSIGN_OR_RETURN(Statement ins, db_.Prepare(
        "INSERT INTO pulse_ask_threads(thread_id, caller, session, rounds, open, opened_at) VALUES(?, ?, ?, 1, 1, ?)"));
    ins.Bind(1, r.thread_id).Bind(2, ask.caller).Bind(3, ask.session).BindTime(4, now);
    PULSE_RETURN_IF_ERROR(ins.Run());
  }
  PULSE_ASSIGN_OR_RETURN(std::optional<int64_t> slot, NextSlotAt(AskDirection::kToPulse, now));
  if (slot) {
    r.status = "queued";
    r.slot_at = slot;
  } else {
    r.status = "running";
    r.started_at = now;
  }
  PULSE_ASSIGN_OR_RETURN(AskRecord out, Insert(r, now));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return out;
}

Result<AskRecord> Asks::OpenAskBuilder(const std::string& pulse_session, const std::string& kind,
                                       const std::string& message, const json& detail, int64_t now) {
  PULSE_RETURN_IF_ERROR(CheckText(message, kMaxAskMessageBytes, "message", true));
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(std::optional<int64_t> slot, NextSlotAt(AskDirection::kToBuilder, now));
  if (slot) {
    return Status::Refused("ask_builder: " + std::to_string(kAsksPerHour) + " asks to the Builder chat started in the "
                           "last hour; the next slot frees at " + FormatTime(*slot));
  }
  AskRecord r;
  r.direction = AskDirection::kToBuilder;
  r.caller = "pulse";
  r.session = pulse_session;
  r.kind = kind;
  r.message = message;
  r.status = "running";
  r.started_at = now;
  r.detail = detail.is_object() ? detail : json::object();
  PULSE_ASSIGN_OR_RETURN(AskRecord out, Insert(r, now));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return out;
}

Result<bool> Asks::StartIfSlotFree(const std::string& call_id, int64_t now) {
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(AskRecord r, Get(call_id));
  if (r.status != "queued") return false;
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT COUNT(*) FROM pulse_asks WHERE direction = ? AND started_at > ?"));
  st.Bind(1, AskDirectionName(r.direction)).BindTime(2, now - kAskWindowSeconds);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (row && st.Int64(0) >= kAsksPerHour) return false;
  // The oldest queued ask goes first.
  PULSE_ASSIGN_OR_RETURN(Statement first, db_.Prepare(
      "SELECT MIN(id) FROM pulse_asks WHERE direction = ? AND status = 'queued'"));
  first.Bind(1, AskDirectionName(r.direction));
  PULSE_ASSIGN_OR_RETURN(bool f, first.Step());
  if (f && first.Int64(0) != r.id) return false;
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_asks SET status = 'running', started_at = ?, slot_at = '' WHERE id = ? AND status = 'queued'"));
  up.BindTime(1, now).Bind(2, r.id);
  PULSE_RETURN_IF_ERROR(up.Run());
  // The tick and a caller asking again may race for one queued ask: only
  // the one whose update took it starts its turn.
  const bool taken = db_.Changes() > 0;
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return taken;
}

Result<std::string> Asks::OldestQueued(AskDirection direction) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT call_id FROM pulse_asks WHERE direction = ? AND status = 'queued' ORDER BY id LIMIT 1"));
  st.Bind(1, AskDirectionName(direction));
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Text(0) : std::string();
}

Result<AskRecord> Asks::Get(const std::string& call_id) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string("SELECT ") + kAskColumns + " FROM pulse_asks WHERE call_id = ?"));
  st.Bind(1, call_id);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("call_id: " + call_id + ": no such ask");
  return ReadAsk(st);
}

Result<AskRecord> Asks::Load(const std::string& call_id, const std::string& session) {
  PULSE_ASSIGN_OR_RETURN(AskRecord r, Get(call_id));
  if (r.session != session) return Status::Refused("call_id: " + call_id + " was asked by another caller");
  return r;
}

Result<AskThread> Asks::Thread(const std::string& thread_id) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT thread_id, caller, session, rounds, open, decision, opened_at, closed_at FROM pulse_ask_threads"
      " WHERE thread_id = ?"));
  st.Bind(1, thread_id);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("thread_id: " + thread_id + ": no such thread");
  AskThread t;
  t.id = st.Text(0);
  t.caller = st.Text(1);
  t.session = st.Text(2);
  t.rounds = static_cast<int>(st.Int64(3));
  t.open = st.Int64(4) != 0;
  t.decision = st.Text(5);
  t.opened_at = st.Time(6).value_or(0);
  t.closed_at = st.Time(7);
  return t;
}

Status Asks::BindTurnSession(const std::string& call_id, const std::string& pulse_session) {
  PULSE_ASSIGN_OR_RETURN(AskRecord r, Get(call_id));
  json detail = r.detail;
  detail["pulse_session"] = pulse_session;
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare("UPDATE pulse_asks SET detail = ? WHERE id = ?"));
  up.Bind(1, detail.dump()).Bind(2, r.id);
  return up.Run();
}

Status Asks::FinishAskPulse(const std::string& call_id, int64_t turn_id, const std::string& reply, int64_t now) {
  PULSE_RETURN_IF_ERROR(CheckText(reply, 64000, "reply", false));
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(AskRecord r, Get(call_id));
  if (r.finished()) return Status::Conflict("call_id: " + call_id + " has already ended (" + r.status + ")");
  DecisionLines lines = ParseDecisionLines(reply);
  const bool open = !lines.decided() && r.round < kThreadMaxRounds;
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_asks SET status = 'answered', answer = ?, decision = ?, question = ?, owner_needed = ?,"
      " owner_needed_why = ?, thread_open = ?, answered_at = ?, turn_id = ? WHERE id = ?"));
  up.Bind(1, reply);
  if (lines.decided()) up.Bind(2, *lines.decision); else up.BindNull(2);
  if (lines.question) up.Bind(3, *lines.question); else up.BindNull(3);
  if (lines.decided()) up.Bind(4, int64_t{*lines.owner_needed}); else up.BindNull(4);
  up.Bind(5, lines.owner_needed_why).Bind(6, int64_t{open}).BindTime(7, now).Bind(8, turn_id).Bind(9, r.id);
  PULSE_RETURN_IF_ERROR(up.Run());
  if (!open) {
    PULSE_ASSIGN_OR_RETURN(Statement close, db_.Prepare(
        "UPDATE pulse_ask_threads SET open = 0, decision = ?, closed_at = ? WHERE thread_id = ?"));
    close.Bind(1, lines.decided() ? *lines.decision : std::string()).BindTime(2, now).Bind(3, r.thread_id);
    PULSE_RETURN_IF_ERROR(close.Run());
  }
  return tx.Commit();
}

Status Asks::FinishAsk(const std::string& call_id, const std::string& status, const std::string& answer,
                       const std::string& error, const json& detail, int64_t now) {
  PULSE_RETURN_IF_ERROR(CheckText(answer, 64000, "answer", false));
  PULSE_RETURN_IF_ERROR(CheckText(error, 8000, "error", false));
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(AskRecord r, Get(call_id));
  if (r.finished()) return Status::Conflict("call_id: " + call_id + " has already ended (" + r.status + ")");
  json merged = r.detail;
  if (detail.is_object()) merged.update(detail);
  // A round that failed leaves its thread open: the caller may ask again in it.
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_asks SET status = ?, answer = ?, error = ?, answered_at = ?, detail = ?,"
      " thread_open = CASE WHEN thread_id = '' THEN 0 ELSE (round < ?) END WHERE id = ?"));
  up.Bind(1, status).Bind(2, answer).Bind(3, error).BindTime(4, now).Bind(5, merged.dump())
      .Bind(6, int64_t{kThreadMaxRounds}).Bind(7, r.id);
  PULSE_RETURN_IF_ERROR(up.Run());
  return tx.Commit();
}

Result<int> Asks::RecoverInterrupted(int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_asks SET status = 'interrupted', error = 'the server stopped before this ask was answered',"
      " answered_at = ?, thread_open = CASE WHEN thread_id = '' THEN 0 ELSE (round < ?) END WHERE status = 'running'"));
  up.BindTime(1, now).Bind(2, int64_t{kThreadMaxRounds});
  PULSE_RETURN_IF_ERROR(up.Run());
  return db_.Changes();
}

Result<std::vector<AskRecord>> Asks::List(std::optional<AskDirection> direction, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string("SELECT ") + kAskColumns +
                                                  " FROM pulse_asks WHERE (?1 = '' OR direction = ?1) ORDER BY id DESC LIMIT ?2"));
  st.Bind(1, direction ? AskDirectionName(*direction) : "").Bind(2, int64_t{limit});
  return ReadRows(st, ReadAsk);
}

Result<std::vector<AskRecord>> Asks::BuilderAnswersSince(int64_t since, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string("SELECT ") + kAskColumns +
                                                  " FROM pulse_asks WHERE direction = 'ask_builder' AND answered_at > ?"
                                                  " ORDER BY answered_at DESC, id DESC LIMIT ?"));
  st.BindTime(1, since).Bind(2, int64_t{limit});
  std::vector<AskRecord> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.insert(out.begin(), ReadAsk(st));
  }
  return out;
}

Result<int64_t> QueuedAskCount(Db& db) {
  return db.QueryInt64("SELECT COUNT(*) FROM pulse_asks WHERE status = 'queued'");
}

}  // namespace pulse

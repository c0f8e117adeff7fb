#include "core/autonomy/tool_sessions.h"

#include <atomic>

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>

#include "core/store/schema.h"
#include "core/base/sha256.h"
#include "core/base/time_util.h"

namespace pulse {

// ---------------------------------------------------------------- turn kinds

const char* TurnKindName(TurnKind kind) {
  switch (kind) {
    case TurnKind::kGoalCheck: return "goal_check";
    case TurnKind::kGoalWork: return "goal_work";
    case TurnKind::kGoalWorkReceipt: return "goal_work_receipt";
    case TurnKind::kAskPulse: return "ask_pulse";
    case TurnKind::kRunFailed: return "run_failed";
    case TurnKind::kBuilderQuestion: return "builder_question";
    case TurnKind::kBuilderFix: return "builder_fix";
    case TurnKind::kQaFix: return "qa_fix";
    case TurnKind::kWorkflowStep: return "workflow_step";
    case TurnKind::kWorkflowReview: return "workflow_review";
    case TurnKind::kHousekeeping: return "housekeeping";
  }
  return "unknown";
}

const std::vector<TurnKind>& AllTurnKinds() {
  static const std::vector<TurnKind> kinds = {
      TurnKind::kGoalCheck, TurnKind::kGoalWork,        TurnKind::kGoalWorkReceipt, TurnKind::kAskPulse,
      TurnKind::kRunFailed, TurnKind::kBuilderQuestion, TurnKind::kBuilderFix,      TurnKind::kQaFix,
      TurnKind::kWorkflowStep, TurnKind::kWorkflowReview, TurnKind::kHousekeeping};
  return kinds;
}

Result<TurnKind> ParseTurnKind(const std::string& text) {
  std::string t;
  for (char c : text) {
    if (c == '-' || c == ' ') c = '_';
    t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (t == "strategic_review") return TurnKind::kGoalWork;  // the older name of the Goal Work turn
  for (TurnKind k : AllTurnKinds()) {
    if (t == TurnKindName(k)) return k;
  }
  std::string list;
  for (TurnKind k : AllTurnKinds()) list += std::string(list.empty() ? "" : ", ") + TurnKindName(k);
  return Status::InvalidArgument("turn: unknown turn kind \"" + text + "\" (expected one of " + list + ")");
}

bool IsGuardedTurn(TurnKind kind) { return kind != TurnKind::kWorkflowStep; }

bool IsPulseTurn(TurnKind kind) {
  return kind == TurnKind::kGoalCheck || kind == TurnKind::kGoalWork || kind == TurnKind::kGoalWorkReceipt ||
         kind == TurnKind::kAskPulse || kind == TurnKind::kRunFailed;
}

namespace {

// The id's middle word and letter: schedule-<kind>--<hash>-<letter><N>.
// A Pulse turn's session opened here (for an external agent, or a turn that
// runs outside the conversation) is -o<N>: -g<N> is the conversation's
// generation N, an id only the conversation makes (ConversationSessionId),
// so no opened session can ever hold the id of a generation to come.
void SessionKindOf(TurnKind turn, std::string* kind, std::string* letter) {
  if (IsPulseTurn(turn)) { *kind = "goallead"; *letter = "o"; return; }
  switch (turn) {
    case TurnKind::kWorkflowStep: *kind = "step"; *letter = "s"; return;
    case TurnKind::kWorkflowReview: *kind = "review"; *letter = "r"; return;
    case TurnKind::kHousekeeping: *kind = "housekeeping"; *letter = "h"; return;
    // A QA fix run has its own session, apart from Pulse's conversation.
    case TurnKind::kQaFix: *kind = "qafix"; *letter = "x"; return;
    case TurnKind::kBuilderFix: *kind = "builder"; *letter = "f"; return;
    default: *kind = "builder"; *letter = "q"; return;
  }
}

}  // namespace

bool HasUnattendedPrefix(std::string_view session_id) {
  std::string t;
  for (char c : session_id) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    t.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (const char* p : {"schedule-", "pulse-", "bg-", "background-"}) {
    if (t.rfind(p, 0) == 0) return true;
  }
  return false;
}

// ---------------------------------------------------------------- storage

Status EnsureAutonomySchema(Db& db) {
  return ApplyMigrations(db, "autonomy", {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_tool_sessions ("
       " session_id TEXT PRIMARY KEY,"
       " token_sha256 TEXT NOT NULL UNIQUE,"  // never the token itself
       " turn TEXT NOT NULL,"
       " parent TEXT NOT NULL DEFAULT '',"
       " root TEXT NOT NULL,"
       " seq INTEGER NOT NULL,"
       " opened_at TEXT NOT NULL,"
       " closed_at TEXT NOT NULL DEFAULT '');"
       "CREATE INDEX IF NOT EXISTS pulse_tool_sessions_parent ON pulse_tool_sessions(parent);"
       "CREATE TABLE IF NOT EXISTS pulse_guard_decisions ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " session TEXT NOT NULL DEFAULT '',"
       " turn TEXT NOT NULL,"
       " tool TEXT NOT NULL,"
       " tool_normalized TEXT NOT NULL,"
       " tool_class TEXT NOT NULL,"
       " args_sha256 TEXT NOT NULL,"
       " allowed INTEGER NOT NULL,"
       " rule TEXT NOT NULL,"
       " level TEXT NOT NULL DEFAULT '',"
       " reason TEXT NOT NULL,"
       " at TEXT NOT NULL);"
       "CREATE INDEX IF NOT EXISTS pulse_guard_decisions_session ON pulse_guard_decisions(session, id);"},
  });
}

namespace {

// The fallback when getentropy fails (a kernel without getrandom): the
// system source random_device would read, without an exception to catch
// (the WASM build has none).
bool ReadUrandom(unsigned char* out, size_t n) {
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, out + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  return got == n;
}

}  // namespace

Result<std::string> NewSessionToken() {
  unsigned char bytes[32];
  if (::getentropy(bytes, sizeof bytes) != 0 && !ReadUrandom(bytes, sizeof bytes)) {
    return Status::IoError("session token: no system randomness available (getentropy and /dev/urandom both failed)");
  }
  return HexEncode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

namespace {

std::atomic<uint64_t> g_sessions_loaded{0};

Result<ToolSession> ReadSession(Statement& st) {
  g_sessions_loaded.fetch_add(1, std::memory_order_relaxed);
  ToolSession s;
  s.id = st.Text(0);
  PULSE_ASSIGN_OR_RETURN(s.turn, ParseTurnKind(st.Text(1)));
  s.parent = st.Text(2);
  s.root = st.Text(3);
  s.opened_at = st.Time(4).value_or(0);
  s.closed_at = st.Time(5);
  s.root_closed_at = st.Time(6);
  s.conversation = st.Int64(8) <= 0;
  return s;
}

// The session with its root's closed_at, so one read answers whether it may
// act, and its root's seq (0 for Pulse's own conversation sessions).
const char kSessionSelect[] =
    "SELECT s.session_id, s.turn, s.parent, s.root, s.opened_at, s.closed_at, COALESCE(r.closed_at, ''),"
    " s.token_sha256, COALESCE(r.seq, s.seq)"
    " FROM pulse_tool_sessions s LEFT JOIN pulse_tool_sessions r ON r.session_id = s.root";

}  // namespace

bool SessionBelongsToWorkflow(const std::string& session_id, const std::string& workflow) {
  std::string hash = "--" + Sha256Hex(workflow).substr(0, 16) + "-";
  for (const char* kind : {"schedule-goallead", "schedule-builder", "schedule-step", "schedule-qafix", "schedule-review",
                           "schedule-housekeeping"}) {
    std::string prefix = kind + hash;
    if (session_id.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

uint64_t ToolSessionsLoaded() { return g_sessions_loaded.load(std::memory_order_relaxed); }

Result<ToolSession> LoadToolSession(Db& db, const std::string& session_id) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string(kSessionSelect) + " WHERE s.session_id = ?"));
  st.Bind(1, session_id);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("session \"" + session_id + "\": no such session");
  return ReadSession(st);
}

Result<ToolSession> ResolveSessionToken(Db& db, const std::string& token) {
  if (token.empty()) return Status::InvalidArgument("token: missing");
  return ResolveSessionTokenHash(db, Sha256Hex(token));
}

Result<ToolSession> ResolveSessionTokenHash(Db& db, const std::string& token_sha256) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string(kSessionSelect) + " WHERE s.token_sha256 = ?"));
  st.Bind(1, token_sha256);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("token: no session has this token");
  return ReadSession(st);
}

Result<std::vector<std::string>> ListSessionTokenHashes(Db& db) {
  std::vector<std::string> out;
  PULSE_ASSIGN_OR_RETURN(int64_t tables, db.QueryInt64(
      "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'pulse_tool_sessions'"));
  if (tables == 0) return out;
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare("SELECT token_sha256 FROM pulse_tool_sessions"));
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(st.Text(0));
  }
  return out;
}

Result<ToolSession> AuthenticateSession(Db& db, const std::string& session_id, const std::string& token) {
  const std::string bad = "session \"" + session_id + "\": missing or wrong session token";
  if (token.empty()) return Status::Unauthenticated(bad);
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string(kSessionSelect) + " WHERE s.session_id = ?"));
  st.Bind(1, session_id);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row || !ConstantTimeEquals(st.Text(7), Sha256Hex(token))) return Status::Unauthenticated(bad);
  return ReadSession(st);
}

Result<OpenedSession> OpenToolSession(Db& db, const std::string& workflow, TurnKind turn, const std::string& parent,
                                      int64_t now) {
  PULSE_ASSIGN_OR_RETURN(std::string token, NewSessionToken());
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  OpenedSession out;
  out.token = token;
  ToolSession& s = out.session;
  s.opened_at = now;
  std::string hash = Sha256Hex(workflow).substr(0, 16);
  int64_t seq = 0;
  if (!parent.empty()) {
    Result<ToolSession> p = LoadToolSession(db, parent);
    if (!p.ok()) return p.status().WithContext("parent");
    if (!p->open()) return Status::Refused("parent: session \"" + parent + "\" is closed; its helpers cannot open");
    // A helper is held like its root; a step the turn starts is not a Pulse turn.
    s.turn = turn == TurnKind::kWorkflowStep ? TurnKind::kWorkflowStep : p->turn;
    s.parent = parent;
    s.root = p->root;
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT COALESCE(MAX(seq), 0) + 1 FROM pulse_tool_sessions WHERE parent = ?"));
    q.Bind(1, parent);
    PULSE_ASSIGN_OR_RETURN(bool r, q.Step());
    seq = r ? q.Int64(0) : 1;
    s.id = parent + (s.turn == TurnKind::kWorkflowStep && p->turn != TurnKind::kWorkflowStep ? "--s" : "--h") +
           std::to_string(seq);
  } else {
    s.turn = turn;
    PULSE_ASSIGN_OR_RETURN(int64_t next, db.QueryInt64("SELECT COALESCE(MAX(seq), 0) + 1 FROM pulse_tool_sessions WHERE parent = ''"));
    seq = next;
    std::string kind, letter;
    SessionKindOf(turn, &kind, &letter);
    // The conversation's own sessions (seq <= 0, OpenConversationTurnSession)
    // keep their ids: an opened session takes the next free number.
    PULSE_ASSIGN_OR_RETURN(Statement taken, db.Prepare("SELECT 1 FROM pulse_tool_sessions WHERE session_id = ?"));
    for (;; ++seq) {
      s.id = "schedule-" + kind + "--" + hash + "-" + letter + std::to_string(seq);
      taken.Reset();
      taken.Bind(1, s.id);
      PULSE_ASSIGN_OR_RETURN(bool exists, taken.Step());
      if (!exists) break;
    }
    s.root = s.id;
  }
  PULSE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(
      "INSERT INTO pulse_tool_sessions(session_id, token_sha256, turn, parent, root, seq, opened_at)"
      " VALUES(?, ?, ?, ?, ?, ?, ?)"));
  ins.Bind(1, s.id).Bind(2, Sha256Hex(token)).Bind(3, TurnKindName(s.turn)).Bind(4, s.parent).Bind(5, s.root)
      .Bind(6, seq).BindTime(7, s.opened_at);
  PULSE_RETURN_IF_ERROR(ins.Run());
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return out;
}

Result<OpenedSession> OpenConversationTurnSession(Db& db, const std::string& session_id, TurnKind turn, int64_t now) {
  if (!IsPulseTurn(turn)) return Status::InvalidArgument(std::string("turn: \"") + TurnKindName(turn) + "\" is not a Pulse turn");
  PULSE_ASSIGN_OR_RETURN(std::string token, NewSessionToken());
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT seq, closed_at FROM pulse_tool_sessions WHERE session_id = ?"));
  q.Bind(1, session_id);
  PULSE_ASSIGN_OR_RETURN(bool exists, q.Step());
  if (exists && q.Int64(0) > 0 && q.Text(1).empty()) {
    // Only a database from before opened sessions took -o<N> ids can hold one.
    return Status::Conflict("session \"" + session_id + "\": an open session opened for an external agent holds this id;"
                            " `pulse session close --session " + session_id + "` frees it");
  }
  const std::string at = FormatTime(now);
  Statement up;
  if (exists) {
    // The same session, a new turn: a fresh token (the last turn's stops
    // working), the new turn's kind, open again.
    PULSE_ASSIGN_OR_RETURN(up, db.Prepare(
        "UPDATE pulse_tool_sessions SET token_sha256 = ?, turn = ?, opened_at = ?, closed_at = '', seq = 0"
        " WHERE session_id = ?"));
    up.Bind(1, Sha256Hex(token)).Bind(2, TurnKindName(turn)).Bind(3, at).Bind(4, session_id);
  } else {
    PULSE_ASSIGN_OR_RETURN(up, db.Prepare(
        "INSERT INTO pulse_tool_sessions(session_id, token_sha256, turn, parent, root, seq, opened_at)"
        " VALUES(?, ?, ?, '', ?, 0, ?)"));
    up.Bind(1, session_id).Bind(2, Sha256Hex(token)).Bind(3, TurnKindName(turn)).Bind(4, session_id).Bind(5, at);
  }
  PULSE_RETURN_IF_ERROR(up.Run());
  PULSE_RETURN_IF_ERROR(tx.Commit());
  OpenedSession out;
  out.token = token;
  out.session.id = session_id;
  out.session.turn = turn;
  out.session.root = session_id;
  out.session.opened_at = now;
  return out;
}

Result<std::vector<std::string>> CloseToolSession(Db& db, const std::string& session_id, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(ToolSession s, LoadToolSession(db, session_id));
  (void)s;
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT t.session_id FROM pulse_tool_sessions t JOIN tree ON t.parent = tree.id)"
      " SELECT session_id FROM pulse_tool_sessions WHERE session_id IN (SELECT id FROM tree) AND closed_at = ''"
      " ORDER BY session_id"));
  q.Bind(1, session_id);
  std::vector<std::string> closed;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    closed.push_back(q.Text(0));
  }
  PULSE_ASSIGN_OR_RETURN(Statement up, db.Prepare("UPDATE pulse_tool_sessions SET closed_at = ? WHERE session_id = ? AND closed_at = ''"));
  for (const std::string& id : closed) {
    up.Reset();
    up.BindTime(1, now).Bind(2, id);
    PULSE_RETURN_IF_ERROR(up.Run());
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return closed;
}

Status AppendGuardRecord(Db& db, const GuardRecord& r) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "INSERT INTO pulse_guard_decisions(session, turn, tool, tool_normalized, tool_class, args_sha256, allowed,"
      " rule, level, reason, at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  st.Bind(1, r.session).Bind(2, r.turn).Bind(3, r.tool).Bind(4, r.tool_normalized).Bind(5, r.tool_class)
      .Bind(6, r.args_sha256).Bind(7, int64_t{r.allowed ? 1 : 0}).Bind(8, r.rule).Bind(9, r.level)
      .Bind(10, r.reason).BindTime(11, r.at);
  return st.Run();
}

Result<std::vector<GuardRecord>> ListGuardDecisions(Db& db, const std::string& session, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT id, session, turn, tool, args_sha256, allowed, rule, level, reason, at, tool_normalized, tool_class"
      " FROM pulse_guard_decisions"
      " WHERE (?1 = '' OR session = ?1) ORDER BY id LIMIT ?2"));
  st.Bind(1, session).Bind(2, int64_t{limit});
  std::vector<GuardRecord> out;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    GuardRecord r;
    r.id = st.Int64(0);
    r.session = st.Text(1);
    r.turn = st.Text(2);
    r.tool = st.Text(3);
    r.args_sha256 = st.Text(4);
    r.allowed = st.Int64(5) != 0;
    r.rule = st.Text(6);
    r.level = st.Text(7);
    r.reason = st.Text(8);
    r.at = st.Time(9).value_or(0);
    r.tool_normalized = st.Text(10);
    r.tool_class = st.Text(11);
    out.push_back(std::move(r));
  }
  return out;
}
}  // namespace pulse

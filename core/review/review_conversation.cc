#include "core/review/review_conversation.h"

#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

const char kColumns[] =
    "SELECT id, session, revision, trigger, pulse_run_id, text, reply, state, outcome, error, started_at, finished_at"
    " FROM pulse_review_turns";

ReviewTurn ReadTurn(const Statement& st) {
  ReviewTurn t;
  t.id = st.Int64(0);
  t.session = st.Text(1);
  t.revision = st.Text(2);
  t.trigger = st.Text(3);
  t.pulse_run_id = st.Text(4);
  t.text = st.Text(5);
  t.reply = st.Text(6);
  t.state = st.Text(7);
  t.outcome = st.Text(8);
  t.error = st.Text(9);
  t.started_at = st.Time(10).value_or(0);
  t.finished_at = st.Time(11).value_or(0);
  return t;
}

// Reads never create the table: a database copied before the first review
// (the browser's, opened as it is) simply has no turns yet.
Result<bool> HasTable(Db& db) {
  PULSE_ASSIGN_OR_RETURN(int64_t n, db.QueryInt64(
      "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'pulse_review_turns'"));
  return n > 0;
}

std::string Bounded(const std::string& text, size_t cap) { return std::string(Utf8Prefix(RepairUtf8(text), cap)); }

}  // namespace

json ReviewTurn::ToJson() const {
  json out = {{"id", id},           {"session", session}, {"revision", revision}, {"trigger", trigger},
              {"text", text},       {"reply", reply},     {"state", state},       {"outcome", outcome},
              {"started_at", FormatTime(started_at)}};
  if (!pulse_run_id.empty()) out["pulse_run_id"] = pulse_run_id;
  if (!error.empty()) out["error"] = error;
  if (finished_at) out["finished_at"] = FormatTime(finished_at);
  return out;
}

Result<int64_t> ReviewConversation::Begin(const std::string& session, const std::string& revision,
                                          const std::string& trigger, const std::string& pulse_run_id,
                                          const std::string& text, int64_t now) {
  if (session.empty()) return Status::InvalidArgument("review conversation: a turn needs its session");
  PULSE_ASSIGN_OR_RETURN(Statement ins, db_.Prepare(
      "INSERT INTO pulse_review_turns(session, revision, trigger, pulse_run_id, text, state, started_at)"
      " VALUES(?, ?, ?, ?, ?, 'running', ?)"));
  ins.Bind(1, session).Bind(2, revision).Bind(3, trigger).Bind(4, pulse_run_id)
      .Bind(5, Bounded(text, kReviewTextBytes)).BindTime(6, now);
  PULSE_RETURN_IF_ERROR(ins.Run());
  return db_.LastInsertRowId();
}

Status ReviewConversation::Finish(int64_t id, const std::string& state, const std::string& reply,
                                  const std::string& outcome, const std::string& error, int64_t now) {
  if (state != "completed" && state != "failed" && state != "interrupted") {
    return Status::InvalidArgument("review conversation: state \"" + state + "\" is not completed, failed or interrupted");
  }
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_review_turns SET state = ?, reply = ?, outcome = ?, error = ?, finished_at = ?"
      " WHERE id = ? AND state = 'running'"));
  up.Bind(1, state).Bind(2, Bounded(reply, kReviewReplyBytes)).Bind(3, outcome).Bind(4, Bounded(error, 4000))
      .BindTime(5, now).Bind(6, id);
  PULSE_RETURN_IF_ERROR(up.Run());
  if (db_.Changes() == 0) return Status::Conflict("review conversation: turn " + std::to_string(id) + " is not running");
  return Status::OK();
}

Result<int> ReviewConversation::RecoverInterrupted(int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement up, db_.Prepare(
      "UPDATE pulse_review_turns SET state = 'interrupted', outcome = CASE WHEN outcome = '' THEN 'unfinished'"
      " ELSE outcome END, error = 'the server stopped before this review finished', finished_at = ?"
      " WHERE state = 'running'"));
  up.BindTime(1, now);
  PULSE_RETURN_IF_ERROR(up.Run());
  return db_.Changes();
}

Result<std::vector<ReviewTurn>> ReviewConversation::Recent(int limit) {
  PULSE_ASSIGN_OR_RETURN(bool has, HasTable(db_));
  if (!has) return std::vector<ReviewTurn>();
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string(kColumns) + " ORDER BY id DESC LIMIT ?"));
  st.Bind(1, static_cast<int64_t>(limit));
  std::vector<ReviewTurn> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.insert(out.begin(), ReadTurn(st));
  }
  return out;
}

Result<json> ReviewConversation::ViewJson(int limit) {
  PULSE_ASSIGN_OR_RETURN(std::vector<ReviewTurn> turns, Recent(limit));
  PULSE_ASSIGN_OR_RETURN(bool has, HasTable(db_));
  int64_t total = 0;
  if (has) {
    PULSE_ASSIGN_OR_RETURN(total, db_.QueryInt64("SELECT COUNT(*) FROM pulse_review_turns"));
  }
  json list = json::array();
  for (const ReviewTurn& t : turns) list.push_back(t.ToJson());
  return json{{"title", kReviewConversationTitle}, {"workflow", workflow_}, {"turns", list}, {"total", total}};
}

}  // namespace pulse

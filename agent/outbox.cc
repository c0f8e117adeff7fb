#include "agent/outbox.h"

#include <algorithm>

#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

Result<int64_t> AddOutboxMessage(Db& db, const OutboxMessage& m, int64_t now) {
  if (m.kind.empty()) return Status::InvalidArgument("outbox message: kind is empty");
  if (m.text.empty()) return Status::InvalidArgument("outbox message: text is empty");
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "INSERT INTO pulse_outbox(kind, title, text, payload_json, pulse_run_id, created_at)"
      " VALUES(?, ?, ?, ?, ?, ?)"));
  json payload = m.payload.is_null() ? json::object() : m.payload;
  st.Bind(1, m.kind).Bind(2, m.title).Bind(3, m.text).Bind(4, payload.dump()).Bind(5, m.pulse_run_id)
      .Bind(6, FormatTime(now));
  PULSE_RETURN_IF_ERROR(st.Run());
  return db.LastInsertRowId();
}

Result<std::vector<OutboxMessage>> ListOutbox(Db& db, const OutboxQuery& q) {
  std::string sql =
      "SELECT id, kind, title, text, payload_json, pulse_run_id, created_at, delivered_at, delivery_error, attempts"
      " FROM pulse_outbox WHERE 1 = 1";
  if (q.undelivered_only) sql += " AND delivered_at = ''";
  if (q.undelivered_only && q.max_attempts > 0) sql += " AND attempts < :max_attempts";
  if (!q.kind.empty()) sql += " AND kind = :kind";
  if (!q.pulse_run_id.empty()) sql += " AND pulse_run_id = :run";
  sql += " ORDER BY id DESC LIMIT :limit";
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(sql));
  st.Bind(":max_attempts", static_cast<int64_t>(q.max_attempts));
  st.Bind(":kind", q.kind);
  st.Bind(":run", q.pulse_run_id);
  st.Bind(":limit", static_cast<int64_t>(q.limit > 0 ? q.limit : 200));
  std::vector<OutboxMessage> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    OutboxMessage m;
    m.id = st.Int64(0);
    m.kind = st.Text(1);
    m.title = st.Text(2);
    m.text = st.Text(3);
    m.payload = json::parse(st.Text(4), nullptr, false);
    if (m.payload.is_discarded()) m.payload = json::object();
    m.pulse_run_id = st.Text(5);
    m.created_at = st.Time(6).value_or(0);
    m.delivered_at = st.Time(7);
    m.delivery_error = st.Text(8);
    m.attempts = static_cast<int>(st.Int64(9));
    out.push_back(std::move(m));
  }
  // Newest `limit` were selected; hand them back oldest first.
  std::reverse(out.begin(), out.end());
  return out;
}

Status MarkOutboxDelivery(Db& db, int64_t id, bool delivered, const std::string& error, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "UPDATE pulse_outbox SET attempts = attempts + 1,"
      " delivered_at = CASE WHEN ?2 THEN ?3 ELSE delivered_at END,"
      " delivery_error = CASE WHEN ?2 THEN '' ELSE ?4 END"
      " WHERE id = ?1"));
  st.Bind(1, id).Bind(2, static_cast<int64_t>(delivered ? 1 : 0)).Bind(3, FormatTime(now)).Bind(4, error);
  PULSE_RETURN_IF_ERROR(st.Run());
  if (db.Changes() == 0) return Status::NotFound("outbox message " + std::to_string(id) + " does not exist");
  return Status::OK();
}

json OutboxMessageToJson(const OutboxMessage& m) {
  return json{{"id", m.id},
              {"kind", m.kind},
              {"title", m.title},
              {"text", m.text},
              {"payload", m.payload},
              {"pulse_run_id", m.pulse_run_id},
              {"created_at", FormatTime(m.created_at)},
              {"delivered_at", m.delivered_at ? FormatTime(*m.delivered_at) : std::string()},
              {"delivery_error", m.delivery_error},
              {"attempts", m.attempts}};
}

}  // namespace pulse

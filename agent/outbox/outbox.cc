#include "agent/outbox/outbox.h"

#include <algorithm>

#include "core/store/db_rows.h"
#include "core/base/json_limits.h"
#include "core/base/time_util.h"

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

namespace {

constexpr const char* kMessageColumns =
    "SELECT id, kind, title, text, payload_json, pulse_run_id, created_at, delivered_at, delivery_error, attempts"
    " FROM pulse_outbox";

OutboxMessage MessageRow(const Statement& st) {
  OutboxMessage m;
  m.id = st.Int64(0);
  m.kind = st.Text(1);
  m.title = st.Text(2);
  m.text = st.Text(3);
  m.payload = ParseJsonOrDiscarded(st.Text(4));
  if (m.payload.is_discarded()) m.payload = json::object();
  m.pulse_run_id = st.Text(5);
  m.created_at = st.Time(6).value_or(0);
  m.delivered_at = st.Time(7);
  m.delivery_error = st.Text(8);
  m.attempts = static_cast<int>(st.Int64(9));
  return m;
}

Result<std::optional<OutboxMessage>> OutboxMessageById(Db& db, int64_t id) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string(kMessageColumns) + " WHERE id = ?"));
  st.Bind(1, id);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<OutboxMessage>();
  OutboxMessage m = MessageRow(st);
  PULSE_ASSIGN_OR_RETURN(m.deliveries, DeliveriesOf(db, id));
  return std::optional<OutboxMessage>(std::move(m));
}

}  // namespace

Result<std::vector<OutboxMessage>> ListOutbox(Db& db, const OutboxQuery& q) {
  std::string sql = std::string(kMessageColumns) + " WHERE 1 = 1";
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
  PULSE_ASSIGN_OR_RETURN(std::vector<OutboxMessage> out, ReadRows(st, MessageRow));
  for (OutboxMessage& m : out) {
    PULSE_ASSIGN_OR_RETURN(m.deliveries, DeliveriesOf(db, m.id));
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
  json deliveries = json::array();
  for (const Delivery& d : m.deliveries) deliveries.push_back(d.ToJson());
  // A message with no delivery rows is one the delivery pass has not seen
  // yet, or one delivered before deliveries were kept per target.
  const char* overall = m.deliveries.empty() ? (m.delivered_at ? "delivered" : "queued")
                                             : DeliveryStateName(OverallDeliveryState(m.deliveries));
  return json{{"id", m.id},
              {"kind", m.kind},
              {"title", m.title},
              {"text", m.text},
              {"payload", m.payload},
              {"pulse_run_id", m.pulse_run_id},
              {"created_at", FormatTime(m.created_at)},
              {"delivered_at", m.delivered_at ? FormatTime(*m.delivered_at) : std::string()},
              {"delivery_error", m.delivery_error},
              {"attempts", m.attempts},
              {"delivery", overall},
              {"deliveries", deliveries}};
}

Result<std::vector<Delivery>> DeliveriesOf(Db& db, int64_t message_id) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT target, state, attempts, error, last_attempt_at, next_attempt_at, delivered_at, remote_id"
      " FROM pulse_outbox_delivery WHERE message_id = ? ORDER BY rowid"));
  st.Bind(1, message_id);
  std::vector<Delivery> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    Delivery d;
    d.message_id = message_id;
    d.target = st.Text(0);
    d.state = ParseDeliveryState(st.Text(1)).value_or(DeliveryState::kQueued);
    d.attempts = static_cast<int>(st.Int64(2));
    d.error = st.Text(3);
    d.last_attempt_at = st.Time(4);
    d.next_attempt_at = st.Time(5);
    d.delivered_at = st.Time(6);
    d.remote_id = st.Text(7);
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<OutboxMessage>> UnplannedOutbox(Db& db, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      // Apply messages go to the Builder chat (DeliverApplyMessages), never
      // to the owner's channels.
      "SELECT id FROM pulse_outbox o WHERE delivered_at = '' AND kind <> 'apply_message' AND NOT EXISTS"
      " (SELECT 1 FROM pulse_outbox_delivery d WHERE d.message_id = o.id) ORDER BY id LIMIT ?"));
  st.Bind(1, static_cast<int64_t>(limit));
  PULSE_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ReadRows(st, [](const Statement& row) { return row.Int64(0); }));
  std::vector<OutboxMessage> out;
  for (int64_t id : ids) {
    PULSE_ASSIGN_OR_RETURN(std::optional<OutboxMessage> m, OutboxMessageById(db, id));
    if (m) out.push_back(std::move(*m));
  }
  return out;
}

Status PlanDeliveries(Db& db, int64_t message_id, const std::vector<std::string>& targets, int64_t now) {
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  for (const std::string& target : targets) {
    const bool tab = target == kTabOnlyTarget;
    PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
        "INSERT OR IGNORE INTO pulse_outbox_delivery(message_id, target, state, error) VALUES(?, ?, ?, ?)"));
    st.Bind(1, message_id).Bind(2, target)
        .Bind(3, DeliveryStateName(tab ? DeliveryState::kNotSent : DeliveryState::kQueued))
        .Bind(4, tab ? "kept in the Pulse tab (no channel for this message)" : "");
    PULSE_RETURN_IF_ERROR(st.Run());
  }
  return tx.Commit();
}

Result<std::vector<DueDelivery>> DueDeliveries(Db& db, int64_t now, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT message_id FROM pulse_outbox_delivery WHERE state = 'queued'"
      " OR (state = 'retrying' AND next_attempt_at <= ?) GROUP BY message_id ORDER BY message_id LIMIT ?"));
  st.Bind(1, FormatTime(now)).Bind(2, static_cast<int64_t>(limit));
  PULSE_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ReadRows(st, [](const Statement& row) { return row.Int64(0); }));
  std::vector<DueDelivery> out;
  for (int64_t id : ids) {
    PULSE_ASSIGN_OR_RETURN(std::optional<OutboxMessage> m, OutboxMessageById(db, id));
    if (!m) continue;
    for (const Delivery& d : m->deliveries) {
      const bool due = d.state == DeliveryState::kQueued ||
                       (d.state == DeliveryState::kRetrying && d.next_attempt_at && *d.next_attempt_at <= now);
      if (due) out.push_back(DueDelivery{*m, d});
    }
  }
  return out;
}

Result<std::optional<int64_t>> NextRetryAt(Db& db) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT MIN(next_attempt_at) FROM pulse_outbox_delivery WHERE state = 'retrying'"));
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<int64_t>();
  return st.Time(0);
}

Status RecordDeliveryAttempt(Db& db, int64_t message_id, const std::string& target, const DeliveryAnswer& answer,
                             int64_t now) {
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(std::vector<Delivery> all, DeliveriesOf(db, message_id));
  auto it = std::find_if(all.begin(), all.end(), [&](const Delivery& d) { return d.target == target; });
  if (it == all.end()) {
    return Status::NotFound("outbox message " + std::to_string(message_id) + " has no delivery to " + target);
  }
  it->attempts += 1;
  it->last_attempt_at = now;
  it->error = answer.delivered ? "" : answer.error;
  it->next_attempt_at = answer.delivered ? std::nullopt : NextAttemptAt(answer, it->attempts, now);
  it->state = answer.delivered ? DeliveryState::kDelivered
              : it->next_attempt_at ? DeliveryState::kRetrying : DeliveryState::kFailed;
  if (answer.delivered) {
    it->delivered_at = now;
    it->remote_id = answer.remote_id;
  }
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "UPDATE pulse_outbox_delivery SET state = ?, attempts = ?, error = ?, last_attempt_at = ?,"
      " next_attempt_at = ?, delivered_at = ?, remote_id = ? WHERE message_id = ? AND target = ?"));
  st.Bind(1, DeliveryStateName(it->state)).Bind(2, static_cast<int64_t>(it->attempts)).Bind(3, it->error)
      .Bind(4, FormatTime(now)).Bind(5, it->next_attempt_at ? FormatTime(*it->next_attempt_at) : std::string())
      .Bind(6, it->delivered_at ? FormatTime(*it->delivered_at) : std::string()).Bind(7, it->remote_id)
      .Bind(8, message_id).Bind(9, target);
  PULSE_RETURN_IF_ERROR(st.Run());
  const bool all_done = OverallDeliveryState(all) == DeliveryState::kDelivered;
  PULSE_RETURN_IF_ERROR(MarkOutboxDelivery(db, message_id, all_done, answer.delivered ? "" : answer.error, now));
  return tx.Commit();
}

}  // namespace pulse

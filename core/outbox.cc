#include "core/outbox.h"

#include <algorithm>

#include "core/schema.h"
#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

Status EnsureOutboxSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_outbox ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " kind TEXT NOT NULL,"
       " title TEXT NOT NULL DEFAULT '',"
       " text TEXT NOT NULL,"
       " payload_json TEXT NOT NULL DEFAULT '{}',"
       " pulse_run_id TEXT NOT NULL DEFAULT '',"
       " created_at TEXT NOT NULL,"
       " delivered_at TEXT NOT NULL DEFAULT '',"
       " delivery_error TEXT NOT NULL DEFAULT '',"
       " attempts INTEGER NOT NULL DEFAULT 0);"
       "CREATE INDEX IF NOT EXISTS pulse_outbox_undelivered ON pulse_outbox(delivered_at, id);"
       "CREATE INDEX IF NOT EXISTS pulse_outbox_run ON pulse_outbox(pulse_run_id, id);"},
  };
  return ApplyMigrations(db, "outbox", kMigrations);
}

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
    m.created_at = st.Text(6);
    m.delivered_at = st.Text(7);
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
              {"created_at", m.created_at},
              {"delivered_at", m.delivered_at},
              {"delivery_error", m.delivery_error},
              {"attempts", m.attempts}};
}

namespace {

Status StringArg(const json& args, const char* method, const char* key, bool required, std::string* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(std::string(method) + ": \"" + key + "\" is required");
    return Status::OK();
  }
  if (!it->is_string()) return Status::InvalidArgument(std::string(method) + ": \"" + key + "\" must be a string");
  *out = it->get<std::string>();
  return Status::OK();
}

Result<json> Add(ApiContext& ctx, const json& args) {
  OutboxMessage m;
  PULSE_RETURN_IF_ERROR(StringArg(args, "outbox.add", "kind", true, &m.kind));
  PULSE_RETURN_IF_ERROR(StringArg(args, "outbox.add", "title", false, &m.title));
  PULSE_RETURN_IF_ERROR(StringArg(args, "outbox.add", "text", true, &m.text));
  PULSE_RETURN_IF_ERROR(StringArg(args, "outbox.add", "pulse_run_id", false, &m.pulse_run_id));
  auto p = args.find("payload");
  if (p != args.end() && !p->is_null()) {
    if (!p->is_object()) return Status::InvalidArgument("outbox.add: \"payload\" must be an object");
    m.payload = *p;
  }
  PULSE_ASSIGN_OR_RETURN(int64_t id, AddOutboxMessage(*ctx.db, m, ctx.env->NowSeconds()));
  return json{{"id", id}};
}

Result<json> List(ApiContext& ctx, const json& args) {
  OutboxQuery q;
  auto u = args.find("undelivered");
  if (u != args.end() && !u->is_null()) {
    if (!u->is_boolean()) return Status::InvalidArgument("outbox.list: \"undelivered\" must be true or false");
    q.undelivered_only = u->get<bool>();
  }
  PULSE_RETURN_IF_ERROR(StringArg(args, "outbox.list", "kind", false, &q.kind));
  PULSE_RETURN_IF_ERROR(StringArg(args, "outbox.list", "pulse_run_id", false, &q.pulse_run_id));
  for (const char* key : {"limit", "max_attempts"}) {
    auto it = args.find(key);
    if (it == args.end() || it->is_null()) continue;
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 10000) {
      return Status::InvalidArgument(std::string("outbox.list: \"") + key + "\" must be a whole number from 1 to 10000");
    }
    (std::string(key) == "limit" ? q.limit : q.max_attempts) = it->get<int>();
  }
  PULSE_ASSIGN_OR_RETURN(std::vector<OutboxMessage> messages, ListOutbox(*ctx.db, q));
  json out = json::array();
  for (const OutboxMessage& m : messages) out.push_back(OutboxMessageToJson(m));
  return json{{"messages", out}};
}

Result<json> Mark(ApiContext& ctx, const json& args) {
  auto id = args.find("id");
  if (id == args.end() || !id->is_number_integer()) return Status::InvalidArgument("outbox.mark: \"id\" must be a message id");
  auto d = args.find("delivered");
  if (d == args.end() || !d->is_boolean()) return Status::InvalidArgument("outbox.mark: \"delivered\" must be true or false");
  std::string error;
  PULSE_RETURN_IF_ERROR(StringArg(args, "outbox.mark", "error", false, &error));
  PULSE_RETURN_IF_ERROR(MarkOutboxDelivery(*ctx.db, id->get<int64_t>(), d->get<bool>(), error, ctx.env->NowSeconds()));
  return json{{"id", id->get<int64_t>()}, {"delivered", d->get<bool>()}};
}

}  // namespace

void AddOutboxApi(ApiRegistry& r) {
  r.Add("outbox.add", Add, "stores a message from Pulse to the owner (pulse_summary, pulse_reply) in the outbox");
  r.Add("outbox.list", List, "the outbox, oldest first (undelivered only on request)");
  r.Add("outbox.mark", Mark, "records one delivery attempt of an outbox message");
}

}  // namespace pulse

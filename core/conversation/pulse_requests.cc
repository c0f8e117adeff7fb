#include "core/conversation/pulse_requests.h"

#include "core/base/json_limits.h"
#include "core/base/one_line.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

constexpr size_t kMaxText = 4000;
const char* kKindNames[] = {"qa", "fast", "builder_ask"};

const char* kColumns = "id, kind, what, why, session, status, created_at, taken_at, taken_by, result, detail";

PulseRequest Row(const Statement& q) {
  PulseRequest r;
  r.id = q.Int64(0);
  Result<RequestKind> kind = ParseRequestKind(q.Text(1));
  r.kind = kind.ok() ? *kind : RequestKind::kQa;
  r.what = q.Text(2);
  r.why = q.Text(3);
  r.session = q.Text(4);
  r.status = q.Text(5);
  r.created_at = q.Text(6);
  r.taken_at = q.Text(7);
  r.taken_by = q.Text(8);
  r.result = q.Text(9);
  r.detail = ParseJsonOrDiscarded(q.Text(10));
  if (!r.detail.is_object()) r.detail = json::object();
  return r;
}

Status CheckText(const std::string& text, const std::string& what, bool required) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return required ? Status::InvalidArgument(what + " is empty") : Status::OK();
  }
  if (!IsValidUtf8(text)) return Status::InvalidArgument(what + " is not valid UTF-8 text");
  if (text.size() > kMaxText) return Status::InvalidArgument(what + " is longer than " + std::to_string(kMaxText) + " bytes");
  return Status::OK();
}

Result<std::optional<PulseRequest>> PendingOf(Db& db, RequestKind kind) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string("SELECT ") + kColumns +
                                                 " FROM pulse_requests WHERE kind = ? AND status = 'pending' "
                                                 "ORDER BY id LIMIT 1"));
  q.Bind(1, RequestKindName(kind));
  PULSE_ASSIGN_OR_RETURN(bool has, q.Step());
  if (!has) return std::optional<PulseRequest>();
  return std::optional<PulseRequest>(Row(q));
}

Result<PulseRequest> Load(Db& db, int64_t id) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string("SELECT ") + kColumns + " FROM pulse_requests WHERE id = ?"));
  q.Bind(1, id);
  PULSE_ASSIGN_OR_RETURN(bool has, q.Step());
  if (!has) return Status::NotFound("request " + std::to_string(id) + ": no such request");
  return Row(q);
}

}  // namespace

const char* RequestKindName(RequestKind k) { return kKindNames[static_cast<int>(k)]; }

Result<RequestKind> ParseRequestKind(const std::string& text) {
  for (int i = 0; i < 3; ++i) {
    if (text == kKindNames[i]) return static_cast<RequestKind>(i);
  }
  return Status::InvalidArgument("request kind \"" + text + "\" is not qa, fast or builder_ask");
}

json PulseRequest::ToJson() const {
  json out = {{"id", id},           {"kind", RequestKindName(kind)}, {"what", what},       {"why", why},
              {"session", session}, {"status", status},              {"created_at", created_at}};
  if (!taken_at.empty()) out["taken_at"] = taken_at;
  if (!taken_by.empty()) out["taken_by"] = taken_by;
  if (!result.empty()) out["result"] = result;
  if (!detail.empty()) out["detail"] = detail;
  return out;
}

Status EnsureRequestsSchema(Db& db) {
  return ApplyMigrations(db, "requests", {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_requests ("
       " id INTEGER PRIMARY KEY,"
       " kind TEXT NOT NULL CHECK (kind IN ('qa', 'fast', 'builder_ask')),"
       " what TEXT NOT NULL,"
       " why TEXT NOT NULL DEFAULT '',"
       " session TEXT NOT NULL DEFAULT '',"
       " status TEXT NOT NULL,"
       " created_at TEXT NOT NULL,"
       " taken_at TEXT NOT NULL DEFAULT '',"
       " taken_by TEXT NOT NULL DEFAULT '',"
       " result TEXT NOT NULL DEFAULT '',"
       " detail TEXT NOT NULL DEFAULT '{}');"
       "CREATE INDEX IF NOT EXISTS pulse_requests_kind ON pulse_requests(kind, status, id);"},
  });
}

Result<RecordedRequest> RecordRequest(Db& db, Env& env, const NewRequest& in) {
  const std::string what = std::string(RequestKindName(in.kind)) + " request";
  PULSE_RETURN_IF_ERROR(CheckText(in.what, what + ": " + (in.kind == RequestKind::kFast ? "why" : "what"), true));
  PULSE_RETURN_IF_ERROR(CheckText(in.why, what + ": why", false));
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  RecordedRequest out;
  if (in.kind == RequestKind::kFast) {
    PULSE_ASSIGN_OR_RETURN(std::optional<PulseRequest> pending, PendingOf(db, RequestKind::kFast));
    if (pending) {
      // One earlier pass serves every reason given before it starts.
      out.request = *pending;
      out.coalesced = true;
      return out;
    }
  }
  if (in.kind == RequestKind::kQa) {
    PULSE_ASSIGN_OR_RETURN(Statement n, db.Prepare("SELECT COUNT(*) FROM pulse_requests WHERE kind = 'qa' AND status = 'pending'"));
    PULSE_ASSIGN_OR_RETURN(bool has, n.Step());
    if (has && n.Int64(0) >= kMaxPendingQaRequests) {
      return Status::Refused(what + ": " + std::to_string(kMaxPendingQaRequests) +
                             " QA requests are already waiting; let the fix runs catch up first");
    }
  }
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_requests(kind, what, why, session, status, created_at, detail) VALUES(?, ?, ?, ?, ?, ?, ?)"));
  put.Bind(1, RequestKindName(in.kind)).Bind(2, FlattenLineBreaks(in.what)).Bind(3, FlattenLineBreaks(in.why));
  put.Bind(4, in.session).Bind(5, in.status).Bind(6, FormatTime(env.NowSeconds())).Bind(7, in.detail.dump());
  PULSE_RETURN_IF_ERROR(put.Run());
  int64_t id = db.LastInsertRowId();
  PULSE_RETURN_IF_ERROR(tx.Commit());
  PULSE_ASSIGN_OR_RETURN(out.request, Load(db, id));
  return out;
}

Result<std::vector<PulseRequest>> ListRequests(Db& db, std::optional<RequestKind> kind, const std::string& status,
                                               int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string("SELECT ") + kColumns +
                                                 " FROM pulse_requests WHERE (?1 = '' OR kind = ?1)"
                                                 " AND (?2 = '' OR status = ?2) ORDER BY id DESC LIMIT ?3"));
  q.Bind(1, kind ? RequestKindName(*kind) : "").Bind(2, status).Bind(3, static_cast<int64_t>(limit));
  std::vector<PulseRequest> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool has, q.Step());
    if (!has) break;
    out.push_back(Row(q));
  }
  return out;
}

Result<std::vector<PulseRequest>> TakePendingFastRequests(Db& db, Env& env, const std::string& taken_by) {
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(std::vector<PulseRequest> pending, ListRequests(db, RequestKind::kFast, "pending"));
  std::string now = FormatTime(env.NowSeconds());
  PULSE_ASSIGN_OR_RETURN(Statement upd, db.Prepare(
      "UPDATE pulse_requests SET status = 'taken', taken_at = ?, taken_by = ? WHERE id = ? AND status = 'pending'"));
  std::vector<PulseRequest> taken;
  for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
    upd.Bind(1, now).Bind(2, taken_by).Bind(3, it->id);
    PULSE_RETURN_IF_ERROR(upd.Run());
    upd.Reset();
    it->status = "taken";
    it->taken_at = now;
    it->taken_by = taken_by;
    taken.push_back(*it);
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return taken;
}

Status CompleteRequest(Db& db, Env& env, int64_t id, const std::string& result) {
  PULSE_RETURN_IF_ERROR(CheckText(result, "request " + std::to_string(id) + ": result", true));
  PULSE_ASSIGN_OR_RETURN(PulseRequest r, Load(db, id));
  if (r.status != "pending" && r.status != "taken") {
    return Status::Conflict("request " + std::to_string(id) + " is " + r.status + "; nothing changed");
  }
  PULSE_ASSIGN_OR_RETURN(Statement upd, db.Prepare("UPDATE pulse_requests SET status = 'done', result = ? WHERE id = ?"));
  upd.Bind(1, FlattenLineBreaks(result)).Bind(2, id);
  return upd.Run();
}

// ---- QA fix runs ----

json QaResult::ToJson() const {
  return json{{"status", status},
              {"technical_review", technical_review},
              {"reason", reason},
              {"pulse_run_id", pulse_run_id},
              {"finished_at", finished_at}};
}

Result<std::optional<PulseRequest>> TakeNextQaRequest(Db& db, Env& env, const std::string& taken_by) {
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(std::optional<PulseRequest> next, PendingOf(db, RequestKind::kQa));
  if (!next) return next;
  PULSE_ASSIGN_OR_RETURN(Statement upd, db.Prepare(
      "UPDATE pulse_requests SET status = 'taken', taken_at = ?, taken_by = ? WHERE id = ? AND status = 'pending'"));
  next->taken_at = FormatTime(env.NowSeconds());
  next->taken_by = taken_by;
  next->status = "taken";
  upd.Bind(1, next->taken_at).Bind(2, taken_by).Bind(3, next->id);
  PULSE_RETURN_IF_ERROR(upd.Run());
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return next;
}

Status ReleaseQaRequest(Db& db, int64_t id) {
  PULSE_ASSIGN_OR_RETURN(Statement upd, db.Prepare(
      "UPDATE pulse_requests SET status = 'pending', taken_at = '', taken_by = '' WHERE id = ? AND kind = 'qa'"
      " AND status = 'taken'"));
  upd.Bind(1, id);
  return upd.Run();
}

Status MarkQaRequestTakenBy(Db& db, int64_t id, const std::string& taken_by) {
  PULSE_ASSIGN_OR_RETURN(Statement upd, db.Prepare(
      "UPDATE pulse_requests SET taken_by = ? WHERE id = ? AND kind = 'qa' AND status = 'taken'"));
  upd.Bind(1, taken_by).Bind(2, id);
  return upd.Run();
}

Status FinishQaRequest(Db& db, int64_t id, const QaResult& in) {
  QaResult r = in;
  r.technical_review = FlattenLineBreaks(std::string(Utf8Prefix(RepairUtf8(r.technical_review), 2000)));
  r.reason = FlattenLineBreaks(std::string(Utf8Prefix(RepairUtf8(r.reason), 1000)));
  if (r.status != "completed" && r.status != "failed") {
    return Status::InvalidArgument("qa result: status \"" + r.status + "\" is not completed or failed");
  }
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(PulseRequest req, Load(db, id));
  if (req.kind != RequestKind::kQa) return Status::InvalidArgument("request " + std::to_string(id) + " is not a QA request");
  if (req.status != "pending" && req.status != "taken") {
    return Status::Conflict("request " + std::to_string(id) + " is " + req.status + "; nothing changed");
  }
  req.detail["qa_result"] = r.ToJson();
  std::string line = r.status + (r.technical_review.empty() ? "" : " — technical review: " + r.technical_review) +
                     (r.reason.empty() ? "" : " — reason: " + r.reason);
  PULSE_ASSIGN_OR_RETURN(Statement upd, db.Prepare("UPDATE pulse_requests SET status = ?, result = ?, detail = ? WHERE id = ?"));
  upd.Bind(1, r.status == "completed" ? "done" : "failed").Bind(2, std::string(Utf8Prefix(line, kMaxText)))
      .Bind(3, req.detail.dump()).Bind(4, id);
  PULSE_RETURN_IF_ERROR(upd.Run());
  return tx.Commit();
}

Result<int> FailAbandonedQaRequests(Db& db, const std::string& why, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(std::vector<PulseRequest> taken, ListRequests(db, RequestKind::kQa, "taken"));
  int n = 0;
  for (const PulseRequest& r : taken) {
    QaResult res{"failed", "", why, r.taken_by, FormatTime(now)};
    if (FinishQaRequest(db, r.id, res).ok()) ++n;
  }
  return n;
}

Result<int64_t> PendingQaRequestCount(Db& db) {
  return db.QueryInt64("SELECT COUNT(*) FROM pulse_requests WHERE kind = 'qa' AND status = 'pending'");
}

Result<int64_t> OpenQaRequestCount(Db& db) {
  return db.QueryInt64("SELECT COUNT(*) FROM pulse_requests WHERE kind = 'qa' AND status IN ('pending', 'taken')");
}

}  // namespace pulse

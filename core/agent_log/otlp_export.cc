#include "core/agent_log/otlp_export.h"

#include <algorithm>
#include <map>

#include "core/base/sha256.h"
#include "core/base/time_util.h"
#include "core/store/schema.h"

namespace pulse {

using nlohmann::json;

Status EnsureOtlpExportSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_otlp_export ("
       " id INTEGER PRIMARY KEY CHECK (id = 1),"
       " origin_seq INTEGER NOT NULL,"
       " seq INTEGER NOT NULL,"
       " origin_guard INTEGER NOT NULL,"
       " guard_id INTEGER NOT NULL,"
       " history_since TEXT NOT NULL DEFAULT '',"
       " updated_at TEXT NOT NULL DEFAULT '')"},
  };
  return ApplyMigrations(db, "otlp_export", kMigrations);
}

// ---- ids ----

namespace {

// The first `hex_digits` of SHA-256 over the parts, each ended by a zero
// byte (so "a","bc" and "ab","c" differ), under a label per kind of id.
std::string HashId(std::initializer_list<std::string> parts, size_t hex_digits) {
  std::string text;
  for (const std::string& p : parts) {
    text += p;
    text.push_back('\0');
  }
  std::string id = Sha256Hex(text).substr(0, hex_digits);
  // An all-zero id is invalid in OTLP; 2^-64 at worst, but never sent.
  if (id.find_first_not_of('0') == std::string::npos) id.back() = '1';
  return id;
}

}  // namespace

std::string OtlpTraceId(const std::string& workflow, const std::string& run_or_session) {
  return HashId({"pulse trace", workflow, run_or_session}, 32);
}

std::string OtlpAgentSpanId(const std::string& workflow, const std::string& session, const std::string& agent) {
  return HashId({"pulse agent", workflow, session, agent}, 16);
}

std::string OtlpToolSpanId(const std::string& workflow, int64_t guard_decision_id) {
  return HashId({"pulse tool call", workflow, std::to_string(guard_decision_id)}, 16);
}

// ---- spans ----

namespace {

constexpr int kSpanKindInternal = 1;
constexpr int kStatusOk = 1;
constexpr int kStatusError = 2;

json Str(const std::string& key, const std::string& value) {
  return json{{"key", key}, {"value", {{"stringValue", value}}}};
}

json Int(const std::string& key, int64_t value) {
  return json{{"key", key}, {"value", {{"intValue", std::to_string(value)}}}};
}

// Nanoseconds since the epoch as OTLP's JSON mapping writes a fixed64: a
// decimal string.
std::string Nanos(int64_t seconds) { return std::to_string(seconds) + "000000000"; }

bool FailedStatus(const std::string& status) {
  return status == "failed" || status == "error" || status == "interrupted" || status == "timeout" ||
         status == "cancelled" || status == "canceled";
}

}  // namespace

json AgentRowSpan(const std::string& workflow, const AgentLogRow& row, const OtlpModelUsage* usage) {
  const int64_t end = row.completed_at.value_or(row.updated_at);
  const int64_t start = std::min(row.started_at.value_or(end), end);
  const std::string agent_name = row.name.empty() ? row.agent_id : row.name;
  const std::string run = row.pulse_run_id.empty() ? row.session_id : row.pulse_run_id;
  json attrs = json::array({Str("gen_ai.operation.name", "invoke_agent"), Str("gen_ai.agent.name", agent_name),
                            Str("gen_ai.agent.id", row.agent_id), Str("gen_ai.conversation.id", row.session_id),
                            Str("pulse.workflow", workflow), Str("pulse.session", row.session_id),
                            Str("pulse.agent.status", row.status)});
  if (!row.pulse_run_id.empty()) attrs.push_back(Str("pulse.run_id", row.pulse_run_id));
  if (!row.kind.empty()) attrs.push_back(Str("pulse.agent.kind", row.kind));
  if (!row.parent_execution_id.empty()) attrs.push_back(Str("pulse.agent.parent", row.parent_execution_id));
  if (!row.duration.empty()) attrs.push_back(Str("pulse.agent.duration", row.duration));
  // The tokens a model turn counted are on its row (Pulse's own model
  // turns record them); a caller's usage, when given, wins.
  const int64_t input_tokens = usage ? usage->input_tokens : row.tokens_in;
  const int64_t output_tokens = usage ? usage->output_tokens : row.tokens_out;
  if (usage && !usage->model.empty()) attrs.push_back(Str("gen_ai.request.model", usage->model));
  if (input_tokens > 0) attrs.push_back(Int("gen_ai.usage.input_tokens", input_tokens));
  if (output_tokens > 0) attrs.push_back(Int("gen_ai.usage.output_tokens", output_tokens));
  json span = {{"traceId", OtlpTraceId(workflow, run)},
               {"spanId", OtlpAgentSpanId(workflow, row.session_id, row.agent_id)},
               {"name", "invoke_agent " + agent_name},
               {"kind", kSpanKindInternal},
               {"startTimeUnixNano", Nanos(start)},
               {"endTimeUnixNano", Nanos(end)},
               {"attributes", std::move(attrs)}};
  if (!row.parent_execution_id.empty()) {
    span["parentSpanId"] = OtlpAgentSpanId(workflow, row.session_id, row.parent_execution_id);
  }
  if (FailedStatus(row.status)) {
    span["status"] = {{"code", kStatusError}, {"message", row.error.empty() ? row.status : row.error}};
    span["attributes"].push_back(Str("error.type", row.status));
  } else if (row.status == "completed") {
    span["status"] = {{"code", kStatusOk}};
  }
  return span;
}

json GuardDecisionSpan(const std::string& workflow, const GuardRecord& d, const std::optional<OtlpParent>& parent) {
  json attrs = json::array({Str("gen_ai.operation.name", "execute_tool"), Str("gen_ai.tool.name", d.tool),
                            Str("gen_ai.tool.call.id", "guard-" + std::to_string(d.id)),
                            Str("gen_ai.conversation.id", d.session), Str("pulse.workflow", workflow),
                            Str("pulse.session", d.session), Str("pulse.turn", d.turn),
                            Str("pulse.guard.rule", d.rule), Str("pulse.guard.outcome", d.allowed ? "allowed" : "refused")});
  if (!d.level.empty()) attrs.push_back(Str("pulse.guard.level", d.level));
  if (!d.tool_class.empty()) attrs.push_back(Str("pulse.tool.class", d.tool_class));
  if (parent && !parent->run_id.empty()) attrs.push_back(Str("pulse.run_id", parent->run_id));
  json span = {{"traceId", parent ? parent->trace_id : OtlpTraceId(workflow, d.session)},
               {"spanId", OtlpToolSpanId(workflow, d.id)},
               {"name", "execute_tool " + d.tool},
               {"kind", kSpanKindInternal},
               {"startTimeUnixNano", Nanos(d.at)},
               {"endTimeUnixNano", Nanos(d.at)},
               {"attributes", std::move(attrs)}};
  if (parent) span["parentSpanId"] = parent->span_id;
  if (!d.allowed) {
    span["status"] = {{"code", kStatusError}, {"message", "refused: " + d.reason}};
    span["attributes"].push_back(Str("error.type", "pulse.guard.refused"));
  } else {
    span["status"] = {{"code", kStatusOk}};
  }
  return span;
}

json OtlpTraceRequest(const std::string& instance, json spans) {
  json resource = json::array({Str("service.name", "pulse"), Str("service.version", PULSE_VERSION)});
  if (!instance.empty()) resource.push_back(Str("service.instance.id", instance));
  return json{{"resourceSpans",
               json::array({{{"resource", {{"attributes", std::move(resource)}}},
                             {"scopeSpans", json::array({{{"scope", {{"name", "pulse.agent_log"}, {"version", PULSE_VERSION}}},
                                                          {"spans", std::move(spans)}}})}}})}};
}

OtlpAnswer ClassifyOtlpAnswer(int http_status, bool transport_error) {
  if (transport_error) return OtlpAnswer::kRetry;
  if (http_status >= 200 && http_status < 300) return OtlpAnswer::kTaken;
  if (http_status == 429 || http_status == 502 || http_status == 503 || http_status == 504) return OtlpAnswer::kRetry;
  return OtlpAnswer::kDrop;
}

double OtlpBackoffSeconds(int failures) {
  if (failures <= 0) return 0;
  return std::min(60.0, static_cast<double>(int64_t{1} << std::min(failures - 1, 6)));
}

// ---- the cursor ----

namespace {

Result<std::optional<OtlpCursor>> ReadCursor(Db& db) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare("SELECT origin_seq, seq, origin_guard, guard_id, history_since"
                                                  " FROM pulse_otlp_export WHERE id = 1"));
  PULSE_ASSIGN_OR_RETURN(bool has, st.Step());
  if (!has) return std::optional<OtlpCursor>();
  OtlpCursor c;
  c.origin_seq = st.Int64(0);
  c.seq = st.Int64(1);
  c.origin_guard = st.Int64(2);
  c.guard_id = st.Int64(3);
  c.history_since = st.Time(4);
  return std::optional<OtlpCursor>(c);
}

// The parent of a tool call: the turn running in its session (a helper's
// root session) when it was made.
Result<std::optional<OtlpParent>> TurnOf(Db& db, const std::string& workflow, const GuardRecord& d,
                                         std::map<std::string, std::string>* roots) {
  auto known = roots->find(d.session);
  if (known == roots->end()) {
    Result<ToolSession> s = LoadToolSession(db, d.session);
    known = roots->emplace(d.session, s.ok() && !s->root.empty() ? s->root : d.session).first;
  }
  PULSE_ASSIGN_OR_RETURN(std::optional<AgentLogRow> turn, AgentRunningAt(db, known->second, d.at));
  if (!turn) return std::optional<OtlpParent>();
  const std::string run = turn->pulse_run_id.empty() ? turn->session_id : turn->pulse_run_id;
  return std::optional<OtlpParent>(OtlpParent{OtlpTraceId(workflow, run),
                                              OtlpAgentSpanId(workflow, turn->session_id, turn->agent_id),
                                              turn->pulse_run_id});
}

// The tool-call spans of the decisions in `range`, added to `spans`; the
// last decision's id in `*last_id` (unchanged when there is none).
Status AddToolSpans(Db& db, const std::string& workflow, const GuardDecisionRange& range, json* spans, int* count,
                    int64_t* last_id) {
  PULSE_ASSIGN_OR_RETURN(std::vector<GuardRecord> decisions, ReadGuardDecisions(db, range));
  std::map<std::string, std::string> roots;
  for (const GuardRecord& d : decisions) {
    PULSE_ASSIGN_OR_RETURN(std::optional<OtlpParent> parent, TurnOf(db, workflow, d, &roots));
    spans->push_back(GuardDecisionSpan(workflow, d, parent));
    *last_id = d.id;
  }
  *count = static_cast<int>(decisions.size());
  return Status::OK();
}

// The agent spans of `rows`, added to `spans`; the last row (where the
// batch ends), or null when there is none.
const FinishedAgentRow* AddAgentSpans(const std::string& workflow, const std::vector<FinishedAgentRow>& rows,
                                      json* spans, int* count) {
  for (const FinishedAgentRow& f : rows) spans->push_back(AgentRowSpan(workflow, f.row));
  *count = static_cast<int>(rows.size());
  return rows.empty() ? nullptr : &rows.back();
}

}  // namespace

Result<OtlpCursor> LoadOrStartOtlpCursor(Db& db) {
  PULSE_ASSIGN_OR_RETURN(std::optional<OtlpCursor> have, ReadCursor(db));
  if (have) return *have;
  // Where the log ends now, read and stored under one write lock: a
  // completion committed meanwhile is either history or live, never lost.
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(have, ReadCursor(db));
  if (have) return *have;
  PULSE_ASSIGN_OR_RETURN(int64_t seq, LatestCompletedSeq(db));
  PULSE_ASSIGN_OR_RETURN(int64_t guard, LatestGuardDecisionId(db));
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare("INSERT INTO pulse_otlp_export(id, origin_seq, seq, origin_guard,"
                                                  " guard_id) VALUES(1, ?1, ?1, ?2, ?2)"));
  st.Bind(1, seq).Bind(2, guard);
  PULSE_RETURN_IF_ERROR(st.Run());
  PULSE_RETURN_IF_ERROR(tx.Commit());
  OtlpCursor c;
  c.origin_seq = c.seq = seq;
  c.origin_guard = c.guard_id = guard;
  return c;
}

Result<OtlpBatch> NextOtlpBatch(Db& db, const std::string& workflow, const OtlpCursor& cursor, int max_spans) {
  OtlpBatch batch;
  batch.next = cursor;
  ReadSnapshot snapshot(db);
  PULSE_ASSIGN_OR_RETURN(std::vector<FinishedAgentRow> rows, ReadCompletedAfter(db, cursor.seq, max_spans));
  if (const FinishedAgentRow* last = AddAgentSpans(workflow, rows, &batch.spans, &batch.agent_spans)) {
    batch.next.seq = last->seq;
  }
  GuardDecisionRange range;
  range.after_id = cursor.guard_id;
  range.limit = max_spans;
  PULSE_RETURN_IF_ERROR(AddToolSpans(db, workflow, range, &batch.spans, &batch.tool_spans, &batch.next.guard_id));
  return batch;
}

Status CommitOtlpCursor(Db& db, const OtlpCursor& from, const OtlpCursor& to) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare("UPDATE pulse_otlp_export SET seq = ?1, guard_id = ?2"
                                                  " WHERE id = 1 AND seq = ?3 AND guard_id = ?4"));
  st.Bind(1, to.seq).Bind(2, to.guard_id).Bind(3, from.seq).Bind(4, from.guard_id);
  PULSE_RETURN_IF_ERROR(st.Run());
  if (db.Changes() != 1) return Status::Conflict("the OTLP export cursor was moved by another exporter");
  return Status::OK();
}

Result<OtlpHistoryBatch> NextOtlpHistoryBatch(Db& db, const std::string& workflow, const OtlpCursor& cursor,
                                              int64_t since, const OtlpHistoryPosition& after, int max_spans) {
  OtlpHistoryBatch batch;
  batch.next = after;
  // Nothing before a time already sent is sent again.
  if (cursor.history_since && since >= *cursor.history_since) return batch;
  ReadSnapshot snapshot(db);
  PULSE_ASSIGN_OR_RETURN(std::vector<FinishedAgentRow> rows,
                         ReadFinishedHistory(db, cursor.origin_seq, since, cursor.history_since, after.rowid, max_spans));
  if (const FinishedAgentRow* last = AddAgentSpans(workflow, rows, &batch.spans, &batch.agent_spans)) {
    batch.next.rowid = last->rowid;
  }
  GuardDecisionRange range;
  range.after_id = after.guard_id;
  range.max_id = cursor.origin_guard;
  range.since = since;
  range.not_since = cursor.history_since;
  range.limit = max_spans;
  PULSE_RETURN_IF_ERROR(AddToolSpans(db, workflow, range, &batch.spans, &batch.tool_spans, &batch.next.guard_id));
  return batch;
}

Status MarkOtlpHistorySent(Db& db, int64_t since) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare("UPDATE pulse_otlp_export SET history_since = ?1"
                                                  " WHERE id = 1 AND (history_since = '' OR history_since > ?1)"));
  st.Bind(1, FormatTime(since));
  return st.Run();
}

}  // namespace pulse

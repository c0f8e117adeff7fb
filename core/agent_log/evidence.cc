#include "core/agent_log/evidence.h"

#include <algorithm>
#include <cctype>

#include "core/base/json_limits.h"
#include "core/base/time_util.h"

namespace pulse {

namespace {

bool IdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
}

bool FailedStatus(const std::string& s) {
  return s == "failed" || s == "error" || s == "interrupted" || s == "timeout" || s == "timed_out";
}

Result<bool> HasTable(Db& db, const char* name) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?"));
  q.Bind(1, name);
  return q.Step();
}

std::string DecisionWhy(int64_t id, const std::string& status) {
  return "decision " + std::to_string(id) + " (" + status + ") points to it";
}

// The first `text_columns` columns of `sql`'s rows into `ev->ids`; the next
// two are the decision's id and status, which say why.
Status CollectFromRows(Db& db, const std::string& sql, int text_columns, Evidence* ev) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(sql));
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    std::string why = DecisionWhy(q.Int64(text_columns), q.Text(text_columns + 1));
    for (int c = 0; c < text_columns; ++c) CollectIds(q.Text(c), why, &ev->ids);
  }
  return Status::OK();
}

// (session, time, decision id, status) rows of `sql` into `ev->moments`.
Status CollectMoments(Db& db, const std::string& sql, Evidence* ev) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(sql));
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    std::optional<int64_t> at = q.Time(1);
    if (q.Text(0).empty() || !at) continue;
    ev->moments[q.Text(0)].push_back({*at, DecisionWhy(q.Int64(2), q.Text(3))});
  }
  return Status::OK();
}

// The created events' context: the refused call's session at its moment,
// and the why as text.
Status CollectCreated(Db& db, const std::string& live, Evidence* ev) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT e.detail, e.at, d.id, d.status FROM pulse_decision_events e JOIN pulse_decisions d"
      " ON d.id = e.decision_id" + live + " AND e.kind = 'created'"));
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    std::string why = DecisionWhy(q.Int64(2), q.Text(3));
    Result<nlohmann::json> detail = ParseJsonBounded(q.Text(0), "pulse_decision_events.detail", 8);
    if (!detail.ok() || !detail->is_object()) continue;
    auto w = detail->find("why");
    if (w != detail->end() && w->is_string()) CollectIds(w->get<std::string>(), why, &ev->ids);
    auto call = detail->find("refused_call");
    std::optional<int64_t> at = q.Time(1);
    if (call == detail->end() || !call->is_object() || !at) continue;
    auto session = call->find("session");
    if (session != call->end() && session->is_string() && !session->get<std::string>().empty()) {
      ev->moments[session->get<std::string>()].push_back({*at, why});
    }
  }
  return Status::OK();
}

// Decisions the owner still has to answer, or answered: their outcome is
// the decision log's, and the rows behind them are its evidence.
Status DecisionEvidence(Db& db, Evidence* ev) {
  PULSE_ASSIGN_OR_RETURN(bool has, HasTable(db, "pulse_decisions"));
  if (!has) return Status::OK();
  const std::string live = " WHERE d.status IN ('pending', 'answered')";
  const std::string recs = " FROM pulse_recommendations r JOIN pulse_decisions d ON d.id = r.decision_id" + live;
  PULSE_RETURN_IF_ERROR(CollectFromRows(
      db, "SELECT d.question, d.blocks, d.answer_note, d.id, d.status FROM pulse_decisions d" + live, 3, ev));
  PULSE_RETURN_IF_ERROR(
      CollectFromRows(db, "SELECT r.why, r.evidence, coalesce(r.text, ''), d.id, d.status" + recs, 3, ev));
  PULSE_RETURN_IF_ERROR(CollectMoments(db, "SELECT r.session, r.recommended_at, d.id, d.status" + recs, ev));
  PULSE_RETURN_IF_ERROR(CollectMoments(
      db, "SELECT d.answer_session, d.answered_at, d.id, d.status FROM pulse_decisions d" + live, ev));
  return CollectCreated(db, live, ev);
}

// Failed workflow runs that finished in the window, from run.json's snapshot
// and the after-run hook's records.
Status FailedRunEvidence(Db& db, Evidence* ev) {
  const std::string since = FormatTime(ev->window_start);
  for (const char* table : {"pulse_fact_runs", "goal_run_facts"}) {
    PULSE_ASSIGN_OR_RETURN(bool has, HasTable(db, table));
    if (!has) continue;
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string("SELECT run_id, status, finished_at FROM ") + table +
                                                   " WHERE status != 'completed' AND finished_at >= ?"));
    q.Bind(1, since);
    for (;;) {
      PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      if (q.Text(0).empty()) continue;
      ev->ids.emplace(q.Text(0), "run " + q.Text(0) + " " + q.Text(1) + " at " + q.Text(2) +
                                     ", in the goal check's window (since " + since + ")");
    }
  }
  return Status::OK();
}

}  // namespace

void CollectIds(const std::string& text, const std::string& why, std::map<std::string, std::string>* ids) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !IdChar(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && IdChar(text[i])) ++i;
    size_t end = i;
    while (end > start && (text[end - 1] == '.' || text[end - 1] == ':')) --end;
    if (end - start >= 2) ids->emplace(text.substr(start, end - start), why);
  }
}

std::string Evidence::Why(const AgentLogRow& row) const {
  for (const std::string* id : {&row.session_id, &row.pulse_run_id}) {
    if (id->empty()) continue;
    auto it = ids.find(*id);
    if (it != ids.end()) return it->second;
  }
  auto m = moments.find(row.session_id);
  if (m != moments.end()) {
    // The row's span: from its start (or its completion) to its completion
    // (or its last update), a minute either side for clocks a little apart.
    std::optional<int64_t> from = row.started_at ? row.started_at : row.completed_at;
    int64_t to = row.completed_at ? *row.completed_at : row.updated_at;
    for (const Moment& at : m->second) {
      if (from && at.at >= *from - 60 && at.at <= to + 60) return at.why;
    }
  }
  std::optional<int64_t> done = row.completed_at ? row.completed_at : std::optional<int64_t>(row.updated_at);
  if (FailedStatus(row.status) && done && *done >= window_start) {
    return "a " + row.status + " agent in the goal check's window (since " + FormatTime(window_start) + ")";
  }
  return "";
}

Result<Evidence> GatherEvidence(Db& db, const ContextFacts& facts) {
  Evidence ev;
  ev.window_start = std::min(facts.since, facts.now - kMedianWindowSeconds);
  // Spikes first: their reason is the most specific one a row can have.
  for (const CostSpike& s : facts.cost_spikes) {
    ev.ids.emplace(s.run_id, "run " + s.run_id + " is a cost spike since the last check");
  }
  PULSE_RETURN_IF_ERROR(FailedRunEvidence(db, &ev));
  PULSE_RETURN_IF_ERROR(DecisionEvidence(db, &ev));
  return ev;
}

}  // namespace pulse

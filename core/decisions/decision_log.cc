// The decision log's reads: decisions, recommendations and events as
// stored, and the view of a decision every caller gets (core/api/ turns it
// into JSON).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/decisions/decisions.h"
#include "core/base/json_limits.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

std::optional<std::string> OptText(const Statement& q, int col) {
  if (q.IsNull(col)) return std::nullopt;
  return q.Text(col);
}

constexpr const char* kDecisionColumns =
    "id, question, options_json, blocks, raised_by, status, created_at, answer_option, answer_text, answer_note,"
    " answered_by, answer_session, answer_kind, overruled_pulse, answered_at, outcome, outcome_at";

Decision ReadDecision(const Statement& q) {
  Decision d;
  d.id = q.Int64(0);
  d.question = q.Text(1);
  json opts = ParseJsonOrDiscarded(q.Text(2));
  if (opts.is_array()) {
    for (const json& o : opts) {
      if (o.is_string()) d.options.push_back(o.get<std::string>());
    }
  }
  d.blocks = q.Text(3);
  d.raised_by = q.Text(4);
  // The column's CHECK allows only these.
  const std::string status = q.Text(5);
  d.status = status == "answered" ? DecisionStatus::kAnswered
             : status == "dismissed" ? DecisionStatus::kDismissed : DecisionStatus::kPending;
  d.created_at = q.Time(6).value_or(0);
  d.answer_option = OptText(q, 7);
  d.answer_text = OptText(q, 8);
  d.answer_note = q.Text(9);
  d.answered_by = OptText(q, 10);
  d.answer_session = q.Text(11);
  d.answer_kind = OptText(q, 12);
  d.overruled_pulse = q.Int64(13) != 0;
  d.answered_at = q.Time(14);
  d.outcome = OptText(q, 15);
  d.outcome_at = q.Time(16);
  return d;
}

Result<std::vector<Decision>> ReadDecisions(Statement& q) {
  std::vector<Decision> rows;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    rows.push_back(ReadDecision(q));
  }
  return rows;
}

}  // namespace

Result<Decision> LoadDecision(Db& db, int64_t id) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string("SELECT ") + kDecisionColumns +
                                                 " FROM pulse_decisions WHERE id = ?"));
  q.Bind(1, id);
  PULSE_ASSIGN_OR_RETURN(bool has, q.Step());
  if (!has) return Status::NotFound("decision " + std::to_string(id) + ": no such decision");
  return ReadDecision(q);
}


Result<std::optional<Recommendation>> CurrentRecommendation(Db& db, int64_t decision_id) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT id, option, text, why, evidence, confidence, blocks, safe_default_by, needs, session,"
      " recommended_at, status, resolved_at FROM pulse_recommendations"
      " WHERE decision_id = ? AND status != 'superseded' ORDER BY id DESC LIMIT 1"));
  q.Bind(1, decision_id);
  PULSE_ASSIGN_OR_RETURN(bool has, q.Step());
  if (!has) return std::optional<Recommendation>();
  Recommendation r;
  r.id = q.Int64(0);
  r.option = OptText(q, 1);
  r.text = OptText(q, 2);
  r.why = q.Text(3);
  r.evidence = q.Text(4);
  Result<Confidence> confidence = ParseConfidence(q.Text(5), "");  // CHECKed on write
  r.confidence = confidence.ok() ? *confidence : Confidence::kMedium;
  r.blocks = q.Text(6);
  r.safe_default_by = q.Time(7);
  r.needs = q.Text(8);
  r.session = q.Text(9);
  r.recommended_at = q.Time(10).value_or(0);
  r.status = q.Text(11);
  r.resolved_at = q.Time(12);
  return std::optional<Recommendation>(r);
}

Result<DecisionView> ViewDecision(Db& db, const Decision& d, int64_t now) {
  DecisionView v;
  v.decision = d;
  PULSE_ASSIGN_OR_RETURN(v.recommendation, CurrentRecommendation(db, d.id));
  if (d.status == DecisionStatus::kPending) v.waited_seconds = std::max<int64_t>(0, now - d.created_at);
  PULSE_ASSIGN_OR_RETURN(Statement ev, db.Prepare(
      "SELECT at, kind, actor, detail FROM pulse_decision_events WHERE decision_id = ? ORDER BY id"));
  ev.Bind(1, d.id);
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, ev.Step());
    if (!row) break;
    v.events.push_back(DecisionEvent{ev.Time(0).value_or(0), ev.Text(1), ev.Text(2), ev.Text(3)});
  }
  return v;
}

Result<std::vector<Decision>> PendingDecisions(Db& db) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string("SELECT ") + kDecisionColumns +
                                                 " FROM pulse_decisions WHERE status = 'pending' ORDER BY id"));
  return ReadDecisions(q);
}

namespace {

Result<std::vector<DecisionView>> ViewAll(Db& db, Statement& q, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(std::vector<Decision> rows, ReadDecisions(q));
  std::vector<DecisionView> views;
  for (const Decision& d : rows) {
    PULSE_ASSIGN_OR_RETURN(DecisionView v, ViewDecision(db, d, now));
    views.push_back(std::move(v));
  }
  return views;
}

}  // namespace

Result<DecisionList> ListDecisions(DecisionContext& ctx, const std::string& status) {
  std::string filter = status.empty() ? "all" : status;
  if (filter != "all" && filter != "pending" && filter != "answered" && filter != "dismissed") {
    return Status::InvalidArgument("status \"" + status + "\" is not pending, answered, dismissed or all");
  }
  int64_t now = ctx.env.NowSeconds();
  std::string sql = std::string("SELECT ") + kDecisionColumns + " FROM pulse_decisions";
  if (filter != "all") sql += " WHERE status = ?";
  sql += " ORDER BY id";
  PULSE_ASSIGN_OR_RETURN(Statement q, ctx.db.Prepare(sql));
  if (filter != "all") q.Bind(1, filter);
  DecisionList out;
  PULSE_ASSIGN_OR_RETURN(out.decisions, ViewAll(ctx.db, q, now));
  // Answered more than a day ago and no result yet, whatever the filter.
  PULSE_ASSIGN_OR_RETURN(Statement due, ctx.db.Prepare(
      std::string("SELECT ") + kDecisionColumns +
      " FROM pulse_decisions WHERE status = 'answered' AND outcome IS NULL AND answered_at < ? ORDER BY answered_at, id"));
  due.BindTime(1, now - kSecondsPerDay);
  PULSE_ASSIGN_OR_RETURN(out.outcomes_due, ViewAll(ctx.db, due, now));
  return out;
}

}  // namespace pulse

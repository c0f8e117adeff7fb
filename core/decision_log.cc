// The decision log's reads: decisions and recommendations as stored, and
// the JSON documents every caller (the command line, HTTP, the browser)
// gets for them.
#include <algorithm>

#include "core/decisions.h"
#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

std::optional<std::string> OptText(const Statement& q, int col) {
  if (q.IsNull(col)) return std::nullopt;
  return q.Text(col);
}

json OptJson(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

constexpr const char* kDecisionColumns =
    "id, question, options_json, blocks, raised_by, status, created_at, answer_option, answer_text, answer_note,"
    " answered_by, answer_session, answer_kind, overruled_pulse, answered_at, outcome, outcome_at";

Decision ReadDecision(const Statement& q) {
  Decision d;
  d.id = q.Int64(0);
  d.question = q.Text(1);
  json opts = json::parse(q.Text(2), nullptr, false);
  if (opts.is_array()) {
    for (const json& o : opts) {
      if (o.is_string()) d.options.push_back(o.get<std::string>());
    }
  }
  d.blocks = q.Text(3);
  d.raised_by = q.Text(4);
  d.status = q.Text(5);
  d.created_at = q.Text(6);
  d.answer_option = OptText(q, 7);
  d.answer_text = OptText(q, 8);
  d.answer_note = q.Text(9);
  d.answered_by = OptText(q, 10);
  d.answer_session = q.Text(11);
  d.answer_kind = OptText(q, 12);
  d.overruled_pulse = q.Int64(13) != 0;
  d.answered_at = OptText(q, 14);
  d.outcome = OptText(q, 15);
  d.outcome_at = OptText(q, 16);
  return d;
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
  r.confidence = q.Text(5);
  r.blocks = q.Text(6);
  r.safe_default_by = OptText(q, 7);
  r.needs = q.Text(8);
  r.session = q.Text(9);
  r.recommended_at = q.Text(10);
  r.status = q.Text(11);
  r.resolved_at = OptText(q, 12);
  return std::optional<Recommendation>(r);
}

namespace {

json RecommendationJson(const Recommendation& r) {
  return json{{"id", r.id},
              {"option", OptJson(r.option)},
              {"text", OptJson(r.text)},
              {"why", r.why},
              {"evidence", r.evidence},
              {"confidence", r.confidence},
              {"blocks", r.blocks},
              {"safe_default_by", OptJson(r.safe_default_by)},
              {"needs", r.needs},
              {"session", r.session},
              {"recommended_at", r.recommended_at},
              {"status", r.status},
              {"resolved_at", OptJson(r.resolved_at)}};
}

}  // namespace

Result<json> DecisionJson(Db& db, const Decision& d, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(std::optional<Recommendation> rec, CurrentRecommendation(db, d.id));
  json out{{"id", d.id},
           {"question", d.question},
           {"options", d.options},
           {"blocks", d.blocks},
           {"raised_by", d.raised_by},
           {"status", d.status},
           {"created_at", d.created_at},
           {"recommendation", rec ? RecommendationJson(*rec) : json(nullptr)},
           {"answer", nullptr},
           {"outcome", nullptr}};
  if (d.status == "pending") {
    Result<int64_t> created = ParseTime(d.created_at);
    if (created.ok()) out["waited_seconds"] = std::max<int64_t>(0, now - *created);
  }
  if (d.answered_at) {
    out["answer"] = json{{"option", OptJson(d.answer_option)},
                         {"text", OptJson(d.answer_text)},
                         {"chosen", d.Chosen()},
                         {"note", d.answer_note},
                         {"by", OptJson(d.answered_by)},
                         {"kind", OptJson(d.answer_kind)},
                         {"session", d.answer_session},
                         {"answered_at", *d.answered_at},
                         {"applied_by_pulse", d.answered_by && *d.answered_by == "pulse"},
                         {"overruled_pulse", d.overruled_pulse}};
  }
  if (d.outcome) out["outcome"] = json{{"result", *d.outcome}, {"recorded_at", OptJson(d.outcome_at)}};
  PULSE_ASSIGN_OR_RETURN(Statement ev, db.Prepare(
      "SELECT at, kind, actor, detail FROM pulse_decision_events WHERE decision_id = ? ORDER BY id"));
  ev.Bind(1, d.id);
  json events = json::array();
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, ev.Step());
    if (!row) break;
    json detail = json::parse(ev.Text(3), nullptr, false);
    if (detail.is_discarded()) detail = json::object();
    if (ev.Text(1) == "created" && detail.is_object()) {
      if (detail.contains("why")) out["why"] = detail["why"];
      if (detail.contains("refused_call")) out["context"] = {{"refused_call", detail["refused_call"]}};
    }
    events.push_back({{"at", ev.Text(0)}, {"kind", ev.Text(1)}, {"actor", ev.Text(2)}, {"detail", detail}});
  }
  out["events"] = events;
  return out;
}

Result<std::vector<Decision>> PendingDecisions(Db& db) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string("SELECT ") + kDecisionColumns +
                                                 " FROM pulse_decisions WHERE status = 'pending' ORDER BY id"));
  std::vector<Decision> rows;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    rows.push_back(ReadDecision(q));
  }
  return rows;
}

Result<json> ListDecisions(DecisionContext& ctx, const std::string& status) {
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
  std::vector<Decision> rows;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    rows.push_back(ReadDecision(q));
  }
  json decisions = json::array();
  for (const Decision& d : rows) {
    PULSE_ASSIGN_OR_RETURN(json j, DecisionJson(ctx.db, d, now));
    decisions.push_back(std::move(j));
  }
  // Answered more than a day ago and no result yet, whatever the filter.
  PULSE_ASSIGN_OR_RETURN(Statement due, ctx.db.Prepare(
      std::string("SELECT ") + kDecisionColumns +
      " FROM pulse_decisions WHERE status = 'answered' AND outcome IS NULL AND answered_at < ? ORDER BY answered_at, id"));
  due.Bind(1, FormatTime(now - kSecondsPerDay));
  json outcomes_due = json::array();
  std::vector<Decision> due_rows;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, due.Step());
    if (!row) break;
    due_rows.push_back(ReadDecision(due));
  }
  for (const Decision& d : due_rows) {
    PULSE_ASSIGN_OR_RETURN(json j, DecisionJson(ctx.db, d, now));
    outcomes_due.push_back(std::move(j));
  }
  return json{{"decisions", decisions}, {"outcomes_due", outcomes_due}};
}

}  // namespace pulse

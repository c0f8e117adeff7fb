#include "core/facts/goal_context_facts.h"

#include "core/facts/fact_snapshot.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "core/asks/asks.h"
#include "core/facts/goal_context_runs.h"
#include "core/goal/goal_facts.h"
#include "core/base/json_limits.h"
#include "core/conversation/pulse_requests.h"
#include "core/base/time_util.h"
#include "core/base/text.h"

namespace pulse {

using nlohmann::json;

// ---- the rules ----

int64_t TwiceMedian(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? 2 * values[n / 2] : values[n / 2 - 1] + values[n / 2];
}

bool IsCostSpike(int64_t usd_micros, int64_t median_micros_x2) {
  return median_micros_x2 > 0 && usd_micros >= median_micros_x2;
}

int64_t UsdToMicros(double usd) { return std::isfinite(usd) ? std::llround(usd * 1e6) : 0; }

std::optional<double> MedianShare(std::vector<double> shares) {
  if (shares.empty()) return std::nullopt;
  std::sort(shares.begin(), shares.end());
  size_t n = shares.size();
  return n % 2 ? shares[n / 2] : (shares[n / 2 - 1] + shares[n / 2]) / 2;
}

bool IsErrorRateSpike(int64_t runs, int64_t failed, std::optional<double> median_daily_share) {
  if (runs < kErrorSpikeMinRuns || failed < kErrorSpikeMinFailed) return false;
  // Compared in whole numbers: failed/runs >= 2 * median, without rounding.
  double median = median_daily_share.value_or(0);
  return static_cast<double>(failed) >= 2 * median * static_cast<double>(runs) - 1e-9;
}

namespace {

// Every run the facts read: run.json as snapshotted, and the runs only the
// after-run hook or schedule-runs.json recorded.
const char kRunsCte[] =
    "WITH runs AS ("
    " SELECT run_id, finished_at, status, error, route, concerns_json FROM pulse_fact_runs"
    " UNION ALL"
    " SELECT run_id, finished_at, status, error, route, '[]' FROM goal_run_facts g"
    "  WHERE NOT EXISTS (SELECT 1 FROM pulse_fact_runs f WHERE f.run_id = g.run_id)) ";

bool MentionsWord(const std::string& text, const std::string& word) {
  if (word.empty()) return false;
  std::string t = Lower(text), w = Lower(word);
  auto wc = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t p = t.find(w); p != std::string::npos; p = t.find(w, p + 1)) {
    bool left = p == 0 || !wc(t[p - 1]);
    bool right = p + w.size() >= t.size() || !wc(t[p + w.size()]);
    if (left && right) return true;
  }
  return false;
}

Result<int64_t> TimeOf(const std::string& text) { return ParseTime(text); }

Status ReadSources(Db& db, ContextFacts* f) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT file, state, reason, skipped, read_at FROM pulse_fact_sources ORDER BY file"));
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    f->sources.push_back({q.Text(0), q.Text(1), q.Text(2), q.Int64(3), q.Text(4)});
  }
  return Status::OK();
}

Result<std::set<std::string>> Column(Db& db, const std::string& sql, const std::string& arg) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(sql));
  if (!arg.empty()) q.Bind(1, arg);
  std::set<std::string> out;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.insert(q.Text(0));
  }
  return out;
}

Status ReadPlanChanges(Db& db, const WorkflowConfig& config, ContextFacts* f) {
  const std::string route = config.primary_metric ? config.primary_metric->route : "";
  const std::string metric = config.primary_metric ? config.primary_metric->name : "";
  PULSE_ASSIGN_OR_RETURN(std::set<std::string> goal_steps,
                         Column(db, "SELECT step FROM pulse_fact_route_steps WHERE route = ?", route.empty() ? "\x01" : route));
  PULSE_ASSIGN_OR_RETURN(std::set<std::string> builders,
                         Column(db, "SELECT session_id FROM pulse_fact_chats WHERE kind = 'builder'", ""));
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT at, tool, reason, steps_json, who, session FROM pulse_fact_changelog"
      " WHERE at > ? AND at <= ? ORDER BY at DESC, id DESC LIMIT ?"));
  q.Bind(1, FormatTime(f->since)).Bind(2, FormatTime(f->now)).Bind(3, static_cast<int64_t>(kFactsListMax));
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    PlanChange c;
    PULSE_ASSIGN_OR_RETURN(c.at, TimeOf(q.Text(0)));
    c.tool = q.Text(1);
    c.reason = q.Text(2);
    Result<json> steps = ParseJsonBounded(q.Text(3), "pulse_fact_changelog.steps_json", 4);
    if (steps.ok() && steps->is_array()) {
      for (const json& s : *steps) if (s.is_string()) c.steps.push_back(s.get<std::string>());
    }
    c.who = q.Text(4);
    c.session = q.Text(5);
    for (const std::string& s : c.steps) {
      if (goal_steps.count(s) || (!route.empty() && s == route)) c.goal_steps.push_back(s);
    }
    c.touches_metric = c.tool == "configure_goal_metrics" || MentionsWord(c.reason, metric) ||
                       std::find(c.steps.begin(), c.steps.end(), metric) != c.steps.end();
    c.builder_chat = builders.count(c.session) > 0;
    f->plan_changes.push_back(std::move(c));
  }
  std::reverse(f->plan_changes.begin(), f->plan_changes.end());
  return Status::OK();
}

Status ReadOwnerAnswers(Db& db, ContextFacts* f) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT id, question, answer_option, answer_text, status, coalesce(answer_kind, ''), answer_note, answered_at"
      " FROM pulse_decisions WHERE status IN ('answered', 'dismissed') AND coalesce(answered_by, 'owner') = 'owner'"
      " AND answered_at > ? AND answered_at <= ? ORDER BY answered_at DESC, id DESC LIMIT ?"));
  q.Bind(1, FormatTime(f->since)).Bind(2, FormatTime(f->now)).Bind(3, static_cast<int64_t>(kFactsListMax));
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    OwnerAnswer a;
    a.decision_id = q.Int64(0);
    a.question = q.Text(1);
    a.answer = q.Text(4) == "dismissed" ? "dismissed" : !q.IsNull(2) ? q.Text(2) : q.Text(3);
    a.kind = q.Text(5).empty() ? q.Text(4) : q.Text(5);
    a.note = q.Text(6);
    PULSE_ASSIGN_OR_RETURN(a.answered_at, TimeOf(q.Text(7)));
    f->owner_answers.push_back(std::move(a));
  }
  std::reverse(f->owner_answers.begin(), f->owner_answers.end());
  return Status::OK();
}

// The ledger's events in (from, to]: the whole hours between from the
// hourly sums, the part-hours at both ends from the rows (a few hundred
// rows however long the history is). An hour bucket holds the events whose
// `at` starts with it, so the split is exact on the same text comparisons.
Status SpendBetween(Db& db, int64_t from, int64_t to, int64_t* micros, int64_t* events) {
  const std::string a = FormatTime(from), b = FormatTime(to);
  const std::string first_hour = a.substr(0, 13), last_hour = b.substr(0, 13);
  std::string after_first = first_hour;
  ++after_first.back();  // the smallest text after every one starting with first_hour
  const bool split = first_hour < last_hour;
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(split
      ? "SELECT coalesce(sum(e), 0), coalesce(sum(m), 0) FROM ("
        " SELECT events AS e, micros AS m FROM pulse_fact_cost_hours WHERE hour > ?1 AND hour < ?2"
        " UNION ALL SELECT 1, CAST(round(usd * 1000000) AS INTEGER) FROM pulse_fact_costs WHERE at > ?3 AND at < ?5"
        " UNION ALL SELECT 1, CAST(round(usd * 1000000) AS INTEGER) FROM pulse_fact_costs WHERE at >= ?2 AND at <= ?4)"
      : "SELECT count(*), coalesce(sum(CAST(round(usd * 1000000) AS INTEGER)), 0) FROM pulse_fact_costs"
        " WHERE at > ?3 AND at <= ?4"));
  if (split) q.Bind(1, first_hour).Bind(2, last_hour).Bind(5, after_first);
  q.Bind(3, a).Bind(4, b);
  PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
  if (row) {
    *events = q.Int64(0);
    *micros = q.Int64(1);
  }
  return Status::OK();
}

// The route a run took, from whichever record has it (`q` selects it from
// the runs of kRunsCte).
Result<std::string> RouteOf(Statement& q, const std::string& run_id) {
  q.Reset();
  q.Bind(1, run_id);
  PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
  return row ? q.Text(0) : std::string();
}

Status ReadSpend(Db& db, const WorkflowConfig& config, ContextFacts* f) {
  Spend& s = f->spend;
  PULSE_ASSIGN_OR_RETURN(Statement any, db.Prepare("SELECT 1 FROM pulse_fact_costs LIMIT 1"));
  PULSE_ASSIGN_OR_RETURN(s.has_ledger, any.Step());
  PULSE_RETURN_IF_ERROR(SpendBetween(db, f->now - kSpendWindowSeconds, f->now, &s.last_7_days_micros,
                                     &s.events_last_7_days));
  PULSE_RETURN_IF_ERROR(SpendBetween(db, f->now - 2 * kSpendWindowSeconds, f->now - kSpendWindowSeconds,
                                     &s.previous_7_days_micros, &s.events_previous_7_days));
  // Runs by the ledger's run_id; events without one (chats, Pulse turns)
  // count only in the weekly totals above.
  // A run whose events all fall in the window is its per-run sum; a run
  // straddling an end is summed from its rows in the window.
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT run_id, micros, last_at FROM pulse_fact_run_costs"
      " WHERE last_at > ?1 AND last_at <= ?2 AND first_at > ?1"
      " UNION ALL"
      " SELECT c.run_id, sum(CAST(round(c.usd * 1000000) AS INTEGER)), max(c.at)"
      " FROM pulse_fact_run_costs r CROSS JOIN pulse_fact_costs c"
      "  ON c.run_id = r.run_id AND c.at > ?1 AND c.at <= ?2"
      " WHERE r.last_at > ?1 AND r.first_at <= ?2 AND NOT (r.first_at > ?1 AND r.last_at <= ?2)"
      " GROUP BY c.run_id"));
  q.Bind(1, FormatTime(f->now - kMedianWindowSeconds)).Bind(2, FormatTime(f->now));
  // Every run counts for the median; only the ones whose last event falls
  // in the window can be spikes, so only they are kept.
  const std::string since = FormatTime(f->since);
  struct RunCost { std::string id; int64_t micros; std::string last; };
  std::vector<RunCost> candidates;
  std::vector<int64_t> totals;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    totals.push_back(q.Int64(1));
    if (StoredText(q, 2) > std::string_view(since)) candidates.push_back({q.Text(0), q.Int64(1), q.Text(2)});
  }
  f->cost_median = {static_cast<int64_t>(totals.size()), TwiceMedian(std::move(totals))};
  std::vector<RunCost> spikes;
  for (RunCost& r : candidates) {
    if (IsCostSpike(r.micros, f->cost_median.median_micros_x2)) spikes.push_back(std::move(r));
  }
  // By run id, as one GROUP BY over the rows listed them (equal spikes keep
  // their order below).
  std::sort(spikes.begin(), spikes.end(), [](const RunCost& x, const RunCost& y) { return x.id < y.id; });
  const std::string goal_route = config.primary_metric ? config.primary_metric->route : "";
  if (spikes.empty()) return Status::OK();
  PULSE_ASSIGN_OR_RETURN(Statement route, db.Prepare(
      std::string(kRunsCte) + "SELECT route FROM runs WHERE run_id = ? AND route != '' LIMIT 1"));
  for (const RunCost& r : spikes) {
    CostSpike spike{r.id, r.micros, f->cost_median.median_micros_x2, 0, "", false};
    PULSE_ASSIGN_OR_RETURN(spike.last_at, TimeOf(r.last));
    PULSE_ASSIGN_OR_RETURN(spike.route, RouteOf(route, r.id));
    spike.goal_route = !goal_route.empty() && spike.route == goal_route;
    f->cost_spikes.push_back(std::move(spike));
  }
  std::sort(f->cost_spikes.begin(), f->cost_spikes.end(),
            [](const CostSpike& a, const CostSpike& b) { return a.usd_micros > b.usd_micros; });
  if (f->cost_spikes.size() > kFactsListMax) f->cost_spikes.resize(kFactsListMax);
  return Status::OK();
}

Status ReadRunProblems(Db& db, ContextFacts* f) {
  PULSE_ASSIGN_OR_RETURN(int64_t open, OpenQaRequestCount(db));
  f->run_health.open_issues = open;
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT folder, reason FROM pulse_fact_run_problems ORDER BY folder LIMIT ?"));
  q.Bind(1, static_cast<int64_t>(kFactsListMax));
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    f->run_health.unreadable.push_back(UnreadableRun{q.Text(0), q.Text(1)});
  }
  return Status::OK();
}

}  // namespace

std::string NeedsReauthLine(const ContextFacts& f) {
  if (f.login_hints.empty()) return "";
  std::string line = "Needs re-auth: re-connect what ";
  std::set<std::string> runs;
  size_t shown = 0;
  for (const LoginHint& h : f.login_hints) {
    if (!runs.insert(h.run_id).second) continue;
    if (shown == 3) {
      line += "; and more runs";
      break;
    }
    line += (shown++ ? "; run " : "run ") + h.run_id + " uses (" + h.pattern + " in its " +
            (h.where == "error" ? "error" : "CONCERNS: lines") + ": \"" + h.matched + "\")";
  }
  return line + ".";
}

Result<ContextFacts> GatherContextFacts(Db& db, const WorkflowConfig& config, int64_t now, FactsWindow window) {
  ContextFacts f;
  f.now = now;
  f.window = window;
  PULSE_ASSIGN_OR_RETURN(std::optional<RecordedCheck> last, LatestRecordedCheck(db, now));
  int64_t before = now;  // with no check to start at, the 7 days before this
  if (last && window == FactsWindow::kSincePreviousCheck) {
    f.latest_check_at = last->checked_at;
    before = last->checked_at;
    PULSE_ASSIGN_OR_RETURN(last, PreviousRecordedCheck(db, *last));
  }
  if (last) f.last_check_at = last->checked_at;
  f.since = f.last_check_at ? *f.last_check_at : before - kFactsDefaultWindowSeconds;
  PULSE_RETURN_IF_ERROR(ReadSources(db, &f));
  PULSE_RETURN_IF_ERROR(ReadPlanChanges(db, config, &f));
  PULSE_RETURN_IF_ERROR(ReadOwnerAnswers(db, &f));
  PULSE_RETURN_IF_ERROR(ReadSpend(db, config, &f));
  PULSE_RETURN_IF_ERROR(ReadRunFacts(db, config, &f));
  PULSE_RETURN_IF_ERROR(ReadRunProblems(db, &f));
  PULSE_ASSIGN_OR_RETURN(std::vector<AskRecord> asks, Asks(db, "").BuilderAnswersSince(f.since, kFactsListMax));
  for (const AskRecord& a : asks) {
    BuilderAsk b;
    b.at = a.answered_at ? FormatTime(*a.answered_at) : "";
    b.kind = a.kind;
    b.message = a.message;
    b.answer = a.answer;
    b.status = a.status;
    b.call_id = a.call_id;
    const auto chat = a.detail.find("builder_session_id");
    if (chat != a.detail.end() && chat->is_string()) b.builder_session_id = chat->get<std::string>();
    f.builder_asks.push_back(b);
  }
  return f;
}

Result<ContextFacts> ContextFactsNow(Env& env, Db& db, const WorkflowConfig& config, const std::string& workflow_dir,
                                     OutsideFilesReader read_outside_files, FactsWindow window) {
  const int64_t now = env.NowSeconds();
  if (!workflow_dir.empty() && read_outside_files) read_outside_files(env, db, workflow_dir, now);
  return GatherContextFacts(db, config, now, window);
}

}  // namespace pulse

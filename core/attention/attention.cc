#include "core/attention/attention.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/base/cron.h"
#include "core/base/json_limits.h"
#include "core/base/sha256.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"
#include "core/decisions/decisions.h"
#include "core/store/schema.h"

namespace pulse {

using nlohmann::json;

namespace {

constexpr const char* kKindNames[kAttentionKindCount] = {
    "goal_alarm",    "needs_reauth",    "error_rate_spike", "cost_spike",
    "review_broken", "delivery_failed", "schedule_late",    "decision_waiting"};

// "7 Oct 08:00 UTC"
std::string When(int64_t t) { return FormatShortDay(t) + " " + FormatTime(t).substr(11, 5) + " UTC"; }

std::string Usd(int64_t micros) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", static_cast<double>(micros) / 1e6);
  return buf;
}

std::string Percent(double share) { return std::to_string(static_cast<int>(share * 100 + 0.5)) + "%"; }

// A sentence ends once: "…today." stays, "…today" gets its full stop.
std::string Sentence(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  if (s.empty() || (s.back() != '.' && s.back() != '?' && s.back() != '!')) s += '.';
  return s;
}

std::string Quoted(const std::string& text, size_t max) {
  std::string_view cut = Utf8Prefix(text, max);
  return std::string(cut) + (cut.size() < text.size() ? "…" : "");
}

struct Builder {
  std::vector<AttentionItem>* items;
  void Add(AttentionKind kind, Severity severity, std::string key, const std::string& what, std::string text,
           const char* card, std::optional<int64_t> since) {
    AttentionItem it;
    it.kind = kind;
    it.severity = severity;
    it.key = std::string(kKindNames[static_cast<int>(kind)]) + (key.empty() ? "" : ":" + key);
    it.fingerprint = Sha256Hex(what).substr(0, 16);
    it.text = Sentence(std::move(text));
    it.card = card;
    it.since = since;
    items->push_back(std::move(it));
  }
};

void GoalAlarms(const GoalCheck& check, Builder& b) {
  for (const Alarm& a : check.alarms) {
    const bool critical = a.kind == AlarmKind::kNotMeasured || a.kind == AlarmKind::kGoalWorkNotCompleted;
    std::optional<int64_t> since;
    if (a.kind == AlarmKind::kNotMeasured) since = check.last_measured_by_run_at;
    // "Until it changes": the alarm's own facts (runs, routes), not its
    // growing day count.
    json fields = a.fields;
    fields.erase("days");
    b.Add(AttentionKind::kGoalAlarm, critical ? Severity::kCritical : Severity::kWarning, AlarmKindName(a.kind),
          fields.dump(), a.message, "goal-status", since);
  }
}

void FactItems(const ContextFacts& f, Builder& b) {
  if (f.needs_reauth()) {
    std::string runs;
    std::optional<int64_t> first;
    for (const LoginHint& h : f.login_hints) {
      runs += h.run_id + ",";
      if (!first || h.at < *first) first = h.at;
    }
    b.Add(AttentionKind::kNeedsReauth, Severity::kCritical, "", runs, NeedsReauthLine(f), "run-health", first);
  }
  const ErrorRate& e = f.error_rate;
  if (e.spike && e.share) {
    std::string text = std::to_string(e.failed) + " of " + std::to_string(e.runs) + " runs failed since " +
                       FormatShortDay(f.since) + " (" + Percent(*e.share) + ", against " +
                       Percent(e.median_daily_share.value_or(0)) + " on the median day of the last 14)";
    std::optional<int64_t> since;
    for (const FailedRun& r : f.run_health.failed_runs) {
      if (!since || r.finished_at < *since) since = r.finished_at;
    }
    b.Add(AttentionKind::kErrorRateSpike, Severity::kWarning, "", std::to_string(e.runs) + "/" + std::to_string(e.failed),
          text, "run-health", since);
  }
  if (!f.cost_spikes.empty()) {
    const CostSpike* top = &f.cost_spikes[0];
    std::string runs;
    for (const CostSpike& s : f.cost_spikes) {
      runs += s.run_id + ",";
      if (s.usd_micros > top->usd_micros) top = &s;
    }
    char ratio[16];
    std::snprintf(ratio, sizeof ratio, "%.1f", top->median_micros_x2 ? 2.0 * top->usd_micros / top->median_micros_x2 : 0);
    std::string text = "Run " + top->run_id + " cost " + Usd(top->usd_micros) + ", " + ratio + "× the 14-day median run (" +
                       Usd(top->median_micros_x2 / 2) + ")" + (top->route.empty() ? "" : ", on route " + top->route);
    if (f.cost_spikes.size() > 1) text += "; " + std::to_string(f.cost_spikes.size() - 1) + " more runs cost twice the median or more";
    b.Add(AttentionKind::kCostSpike, Severity::kWarning, "", runs, text, "goal-facts", top->last_at);
  }
}

Status ReviewItem(Db& db, Builder& b) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT outcome, broken_json, finished_at FROM pulse_fact_review"));
  PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row || q.Text(0) != "broken") return Status::OK();
  std::string breaks;
  Result<json> broken = ParseJsonBounded(q.Text(1), "pulse_fact_review.broken_json", 4);
  if (broken.ok() && broken->is_array()) {
    for (const json& s : *broken) {
      if (!s.is_object()) continue;
      breaks += (breaks.empty() ? "" : "; ") + s.value("step", std::string()) + ": " + s.value("reason", std::string());
    }
  }
  b.Add(AttentionKind::kReviewBroken, Severity::kCritical, "", q.Text(1) + q.Text(2),
        "Workflow Review found the plan broken (" + Quoted(breaks, 400) + "); runs that touch these steps stop",
        "schedules", q.Time(2));
  return Status::OK();
}

// "slack:#growth" -> "Slack #growth"
std::string TargetWords(const std::string& t) {
  if (t == "webhook") return "the webhook";
  if (t.rfind("slack:", 0) == 0) {
    std::string rest = t.substr(6);
    size_t thread = rest.find('/');
    return "Slack " + rest.substr(0, thread) + (thread == std::string::npos ? "" : " (a thread)");
  }
  return t;
}

Status DeliveryItems(Db& db, int64_t now, Builder& b) {
  // Given up in the last week, on a target nothing was delivered to since.
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT d.target, d.message_id, d.attempts, d.error, d.last_attempt_at FROM pulse_outbox_delivery d"
      " WHERE d.state = 'failed' AND d.last_attempt_at >= ? AND NOT EXISTS (SELECT 1 FROM pulse_outbox_delivery e"
      "  WHERE e.target = d.target AND e.state = 'delivered' AND e.delivered_at > d.last_attempt_at)"
      " ORDER BY d.last_attempt_at DESC, d.message_id DESC LIMIT 50"));
  q.Bind(1, FormatTime(now - kDeliveryFailedWindowSeconds));
  std::vector<std::string> seen;
  std::vector<int> more;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    const std::string target = q.Text(0);
    auto at = std::find(seen.begin(), seen.end(), target);
    if (at != seen.end()) {
      ++more[at - seen.begin()];
      continue;
    }
    seen.push_back(target);
    more.push_back(0);
    std::string text = "A message to " + TargetWords(target) + " was not delivered after " +
                       std::to_string(q.Int64(2)) + " attempts (" + Quoted(q.Text(3), 200) + ")";
    b.Add(AttentionKind::kDeliveryFailed, Severity::kWarning, target, std::to_string(q.Int64(1)), text, "messages",
          q.Time(4));
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    if (!more[i]) continue;
    for (AttentionItem& it : *b.items) {
      if (it.key == std::string("delivery_failed:") + seen[i]) {
        it.text.pop_back();
        it.text += "; " + std::to_string(more[i]) + " more messages to it failed this week.";
      }
    }
  }
  return Status::OK();
}

Status ScheduleItems(Db& db, const WorkflowConfig& config, int64_t now, std::vector<ScheduleWatch>* out, Builder& b) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT max(started_at) FROM goal_run_facts WHERE schedule_id = ? AND started_at <= ?"));
  for (const Schedule& s : config.schedules) {
    q.Bind(1, s.id).Bind(2, FormatTime(now));
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    std::optional<int64_t> last = row ? q.Time(0) : std::nullopt;
    q.Reset();
    ScheduleWatch w = WatchSchedule(s, last, now);
    if (w.state == ScheduleState::kLate) {
      std::string text = "Schedule " + s.id + " (" + s.cron + ", UTC) was expected to run at " + When(*w.expected_at);
      text += w.missed > 1 ? " and has missed " + std::to_string(w.missed) + (w.missed >= 100 ? " or more" : "") +
                                 " expected runs since"
                           : " and has not";
      if (w.next_at) text += "; next expected " + When(*w.next_at);
      b.Add(AttentionKind::kScheduleLate, w.missed >= kScheduleMissedCritical ? Severity::kCritical : Severity::kWarning,
            s.id, FormatTime(*w.expected_at), text, "schedules", w.expected_at);
    }
    out->push_back(std::move(w));
  }
  return Status::OK();
}

Status DecisionItems(Db& db, int64_t now, Builder& b) {
  PULSE_ASSIGN_OR_RETURN(std::vector<Decision> pending, PendingDecisions(db));
  for (const Decision& d : pending) {
    if (now - d.created_at < kDecisionWaitingSeconds) continue;
    const int64_t days = (now - d.created_at) / kSecondsPerDay;
    b.Add(AttentionKind::kDecisionWaiting, Severity::kWarning, std::to_string(d.id), std::to_string(d.id),
          "A decision has waited " + (days == 1 ? std::string("a day") : std::to_string(days) + " days") +
              " for your answer: " + Quoted(d.question, 200),
          "needs-you", d.created_at);
  }
  return Status::OK();
}

Status ApplySnoozes(Db& db, int64_t now, std::vector<AttentionItem>* items) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT key, fingerprint, until FROM pulse_attention_snoozes"));
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    const std::string key = q.Text(0);
    const std::optional<int64_t> until = q.Time(2);
    for (AttentionItem& it : *items) {
      if (it.key != key) continue;
      if (until ? now < *until : it.fingerprint == q.Text(1)) {
        it.snoozed = true;
        it.snoozed_until = until;
      }
    }
  }
  return Status::OK();
}

}  // namespace

const char* AttentionKindName(AttentionKind kind) { return kKindNames[static_cast<int>(kind)]; }

std::optional<AttentionKind> ParseAttentionKind(std::string_view name) {
  for (int i = 0; i < kAttentionKindCount; ++i) {
    if (name == kKindNames[i]) return static_cast<AttentionKind>(i);
  }
  return std::nullopt;
}

const char* SeverityName(Severity s) {
  return s == Severity::kCritical ? "critical" : s == Severity::kWarning ? "warning" : "info";
}

const char* ScheduleStateName(ScheduleState s) {
  static const char* kNames[] = {"on_time", "late", "paused", "new", "invalid"};
  return kNames[static_cast<int>(s)];
}

ScheduleWatch WatchSchedule(const Schedule& schedule, std::optional<int64_t> last_run_at, int64_t now) {
  ScheduleWatch w;
  w.id = schedule.id;
  w.cron = schedule.cron;
  w.last_run_at = last_run_at;
  Result<CronSpec> spec = ParseCron(schedule.cron, "schedule " + schedule.id);
  if (!spec.ok()) {
    w.state = ScheduleState::kInvalid;
    w.problem = spec.status().message();
    return w;
  }
  w.next_at = NextFire(*spec, now);
  if (!schedule.enabled) {
    w.state = ScheduleState::kPaused;
    return w;
  }
  if (!last_run_at) {
    w.state = ScheduleState::kNew;
    return w;
  }
  // A run started a little before its minute still covers that fire.
  w.expected_at = NextFire(*spec, *last_run_at + 59);
  w.state = ScheduleState::kOnTime;
  for (std::optional<int64_t> t = w.expected_at; t && *t + kScheduleGraceSeconds <= now && w.missed < 100;
       t = NextFire(*spec, *t)) {
    ++w.missed;
  }
  if (w.missed) w.state = ScheduleState::kLate;
  return w;
}

std::optional<Severity> Attention::Worst() const {
  std::optional<Severity> worst;
  for (const AttentionItem& it : items) {
    if (!it.snoozed && (!worst || it.severity < *worst)) worst = it.severity;
  }
  return worst;
}

int Attention::Open() const {
  return static_cast<int>(std::count_if(items.begin(), items.end(), [](const AttentionItem& it) { return !it.snoozed; }));
}

Result<Attention> GatherAttention(Db& db, const WorkflowConfig& config, const GoalCheck& check,
                                  const ContextFacts& facts, int64_t now) {
  Attention a;
  Builder b{&a.items};
  GoalAlarms(check, b);
  FactItems(facts, b);
  PULSE_RETURN_IF_ERROR(ReviewItem(db, b));
  PULSE_RETURN_IF_ERROR(DeliveryItems(db, now, b));
  PULSE_RETURN_IF_ERROR(ScheduleItems(db, config, now, &a.schedules, b));
  PULSE_RETURN_IF_ERROR(DecisionItems(db, now, b));
  PULSE_RETURN_IF_ERROR(ApplySnoozes(db, now, &a.items));
  // Open items worst first, then the snoozed ones.
  std::stable_sort(a.items.begin(), a.items.end(), [](const AttentionItem& x, const AttentionItem& y) {
    return std::make_pair(x.snoozed, x.severity) < std::make_pair(y.snoozed, y.severity);
  });
  return a;
}

int GoalStatusOrder(GoalStatus status) {
  switch (status) {
    case GoalStatus::kOffTrack: return 1;
    case GoalStatus::kNotMeasured: return 2;
    case GoalStatus::kAtRisk: return 3;
    case GoalStatus::kOnTrack: return 4;
    case GoalStatus::kNoGoal: return 5;
  }
  return 0;
}

int AttentionRank(GoalStatus status, std::optional<Severity> worst) {
  int rank = status == GoalStatus::kOffTrack || status == GoalStatus::kNotMeasured ? 1
             : status == GoalStatus::kAtRisk                                       ? 2
             : status == GoalStatus::kOnTrack                                      ? 3
                                                                                   : 4;
  if (worst == Severity::kCritical) rank = std::min(rank, 1);
  if (worst == Severity::kWarning) rank = std::min(rank, 2);
  return rank;
}

Status SnoozeAttention(Db& db, const Attention& current, const std::string& key, std::optional<int64_t> until,
                       int64_t now) {
  const AttentionItem* item = nullptr;
  for (const AttentionItem& it : current.items) {
    if (it.key == key) item = &it;
  }
  if (!item) return Status::NotFound("attention: no item \"" + Quoted(key, 200) + "\" needs attention now");
  if (until && *until <= now) {
    return Status::InvalidArgument("attention: \"until\" " + FormatTime(*until) + " is not after now (" + FormatTime(now) + ")");
  }
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT OR REPLACE INTO pulse_attention_snoozes(key, fingerprint, until, at) VALUES(?, ?, ?, ?)"));
  put.Bind(1, key).Bind(2, item->fingerprint).Bind(3, until ? FormatTime(*until) : "").BindTime(4, now);
  return put.Run();
}

Status UnsnoozeAttention(Db& db, const std::string& key) {
  PULSE_ASSIGN_OR_RETURN(Statement del, db.Prepare("DELETE FROM pulse_attention_snoozes WHERE key = ?"));
  del.Bind(1, key);
  PULSE_RETURN_IF_ERROR(del.Run());
  if (db.Changes() == 0) return Status::NotFound("attention: \"" + Quoted(key, 200) + "\" is not snoozed");
  return Status::OK();
}

Status EnsureAttentionSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       // The owner's snoozes: until a time, or (until = '') while the item's
       // fingerprint stays the same.
       "CREATE TABLE IF NOT EXISTS pulse_attention_snoozes ("
       " key TEXT PRIMARY KEY,"
       " fingerprint TEXT NOT NULL,"
       " until TEXT NOT NULL DEFAULT '',"
       " at TEXT NOT NULL);"
       // Each schedule's latest run, for schedule_late.
       "CREATE INDEX IF NOT EXISTS goal_run_facts_by_schedule ON goal_run_facts(schedule_id, started_at);"},
  };
  return ApplyMigrations(db, "attention", kMigrations);
}

}  // namespace pulse

#include "core/goal/goal_check.h"

#include <algorithm>
#include <cmath>

#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

// 412.0 prints as 412, as a person wrote it.
json NumberJson(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<int64_t>(v);
  return v;
}

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json TimeOrNull(const std::optional<int64_t>& t) { return t ? json(FormatTime(*t)) : json(nullptr); }

std::string Days(int64_t n) { return std::to_string(n) + (n == 1 ? " day" : " days"); }

std::string Times(int64_t n) {
  if (n == 1) return "once";
  if (n == 2) return "twice";
  return std::to_string(n) + " times";
}

// "one failed growth run", "3 failed growth runs": the owner's wording.
std::string CountWord(int64_t n) {
  static const char* kWords[] = {"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"};
  return n >= 0 && n <= 10 ? kWords[n] : std::to_string(n);
}

// The work a route stands for, in the owner's words: growth_funnel -> growth.
std::string WorkName(const std::string& route) {
  size_t cut = route.find('_');
  return cut == std::string::npos ? route : route.substr(0, cut);
}

bool Exceeds(int64_t then, int64_t now, int days) { return now - then > static_cast<int64_t>(days) * kSecondsPerDay; }

Result<std::optional<Reading>> OneReading(Statement& q) {
  PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return std::optional<Reading>();
  Reading r;
  PULSE_ASSIGN_OR_RETURN(r.at, ParseTime(q.Text(0)));
  r.value = q.Double(1);
  r.source = q.Text(2);
  r.run_id = q.Text(3);
  return std::optional<Reading>(std::move(r));
}

Result<std::optional<int64_t>> OneTime(Statement& q) {
  PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row || q.IsNull(0)) return std::optional<int64_t>();
  PULSE_ASSIGN_OR_RETURN(int64_t t, ParseTime(q.Text(0)));
  return std::optional<int64_t>(t);
}

}  // namespace

json Alarm::ToJson() const {
  json out = fields.is_object() ? fields : json::object();
  out["kind"] = AlarmKindName(kind);
  if (kind != AlarmKind::kGoalWorkWithoutReading && kind != AlarmKind::kSchedulesPaused) out["days"] = OrNull(days);
  out["message"] = message;
  return out;
}

namespace {

// The primary metric's readings by a workflow run up to a time, newest first.
constexpr const char* kReadingsByRunSql =
    "SELECT at, value, source, run_id FROM pulse_goal_observations"
    " WHERE metric = ? AND source = 'workflow_run' AND at <= ? ORDER BY at DESC LIMIT 2";

// The primary metric's readings the rule needs: the latest, the first, the
// last two by a run, and the few from outside a run since then.
Status GatherReadings(Db& db, const PrimaryMetric& m, int64_t now, const std::string& now_text, GoalFacts* f) {
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
        "SELECT at, value, source, run_id FROM pulse_goal_observations WHERE metric = ? AND at <= ?"
        " ORDER BY at DESC, source DESC, run_id DESC LIMIT 1"));
    q.Bind(1, m.name).Bind(2, now_text);
    PULSE_ASSIGN_OR_RETURN(f->latest_reading, OneReading(q));
  }
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
        "SELECT at, value, source, run_id FROM pulse_goal_observations WHERE metric = ?"
        " ORDER BY at, source, run_id LIMIT 1"));
    q.Bind(1, m.name);
    PULSE_ASSIGN_OR_RETURN(f->first_reading, OneReading(q));
    // The first reading can only be a future one when every reading is.
    if (f->first_reading && f->first_reading->at > now) f->first_reading.reset();
  }
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(kReadingsByRunSql));
    q.Bind(1, m.name).Bind(2, now_text);
    for (int i = 0; i < 2; ++i) {
      PULSE_ASSIGN_OR_RETURN(std::optional<Reading> r, OneReading(q));
      if (!r) break;
      f->last_two_by_run.push_back(std::move(*r));
    }
  }
  const std::string last_by_run = f->last_two_by_run.empty() ? std::string() : FormatTime(f->last_two_by_run[0].at);
  {
    // Bounded: the card lists the latest few; older ones are in goal.readings.
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
        "SELECT at, value, source, run_id FROM pulse_goal_observations"
        " WHERE metric = ? AND source IN ('builder_chat', 'manual') AND at > ? AND at <= ?"
        " ORDER BY at DESC LIMIT 20"));
    q.Bind(1, m.name).Bind(2, last_by_run).Bind(3, now_text);
    while (true) {
      PULSE_ASSIGN_OR_RETURN(std::optional<Reading> r, OneReading(q));
      if (!r) break;
      f->outside_run_readings.push_back(std::move(*r));
    }
    std::sort(f->outside_run_readings.begin(), f->outside_run_readings.end(),
              [](const Reading& a, const Reading& b) { return a.at < b.at; });
  }
  return Status::OK();
}

// The goal route's runs since its last reading and since its last completion.
Status GatherGoalRuns(Db& db, const PrimaryMetric& m, const std::string& now_text, GoalFacts* f) {
  const std::string last_by_run = f->last_two_by_run.empty() ? std::string() : FormatTime(f->last_two_by_run[0].at);
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
        "SELECT count(*) FROM goal_run_facts WHERE route = ? AND finished_at > ? AND finished_at <= ?"
        " AND primary_reading = 0"));
    q.Bind(1, m.route).Bind(2, last_by_run).Bind(3, now_text);
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    f->goal_runs_without_reading = row ? q.Int64(0) : 0;
  }
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
        "SELECT finished_at FROM goal_run_facts WHERE route = ? AND completed = 1 AND finished_at <= ?"
        " ORDER BY finished_at DESC LIMIT 1"));
    q.Bind(1, m.route).Bind(2, now_text);
    PULSE_ASSIGN_OR_RETURN(f->last_goal_completed_at, OneTime(q));
  }
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
        "SELECT route, completed, count(*) FROM goal_run_facts WHERE finished_at > ? AND finished_at <= ?"
        " GROUP BY route, completed"));
    q.Bind(1, f->last_goal_completed_at ? FormatTime(*f->last_goal_completed_at) : std::string()).Bind(2, now_text);
    while (true) {
      PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      std::string route = q.Text(0);
      if (route == m.route) {
        // Completed goal runs cannot follow the last one; the rest failed.
        if (q.Int64(1) == 0) f->failed_goal_runs += q.Int64(2);
      } else {
        f->runs_since_by_route[route.empty() ? "(no route)" : route] += q.Int64(2);
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<GoalFacts> GatherGoalFacts(Db& db, const WorkflowConfig& config, int64_t now) {
  GoalFacts f;
  const std::string now_text = FormatTime(now);
  PULSE_ASSIGN_OR_RETURN(f.last_recorded, LatestRecordedCheck(db, now));
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT max(rowid) FROM goal_run_facts"));
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    f.max_run_rowid = row && !q.IsNull(0) ? q.Int64(0) : 0;
  }
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT max(rowid) FROM pulse_goal_observations"));
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    f.max_reading_rowid = row && !q.IsNull(0) ? q.Int64(0) : 0;
  }
  {
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
        "SELECT finished_at FROM goal_run_facts WHERE finished_at <= ? ORDER BY finished_at DESC LIMIT 1"));
    q.Bind(1, now_text);
    PULSE_ASSIGN_OR_RETURN(f.last_run_at, OneTime(q));
  }
  if (!config.primary_metric) return f;
  const PrimaryMetric& m = *config.primary_metric;

  PULSE_RETURN_IF_ERROR(GatherReadings(db, m, now, now_text, &f));
  if (m.route.empty()) return f;
  PULSE_RETURN_IF_ERROR(GatherGoalRuns(db, m, now_text, &f));
  return f;
}

GoalStatus DecideGoalStatus(const PrimaryMetric& m, const StatusInputs& in) {
  if (!in.measured_by_run_recently || !in.latest) return GoalStatus::kNotMeasured;
  const double v = in.latest->value;
  auto toward = [&](double delta) { return m.increase ? delta > 0 : delta < 0; };
  const bool reached = m.target && (m.increase ? v >= *m.target : v <= *m.target);

  // A missing baseline is the first reading (its value and its time).
  std::optional<double> baseline = m.baseline;
  std::optional<int64_t> baseline_at = m.baseline_at;
  if (!baseline && in.first) {
    baseline = in.first->value;
    baseline_at = in.first->at;
  } else if (baseline && !baseline_at && in.first) {
    baseline_at = in.first->at;
  }

  if (m.deadline && m.target && baseline && baseline_at && *m.deadline > *baseline_at) {
    // Where the straight line from (baseline_at, baseline) to (deadline,
    // target) stands at the reading's time.
    int64_t t = std::clamp(in.latest->at, *baseline_at, *m.deadline);
    double expected = *baseline + (*m.target - *baseline) * static_cast<double>(t - *baseline_at) /
                                      static_cast<double>(*m.deadline - *baseline_at);
    double denom = expected - *baseline;
    if (std::fabs(denom) > 1e-9) {
      // Signed differences make it direction-aware: for a decrease both are
      // negative when on the way down.
      double progress = (v - *baseline) / denom;
      if (progress >= 1) return in.any_alarm ? GoalStatus::kAtRisk : GoalStatus::kOnTrack;
      if (progress >= 0.8) return GoalStatus::kAtRisk;
      return GoalStatus::kOffTrack;
    }
    // The reading sits at the baseline's own time: no line yet, use the trend.
  }
  if (reached) return in.any_alarm ? GoalStatus::kAtRisk : GoalStatus::kOnTrack;
  if (in.last_two_by_run.size() < 2) return GoalStatus::kAtRisk;  // one reading shows no direction yet
  double delta = in.last_two_by_run[0].value - in.last_two_by_run[1].value;
  if (delta == 0) return GoalStatus::kAtRisk;
  if (toward(delta)) return in.any_alarm ? GoalStatus::kAtRisk : GoalStatus::kOnTrack;
  return GoalStatus::kOffTrack;
}

namespace {

// Not measured by a workflow run within N days. A reading exactly N days
// old is still within them.
std::optional<Alarm> NotMeasuredAlarm(std::optional<int64_t> last_by_run, int days, int64_t now) {
  if (last_by_run && !Exceeds(*last_by_run, now, days)) return std::nullopt;
  Alarm a;
  a.kind = AlarmKind::kNotMeasured;
  if (last_by_run) {
    a.days = WholeDaysBetween(*last_by_run, now);
    a.message = "not measured by a workflow run for " + Days(*a.days) + " (last reading " +
                FormatShortDay(*last_by_run) + ")";
  } else {
    a.message = "never measured by a workflow run";
  }
  return a;
}

std::optional<Alarm> WithoutReadingAlarm(const PrimaryMetric& m, const GoalFacts& f,
                                         std::optional<int64_t> last_by_run) {
  if (m.route.empty() || f.goal_runs_without_reading <= 0) return std::nullopt;
  Alarm a;
  a.kind = AlarmKind::kGoalWorkWithoutReading;
  a.fields["runs"] = f.goal_runs_without_reading;
  a.message = m.route + " ran " + Times(f.goal_runs_without_reading) +
              (last_by_run ? " since " + FormatShortDay(*last_by_run) : std::string()) + " without a reading";
  return a;
}

std::optional<Alarm> NotCompletedAlarm(const PrimaryMetric& m, const GoalFacts& f, int days, int64_t now) {
  int64_t runs_since = f.failed_goal_runs;
  for (const auto& [route, n] : f.runs_since_by_route) runs_since += n;
  bool stale = !f.last_goal_completed_at || Exceeds(*f.last_goal_completed_at, now, days);
  if (m.route.empty() || runs_since <= 0 || !stale) return std::nullopt;
  Alarm a;
  a.kind = AlarmKind::kGoalWorkNotCompleted;
  json by_route = json::object();
  std::vector<std::pair<std::string, int64_t>> ordered(f.runs_since_by_route.begin(), f.runs_since_by_route.end());
  // Most runs first; routes with as many runs keep the map's name order.
  std::sort(ordered.begin(), ordered.end(), [](const auto& x, const auto& y) {
    return x.second != y.second ? x.second > y.second : x.first < y.first;
  });
  std::string parts;
  for (const auto& [route, n] : ordered) {
    by_route[route] = n;
    parts += (parts.empty() ? "" : ", ") + route + " \u00d7" + std::to_string(n);
  }
  std::string work = WorkName(m.route);
  if (f.failed_goal_runs > 0) {
    parts += (parts.empty() ? "" : ", ") + CountWord(f.failed_goal_runs) + " failed " + work +
             (f.failed_goal_runs == 1 ? " run" : " runs");
  }
  a.fields["runs_since"] = by_route;
  a.fields["failed_goal_runs"] = f.failed_goal_runs;
  std::string runs = std::to_string(runs_since) + (runs_since == 1 ? " run" : " runs");
  if (f.last_goal_completed_at) {
    a.days = WholeDaysBetween(*f.last_goal_completed_at, now);
    a.message = work + " work has not completed for " + Days(*a.days) + " (the " + runs + " since: " + parts + ")";
  } else {
    a.message = work + " work has never completed (the " + runs + " so far: " + parts + ")";
  }
  return a;
}

// No run for N days; or, when runs are recent, the pause on its own.
std::optional<Alarm> RunAlarm(const WorkflowConfig& config, const GoalFacts& f, int64_t now) {
  const bool paused = config.AllSchedulesPaused();
  Alarm a;
  if (!f.last_run_at || Exceeds(*f.last_run_at, now, config.goal_check.no_run_days)) {
    a.kind = AlarmKind::kNoRun;
    a.fields["schedules_paused"] = paused;
    if (f.last_run_at) {
      a.days = WholeDaysBetween(*f.last_run_at, now);
      a.message = "no run for " + Days(*a.days);
    } else {
      a.message = "no run recorded yet";
    }
    if (paused) a.message += " with schedules paused";
    return a;
  }
  if (!paused) return std::nullopt;
  a.kind = AlarmKind::kSchedulesPaused;
  json ids = json::array();
  std::string names;
  for (const Schedule& sch : config.schedules) {
    ids.push_back(sch.id);
    names += (names.empty() ? "" : ", ") + sch.id;
  }
  a.fields["schedules"] = ids;
  a.message = "schedules all paused (" + names + ")";
  return a;
}

// Said once, then quiet: equal fingerprints mean no run, reading, alarm kind
// or pause changed in between. Days counting up are not news.
std::string Fingerprint(const GoalCheck& c, const GoalFacts& f, bool paused) {
  std::vector<std::string> kinds;
  for (const Alarm& a : c.alarms) kinds.push_back(AlarmKindName(a.kind));
  std::sort(kinds.begin(), kinds.end());
  std::string kinds_text;
  for (const std::string& k : kinds) kinds_text += (kinds_text.empty() ? "" : ",") + k;
  return "paused=" + std::string(paused ? "1" : "0") + ";alarms=" + kinds_text +
         ";runs=" + std::to_string(f.max_run_rowid) + ";readings=" + std::to_string(f.max_reading_rowid);
}

}  // namespace

GoalCheck EvaluateGoalCheck(const std::string& workflow, const WorkflowConfig& config, const GoalFacts& f,
                            int64_t now) {
  GoalCheck c;
  c.workflow = workflow;
  c.checked_at = now;
  if (!config.primary_metric) {
    c.status = GoalStatus::kNoGoal;
    c.fingerprint = "no_goal";
    return c;
  }
  const PrimaryMetric& m = *config.primary_metric;
  const int not_measured_days = config.goal_check.not_measured_days;
  const bool paused = config.AllSchedulesPaused();
  c.has_goal = true;
  c.metric_name = m.name;
  c.target = m.target;
  if (f.latest_reading) {
    c.value = f.latest_reading->value;
    c.last_measured_at = f.latest_reading->at;
  }
  if (!f.last_two_by_run.empty()) c.last_measured_by_run_at = f.last_two_by_run[0].at;
  c.outside_run_readings = f.outside_run_readings;

  for (std::optional<Alarm> a : {NotMeasuredAlarm(c.last_measured_by_run_at, not_measured_days, now),
                                 WithoutReadingAlarm(m, f, c.last_measured_by_run_at),
                                 NotCompletedAlarm(m, f, not_measured_days, now), RunAlarm(config, f, now)}) {
    if (a) c.alarms.push_back(std::move(*a));
  }

  StatusInputs in;
  in.measured_by_run_recently = !c.HasAlarm(AlarmKind::kNotMeasured);
  in.latest = f.latest_reading;
  in.first = f.first_reading;
  in.last_two_by_run = f.last_two_by_run;
  in.any_alarm = std::any_of(c.alarms.begin(), c.alarms.end(), [](const Alarm& a) { return a.kind != AlarmKind::kNotMeasured; });
  c.status = DecideGoalStatus(m, in);

  // While paused, a check is quiet when the latest recorded check already
  // reported this pause and nothing changed since.
  c.fingerprint = Fingerprint(c, f, paused);
  c.pause_reported = paused;
  c.quiet = paused && f.last_recorded && f.last_recorded->pause_reported &&
            f.last_recorded->fingerprint == c.fingerprint;
  return c;
}

const char* GoalStatusName(GoalStatus status) {
  switch (status) {
    case GoalStatus::kOnTrack: return "on_track";
    case GoalStatus::kAtRisk: return "at_risk";
    case GoalStatus::kOffTrack: return "off_track";
    case GoalStatus::kNotMeasured: return "not_measured";
    case GoalStatus::kNoGoal: return "no_goal";
  }
  return "no_goal";
}

const char* GoalStatusWords(GoalStatus status) {
  switch (status) {
    case GoalStatus::kOnTrack: return "on track";
    case GoalStatus::kAtRisk: return "at risk";
    case GoalStatus::kOffTrack: return "off track";
    case GoalStatus::kNotMeasured: return "not measured";
    case GoalStatus::kNoGoal: return "no goal";
  }
  return "no goal";
}

const char* AlarmKindName(AlarmKind kind) {
  switch (kind) {
    case AlarmKind::kNotMeasured: return "not_measured";
    case AlarmKind::kGoalWorkWithoutReading: return "goal_work_without_reading";
    case AlarmKind::kGoalWorkNotCompleted: return "goal_work_not_completed";
    case AlarmKind::kNoRun: return "no_run";
    case AlarmKind::kSchedulesPaused: return "schedules_paused";
  }
  return "not_measured";
}

bool GoalCheck::HasAlarm(AlarmKind kind) const {
  return std::any_of(alarms.begin(), alarms.end(), [kind](const Alarm& a) { return a.kind == kind; });
}

json GoalCheck::ToJson() const {
  json out;
  out["workflow"] = workflow;
  out["checked_at"] = FormatTime(checked_at);
  out["status"] = GoalStatusName(status);
  if (has_goal) {
    out["metric"] = {{"name", metric_name},
                     {"value", value ? NumberJson(*value) : json(nullptr)},
                     {"target", target ? NumberJson(*target) : json(nullptr)},
                     {"last_measured_at", TimeOrNull(last_measured_at)},
                     {"last_measured_by_run_at", TimeOrNull(last_measured_by_run_at)}};
  } else {
    out["metric"] = nullptr;
  }
  json alarms_json = json::array();
  for (const Alarm& a : alarms) alarms_json.push_back(a.ToJson());
  out["alarms"] = alarms_json;
  json outside = json::array();
  for (const Reading& r : outside_run_readings) outside.push_back({{"at", FormatTime(r.at)}, {"source", r.source}});
  out["outside_run_readings"] = outside;
  out["quiet"] = quiet;
  return out;
}

Result<GoalCheck> RunGoalCheck(Db& db, const WorkflowConfig& config, const std::string& workflow, int64_t now,
                               bool record) {
  if (!record) {
    PULSE_ASSIGN_OR_RETURN(GoalFacts facts, GatherGoalFacts(db, config, now));
    return EvaluateGoalCheck(workflow, config, facts, now);
  }
  // Recording: the facts read and the check stored are one snapshot.
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(GoalFacts facts, GatherGoalFacts(db, config, now));
  GoalCheck check = EvaluateGoalCheck(workflow, config, facts, now);
  PULSE_RETURN_IF_ERROR(
      StoreCheck(db, now, GoalStatusName(check.status), check.ToJson().dump(), check.fingerprint, check.pause_reported));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return check;
}

Result<bool> GoalMeasuredNow(Db& db, const WorkflowConfig& config, int64_t now) {
  if (!config.primary_metric) return false;
  // A reading by a run at or before now is also a latest reading, so the
  // status is "not measured" exactly when this one is missing or too old.
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(kReadingsByRunSql));
  q.Bind(1, config.primary_metric->name).Bind(2, FormatTime(now));
  PULSE_ASSIGN_OR_RETURN(std::optional<Reading> last, OneReading(q));
  const std::optional<int64_t> at = last ? std::optional<int64_t>(last->at) : std::nullopt;
  return !NotMeasuredAlarm(at, config.goal_check.not_measured_days, now);
}

CheckDue DecideCheckDue(const CheckDueInputs& in) {
  CheckDue d;
  if (!in.has_goal) { d.reason = "no_goal"; return d; }
  if (!in.pulse_enabled) { d.reason = "pulse_disabled"; return d; }
  // It reuses the full Pulse's schedule: never beside a Pulse pass.
  if (in.pulse_pass_active) { d.reason = "pulse_pass_active"; return d; }
  if (in.last_check_at && StartOfDay(*in.last_check_at) == StartOfDay(in.now)) {
    d.reason = "checked_today";
    return d;
  }
  if (in.paused && in.pause_already_reported) { d.reason = "paused_already_reported"; return d; }
  if (in.running_checks >= in.cap) { d.reason = "concurrency_cap"; return d; }
  d.due = true;
  d.report_only = in.paused;
  d.reason = in.paused ? "paused_report_only" : "due";
  return d;
}

Result<CheckDue> GoalCheckDue(Db& db, const WorkflowConfig& config, const std::string& workflow,
                              const CheckLoad& load, int64_t now) {
  CheckDueInputs in;
  in.pulse_pass_active = load.pulse_pass_active;
  in.running_checks = load.running_checks;
  in.cap = load.cap;
  in.now = now;
  in.has_goal = config.HasGoal();
  in.pulse_enabled = config.pulse_enabled;
  in.paused = config.AllSchedulesPaused();
  if (in.has_goal) {
    PULSE_ASSIGN_OR_RETURN(std::optional<RecordedCheck> last, LatestRecordedCheck(db, now));
    if (last) in.last_check_at = last->checked_at;
    // The pause counts as reported when a check now would be quiet; a check
    // is quiet only while paused, so unpaused it is not read at all.
    if (in.paused) {
      PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(db, config, workflow, now, false));
      in.pause_already_reported = check.quiet;
    }
  }
  return DecideCheckDue(in);
}

}  // namespace pulse

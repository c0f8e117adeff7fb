// The goal methods of the API table (COMMON.md, issue 4): the command line,
// the server and the browser all reach the goal facts and the goal check
// through these, so each computes exactly what the others do.
#include "core/api.h"
#include "core/goal_check.h"
#include "core/goal_facts.h"
#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

Status ArgString(const json& args, const char* key, bool required, std::string* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) {
    return required ? Status::InvalidArgument(std::string(key) + ": missing") : Status::OK();
  }
  if (!it->is_string()) return Status::InvalidArgument(std::string(key) + ": expected a string");
  *out = it->get<std::string>();
  return Status::OK();
}

Status ArgBool(const json& args, const char* key, bool* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return Status::OK();
  if (!it->is_boolean()) return Status::InvalidArgument(std::string(key) + ": expected true or false");
  *out = it->get<bool>();
  return Status::OK();
}

Status ArgInt(const json& args, const char* key, int* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return Status::OK();
  if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > 1000000) {
    return Status::InvalidArgument(std::string(key) + ": expected a whole number of at least 0");
  }
  *out = it->get<int>();
  return Status::OK();
}

Status NeedDb(const ApiContext& ctx, const char* method) {
  if (!ctx.db) return Status::InvalidArgument(std::string(method) + ": needs a workflow database");
  return Status::OK();
}

json NumberJson(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)) && v < 9e15 && v > -9e15) return static_cast<int64_t>(v);
  return v;
}

Result<json> Observe(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "goal.observe"));
  Observation obs;
  PULSE_RETURN_IF_ERROR(ArgString(args, "metric", true, &obs.metric));
  if (obs.metric.empty()) return Status::InvalidArgument("metric: empty");
  auto value = args.find("value");
  if (value == args.end() || !value->is_number()) return Status::InvalidArgument("value: expected a number");
  obs.value = value->get<double>();
  std::string at;
  PULSE_RETURN_IF_ERROR(ArgString(args, "at", false, &at));
  if (at.empty()) {
    obs.at = ctx.env->NowSeconds();
  } else {
    Result<int64_t> t = ParseTime(at);
    if (!t.ok()) return Status::InvalidArgument("at: " + t.status().message());
    obs.at = *t;
  }
  std::string source;
  PULSE_RETURN_IF_ERROR(ArgString(args, "source", true, &source));
  PULSE_ASSIGN_OR_RETURN(obs.source, ParseReadingSource(source));
  PULSE_RETURN_IF_ERROR(ArgString(args, "run_id", false, &obs.run_id));
  PULSE_RETURN_IF_ERROR(RecordObservation(*ctx.db, ctx.config, obs, ctx.env->NowSeconds()));
  bool primary = ctx.config.primary_metric && ctx.config.primary_metric->name == obs.metric;
  return json{{"metric", obs.metric}, {"value", NumberJson(obs.value)}, {"at", FormatTime(obs.at)},
              {"source", source},     {"run_id", obs.run_id},           {"primary_metric", primary},
              {"by_run", obs.source == ReadingSource::kWorkflowRun}};
}

Result<json> RecordRun(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "goal.record_run"));
  auto run_it = args.find("run");
  if (run_it == args.end()) return Status::InvalidArgument("run: missing");
  PULSE_ASSIGN_OR_RETURN(RunRecord run, ParseRunJson(*run_it, "run"));
  PULSE_RETURN_IF_ERROR(ArgString(args, "route", true, &run.route));
  // Optional: schedule-runs.json's entries, recorded in the same transaction.
  std::vector<RunRecord> older;
  auto older_it = args.find("schedule_runs");
  if (older_it != args.end() && !older_it->is_null()) {
    std::string source = "schedule_runs";
    PULSE_RETURN_IF_ERROR(ArgString(args, "schedule_runs_source", false, &source));
    PULSE_ASSIGN_OR_RETURN(older, ParseScheduleRuns(*older_it, source));
  }
  PULSE_ASSIGN_OR_RETURN(FinalizeOutcome done, FinalizeRun(*ctx.db, ctx.config, run, older, ctx.env->NowSeconds()));
  RecordOutcome outcome = done.run;
  PULSE_ASSIGN_OR_RETURN(Statement q, ctx.db->Prepare(
      "SELECT primary_route, completed, primary_reading FROM goal_run_facts WHERE run_id = ?"));
  q.Bind(1, run.run_id);
  PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return Status::Internal("goal.record_run: the run's facts vanished");
  const char* names[] = {"inserted", "updated", "unchanged"};
  return json{{"run_id", run.run_id},
              {"route", run.route},
              {"status", run.status},
              {"primary_route", q.Int64(0) != 0},
              {"completed", q.Int64(1) != 0},
              {"primary_reading", q.Int64(2) != 0},
              {"outcome", names[static_cast<int>(outcome)]},
              {"schedule_runs", {{"imported", done.imported.imported}, {"already", done.imported.already}}}};
}

Result<json> ImportRuns(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "goal.import_schedule_runs"));
  auto runs_it = args.find("runs");
  if (runs_it == args.end()) return Status::InvalidArgument("runs: missing");
  std::string source = "runs";
  PULSE_RETURN_IF_ERROR(ArgString(args, "source", false, &source));
  PULSE_ASSIGN_OR_RETURN(std::vector<RunRecord> runs, ParseScheduleRuns(*runs_it, source));
  PULSE_ASSIGN_OR_RETURN(ImportCounts counts, ImportScheduleRuns(*ctx.db, ctx.config, runs, ctx.env->NowSeconds()));
  return json{{"imported", counts.imported}, {"already", counts.already}};
}

Result<json> Check(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "goal.check"));
  bool record = false;
  PULSE_RETURN_IF_ERROR(ArgBool(args, "record", &record));
  PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, ctx.env->NowSeconds(), record));
  return check.ToJson();
}

Result<json> Readings(ApiContext& ctx, const json&) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "goal.readings"));
  json out = {{"metric", nullptr},   {"target", nullptr},   {"baseline", nullptr}, {"baseline_at", nullptr},
              {"deadline", nullptr}, {"direction", nullptr}, {"readings", json::array()}};
  if (!ctx.config.primary_metric) return out;
  const PrimaryMetric& m = *ctx.config.primary_metric;
  out["metric"] = m.name;
  if (m.target) out["target"] = NumberJson(*m.target);
  if (m.baseline) out["baseline"] = NumberJson(*m.baseline);
  if (m.baseline_at) out["baseline_at"] = FormatTime(*m.baseline_at);
  if (m.deadline) out["deadline"] = FormatTime(*m.deadline);
  out["direction"] = m.increase ? "increase" : "decrease";
  PULSE_ASSIGN_OR_RETURN(std::vector<Reading> readings, ListReadings(*ctx.db, m.name));
  for (const Reading& r : readings) {
    out["readings"].push_back({{"at", FormatTime(r.at)},
                               {"value", NumberJson(r.value)},
                               {"source", r.source},
                               {"run_id", r.run_id},
                               {"by_run", r.by_run()}});
  }
  return out;
}

Result<json> RoutesSummary(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "goal.runs_by_route"));
  std::string since_text;
  PULSE_RETURN_IF_ERROR(ArgString(args, "since", false, &since_text));
  int64_t since = 0;
  if (!since_text.empty()) {
    Result<int64_t> t = ParseTime(since_text);
    if (!t.ok()) return Status::InvalidArgument("since: " + t.status().message());
    since = *t;
  }
  PULSE_ASSIGN_OR_RETURN(std::vector<RouteCount> routes, RunsByRoute(*ctx.db, ctx.config, since, ctx.env->NowSeconds()));
  json out = json::array();
  for (const RouteCount& r : routes) {
    out.push_back({{"route", r.route}, {"runs", r.runs}, {"completed", r.completed}, {"failed", r.failed},
                   {"primary", r.primary}});
  }
  return json{{"routes", out}};
}

Result<json> CheckDueMethod(ApiContext& ctx, const json& args) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, "goal.check_due"));
  CheckDueInputs in;
  PULSE_RETURN_IF_ERROR(ArgBool(args, "pulse_pass_active", &in.pulse_pass_active));
  PULSE_RETURN_IF_ERROR(ArgInt(args, "running_checks", &in.running_checks));
  PULSE_RETURN_IF_ERROR(ArgInt(args, "cap", &in.cap));
  if (in.cap < 1) return Status::InvalidArgument("cap: expected at least 1");
  const int64_t now = ctx.env->NowSeconds();
  in.now = now;
  in.has_goal = ctx.config.HasGoal();
  in.pulse_enabled = ctx.config.pulse_enabled;
  in.paused = ctx.config.AllSchedulesPaused();
  if (in.has_goal) {
    PULSE_ASSIGN_OR_RETURN(std::optional<RecordedCheck> last, LatestRecordedCheck(*ctx.db, now));
    if (last) {
      PULSE_ASSIGN_OR_RETURN(in.last_check_at, ParseTime(last->checked_at));
    }
    // The pause counts as reported when a check now would be quiet.
    PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, now, false));
    in.pause_already_reported = check.quiet;
  }
  CheckDue d = DecideCheckDue(in);
  return json{{"due", d.due}, {"report_only", d.report_only}, {"reason", d.reason}};
}

}  // namespace

void AddGoalApi(ApiRegistry& r) {
  r.Add("goal.observe", Observe, "record a metric reading {metric, value, at, source, run_id?}");
  r.Add("goal.record_run", RecordRun, "record a finished run's goal facts {run:{...}, route} (idempotent)");
  r.Add("goal.import_schedule_runs", ImportRuns, "import older runs from schedule-runs.json entries {runs:[...]}");
  r.Add("goal.check", Check, "the goal check: status, key number, alarms {record?}");
  r.Add("goal.readings", Readings, "the primary metric's readings, oldest first");
  r.Add("goal.runs_by_route", RoutesSummary, "runs per route {since?}");
  r.Add("goal.check_due", CheckDueMethod, "is the daily goal check due {pulse_pass_active, running_checks, cap}");
}

}  // namespace pulse

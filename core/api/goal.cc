// The goal methods of the API table: the command line, the server and the
// browser all reach the goal facts and the goal check through these, so each
// computes exactly what the others do.
#include "core/api/goal.h"

#include "core/api/api.h"
#include "core/api/facts.h"
#include "core/decisions/recommendation.h"
#include "core/goal/goal_check.h"
#include "core/goal/goal_facts.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

json NumberJson(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)) && v < 9e15 && v > -9e15) return static_cast<int64_t>(v);
  return v;
}

Result<json> Observe(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  Observation obs;
  PULSE_RETURN_IF_ERROR(a.Text("metric", &obs.metric));
  PULSE_RETURN_IF_ERROR(a.Number("value", &obs.value));
  std::optional<int64_t> at;
  PULSE_RETURN_IF_ERROR(a.OptTime("at", &at));
  obs.at = at ? *at : ctx.env->NowSeconds();
  std::string source;
  PULSE_RETURN_IF_ERROR(a.String("source", &source));
  Result<ReadingSource> parsed = ParseReadingSource(source);
  if (!parsed.ok()) return a.Fail(parsed.status().message());  // named by the method, as every edge error is
  obs.source = *parsed;
  PULSE_RETURN_IF_ERROR(a.OptString("run_id", &obs.run_id));
  PULSE_RETURN_IF_ERROR(RecordObservation(*ctx.db, ctx.config, obs, ctx.env->NowSeconds()));
  bool primary = ctx.config.primary_metric && ctx.config.primary_metric->name == obs.metric;
  return json{{"metric", obs.metric}, {"value", NumberJson(obs.value)}, {"at", FormatTime(obs.at)},
              {"source", source},     {"run_id", obs.run_id},           {"primary_metric", primary},
              {"by_run", obs.source == ReadingSource::kWorkflowRun}};
}

Result<json> RecordRun(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  if (!a.Has("run")) return a.Error("run", "is required");
  PULSE_ASSIGN_OR_RETURN(RunRecord run, ParseRunJson(*a.Find("run"), "run"));
  PULSE_RETURN_IF_ERROR(a.String("route", &run.route));
  // Optional: schedule-runs.json's entries, recorded in the same transaction.
  std::vector<RunRecord> older;
  if (a.Has("schedule_runs")) {
    std::string source = "schedule_runs";
    PULSE_RETURN_IF_ERROR(a.OptString("schedule_runs_source", &source));
    PULSE_ASSIGN_OR_RETURN(older, ParseScheduleRuns(*a.Find("schedule_runs"), source));
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

Result<json> ImportRuns(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  if (!a.Has("runs")) return a.Error("runs", "is required");
  std::string source = "runs";
  PULSE_RETURN_IF_ERROR(a.OptString("source", &source));
  PULSE_ASSIGN_OR_RETURN(std::vector<RunRecord> runs, ParseScheduleRuns(*a.Find("runs"), source));
  PULSE_ASSIGN_OR_RETURN(ImportCounts counts, ImportScheduleRuns(*ctx.db, ctx.config, runs, ctx.env->NowSeconds()));
  return json{{"imported", counts.imported}, {"already", counts.already}};
}

Result<json> Check(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  bool record = false, facts = true;
  PULSE_RETURN_IF_ERROR(a.OptBool("record", &record));
  // facts=false: the v1 check document alone (what the bench compares).
  PULSE_RETURN_IF_ERROR(a.OptBool("facts", &facts));
  if (!facts) {
    PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, ctx.env->NowSeconds(), record));
    return check.ToJson();
  }
  return GoalStatusDocument(ctx, record);
}

Result<json> Readings(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  return GoalReadingsJson(*ctx.db, ctx.config);
}

Result<json> RoutesSummary(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::optional<int64_t> since;
  PULSE_RETURN_IF_ERROR(a.OptTime("since", &since));
  return RunsByRouteJson(*ctx.db, ctx.config, since.value_or(0), ctx.env->NowSeconds());
}

// The last check stored with --record (or by the server's tick) at or before
// now: the clock a reader can evaluate at to see what was last reported.
Result<json> LastCheck(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  PULSE_ASSIGN_OR_RETURN(std::optional<RecordedCheck> last, LatestRecordedCheck(*ctx.db, ctx.env->NowSeconds()));
  if (!last) return json{{"checked_at", nullptr}, {"status", nullptr}};
  return json{{"checked_at", FormatTime(last->checked_at)}, {"status", last->status}};
}

Result<json> CheckDueMethod(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  CheckLoad load;
  PULSE_RETURN_IF_ERROR(a.OptBool("pulse_pass_active", &load.pulse_pass_active));
  PULSE_RETURN_IF_ERROR(a.OptInt("running_checks", 0, 1000000, &load.running_checks));
  PULSE_RETURN_IF_ERROR(a.OptInt("cap", 1, 1000000, &load.cap));
  PULSE_ASSIGN_OR_RETURN(CheckDue d, GoalCheckDue(*ctx.db, ctx.config, ctx.workflow, load, ctx.env->NowSeconds()));
  return CheckDueJson(d);
}

}  // namespace

json CheckDueJson(const CheckDue& d) {
  return json{{"due", d.due}, {"report_only", d.report_only}, {"reason", d.reason}};
}

Result<json> GoalReadingsJson(Db& db, const WorkflowConfig& config) {
  json out = {{"metric", nullptr},   {"target", nullptr},   {"baseline", nullptr}, {"baseline_at", nullptr},
              {"deadline", nullptr}, {"direction", nullptr}, {"readings", json::array()}};
  if (!config.primary_metric) return out;
  const PrimaryMetric& m = *config.primary_metric;
  out["metric"] = m.name;
  if (m.target) out["target"] = NumberJson(*m.target);
  if (m.baseline) out["baseline"] = NumberJson(*m.baseline);
  if (m.baseline_at) out["baseline_at"] = FormatTime(*m.baseline_at);
  if (m.deadline) out["deadline"] = FormatTime(*m.deadline);
  out["direction"] = m.increase ? "increase" : "decrease";
  PULSE_ASSIGN_OR_RETURN(std::vector<Reading> readings, ListReadings(db, m.name));
  for (const Reading& r : readings) {
    out["readings"].push_back({{"at", FormatTime(r.at)},
                               {"value", NumberJson(r.value)},
                               {"source", r.source},
                               {"run_id", r.run_id},
                               {"by_run", r.by_run()}});
  }
  // The plan changes the chart marks on its time axis (the snapshot of
  // planning/changelog.jsonl), the newest 200, oldest first.
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT at, tool, reason FROM (SELECT at, tool, reason, id FROM pulse_fact_changelog ORDER BY at DESC, id DESC LIMIT 200)"
      " ORDER BY at, id"));
  out["plan_changes"] = json::array();
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out["plan_changes"].push_back({{"at", q.Text(0)}, {"tool", q.Text(1)}, {"reason", q.Text(2)}});
  }
  return out;
}

Result<json> RunsByRouteJson(Db& db, const WorkflowConfig& config, int64_t since, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(std::vector<RouteCount> routes, RunsByRoute(db, config, since, now));
  json out = json::array();
  for (const RouteCount& r : routes) {
    out.push_back({{"route", r.route}, {"runs", r.runs}, {"completed", r.completed}, {"failed", r.failed},
                   {"primary", r.primary}});
  }
  return json{{"routes", out}};
}

// What Pulse recommends for the goal as it stands (the rule the rules runner
// raises as its one batched decision): null when the goal is on track or
// there is none.
Result<json> RecommendationMethod(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, ctx.env->NowSeconds(), false));
  if (!check.has_goal || check.status == GoalStatus::kOnTrack) return json{{"recommendation", nullptr}};
  GoalRecommendation rec = BuildGoalRecommendation(check, ctx.config, ctx.workflow);
  return json{{"recommendation",
               {{"question", rec.question}, {"options", rec.options}, {"option", rec.option}, {"why", rec.why},
                {"evidence", rec.evidence}, {"confidence", ConfidenceName(rec.confidence)}, {"blocks", rec.blocks}}}};
}

void AddGoalApi(ApiRegistry& r) {
  r.Add("goal.observe", Observe, Access::kOwner, "record a metric reading {metric, value, at, source, run_id?}");
  r.Add("goal.record_run", RecordRun, Access::kOwner, "record a finished run's goal facts {run:{...}, route} (idempotent)");
  r.Add("goal.import_schedule_runs", ImportRuns, Access::kOwner, "import older runs from schedule-runs.json entries {runs:[...]}");
  r.Add("goal.check", Check, Access::kRead, "the goal check: status, key number, alarms, facts, needs_reauth {record?, facts?}", "record");
  r.Add("goal.last_check", LastCheck, Access::kRead, "the last recorded goal check's time and status");
  r.Add("goal.readings", Readings, Access::kRead, "the primary metric's readings, oldest first");
  r.Add("goal.runs_by_route", RoutesSummary, Access::kRead, "runs per route {since?}");
  r.Add("goal.recommendation", RecommendationMethod, Access::kRead,
        "which fix Pulse recommends for the goal as it stands (null when on track)");
  r.Add("goal.check_due", CheckDueMethod, Access::kRead, "is the daily goal check due {pulse_pass_active, running_checks, cap}");
}

}  // namespace pulse

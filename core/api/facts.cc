#include "core/api/facts.h"

#include <cmath>

#include "core/api/attention.h"
#include "core/facts/fact_snapshot.h"
#include "core/goal/goal_check.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

// Micro-dollars as dollars with at most six decimals.
json Usd(int64_t micros) { return static_cast<double>(micros) / 1e6; }

json Rounded(double v, int places) {
  double scale = std::pow(10.0, places);
  return std::round(v * scale) / scale;
}

json TimeOrNull(const std::optional<int64_t>& t) { return t ? json(FormatTime(*t)) : json(nullptr); }

json Strings(const std::vector<std::string>& v) {
  json out = json::array();
  for (const std::string& s : v) out.push_back(s);
  return out;
}

const FactSource* SourceFor(const ContextFacts& f, const char* file) {
  for (const FactSource& s : f.sources) if (s.file == file) return &s;
  return nullptr;
}

json SpendJson(const ContextFacts& f) {
  const Spend& s = f.spend;
  json out = {{"last_7_days_usd", Usd(s.last_7_days_micros)},
              {"previous_7_days_usd", Usd(s.previous_7_days_micros)},
              {"change_usd", Usd(s.last_7_days_micros - s.previous_7_days_micros)},
              {"ratio", s.previous_7_days_micros > 0
                            ? Rounded(static_cast<double>(s.last_7_days_micros) / s.previous_7_days_micros, 3)
                            : json(nullptr)},
              {"events_last_7_days", s.events_last_7_days},
              {"events_previous_7_days", s.events_previous_7_days},
              {"median_run_usd_14_days", Usd(f.cost_median.median_micros_x2 / 2)},
              {"runs_14_days", f.cost_median.runs},
              {"budget", nullptr}};
  const FactSource* src = SourceFor(f, kLedgerFile);
  out["ledger"] = src ? src->state : (s.has_ledger ? "ok" : "missing");
  out["unreadable"] = src && src->state == "unreadable" ? json("unreadable: " + src->reason) : json(nullptr);
  return out;
}

json PlanChangesJson(const ContextFacts& f) {
  json out = json::array();
  for (const PlanChange& c : f.plan_changes) {
    out.push_back({{"at", FormatTime(c.at)}, {"tool", c.tool}, {"reason", c.reason}, {"steps", Strings(c.steps)},
                   {"who", c.who}, {"session", c.session}, {"touches_goal", c.touches_goal()},
                   {"goal_steps", Strings(c.goal_steps)}, {"touches_metric", c.touches_metric},
                   {"builder_chat", c.builder_chat}});
  }
  return out;
}

json ErrorRateJson(const ErrorRate& e) {
  return {{"runs", e.runs},
          {"failed", e.failed},
          {"share", e.share ? Rounded(*e.share, 4) : json(nullptr)},
          {"median_daily_share", e.median_daily_share ? Rounded(*e.median_daily_share, 4) : json(nullptr)},
          {"days_with_runs", e.days_with_runs},
          {"min_runs", kErrorSpikeMinRuns},
          {"min_failed", kErrorSpikeMinFailed},
          {"spike", e.spike}};
}

json BuilderAsksJson(const ContextFacts& f) {
  json out = json::array();
  for (const BuilderAsk& b : f.builder_asks) {
    out.push_back({{"at", b.at}, {"kind", b.kind}, {"message", b.message}, {"answer", b.answer}, {"status", b.status},
                   {"call_id", b.call_id},
                   {"builder_session_id", b.builder_session_id.empty() ? json(nullptr) : json(b.builder_session_id)}});
  }
  return out;
}

json RunHealthJson(const RunHealth& h) {
  json failed = json::array();
  for (const FailedRun& r : h.failed_runs) {
    failed.push_back({{"run_id", r.run_id}, {"finished_at", FormatTime(r.finished_at)}, {"status", r.status},
                      {"error", r.error}, {"route", r.route}, {"goal_route", r.goal_route}});
  }
  json concerns = json::array();
  for (const RunConcern& c : h.concerns) concerns.push_back({{"run_id", c.run_id}, {"line", c.line}});
  json schedules = json::array();
  for (const ScheduleHealth& s : h.schedules) {
    schedules.push_back({{"id", s.id}, {"enabled", s.enabled}, {"runs", s.runs}, {"completed", s.completed},
                         {"failed", s.failed}, {"last_status", s.last_status},
                         {"last_finished_at", s.last_finished_at ? json(FormatTime(s.last_finished_at)) : json(nullptr)}});
  }
  json unreadable = json::array();
  for (const UnreadableRun& u : h.unreadable) {
    unreadable.push_back({{"folder", u.folder}, {"reason", u.reason}, {"line", "unreadable: " + u.reason}});
  }
  return {{"runs", h.runs},         {"completed", h.completed}, {"failed", h.failed},
          {"failed_runs", failed},  {"concerns", concerns},     {"open_issues", h.open_issues},
          {"schedules", schedules}, {"unreadable", unreadable}};
}

Result<json> Facts(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  PULSE_ASSIGN_OR_RETURN(ContextFacts facts, FactsNow(ctx, FactsWindow::kSincePreviousCheck));
  json out = ContextFactsJson(facts);
  out["workflow"] = ctx.workflow;
  return out;
}

}  // namespace

json ContextFactsJson(const ContextFacts& f) {
  json answers = json::array();
  for (const OwnerAnswer& a : f.owner_answers) {
    answers.push_back({{"decision_id", a.decision_id}, {"question", a.question}, {"answer", a.answer},
                       {"kind", a.kind}, {"note", a.note}, {"answered_at", FormatTime(a.answered_at)}});
  }
  json spikes = json::array();
  for (const CostSpike& s : f.cost_spikes) {
    spikes.push_back({{"run_id", s.run_id}, {"usd", Usd(s.usd_micros)}, {"median_run_usd", Usd(s.median_micros_x2 / 2)},
                      {"ratio", Rounded(2.0 * static_cast<double>(s.usd_micros) / s.median_micros_x2, 2)},
                      {"at", FormatTime(s.last_at)}, {"route", s.route}, {"goal_route", s.goal_route}});
  }
  json hints = json::array();
  for (const LoginHint& h : f.login_hints) {
    hints.push_back({{"run_id", h.run_id}, {"at", FormatTime(h.at)}, {"where", h.where}, {"pattern", h.pattern},
                     {"matched", h.matched}, {"line", h.line}});
  }
  json sources = json::array();
  json unreadable = json::array();
  for (const FactSource& s : f.sources) {
    sources.push_back({{"file", s.file}, {"state", s.state}, {"reason", s.reason}, {"skipped", s.skipped},
                       {"read_at", s.read_at}});
    if (s.state == "unreadable") unreadable.push_back("unreadable: " + s.reason);
    // A file read with lines or rows skipped: the fact names the first one
    // that could not be read, the rest of the file counted.
    if (s.state == "ok" && s.skipped > 0 && !s.reason.empty()) {
      unreadable.push_back("unreadable: " + s.reason +
                           (s.skipped > 1 ? " (and " + std::to_string(s.skipped - 1) + " more skipped)" : ""));
    }
  }
  return {{"since", FormatTime(f.since)},
          {"last_check_at", TimeOrNull(f.last_check_at)},
          {"latest_check_at", TimeOrNull(f.latest_check_at)},
          {"window", f.window == FactsWindow::kSincePreviousCheck ? "previous_check" : "latest_check"},
          {"now", FormatTime(f.now)},
          {"plan_changes", PlanChangesJson(f)},
          {"owner_answers", answers},
          {"spend", SpendJson(f)},
          {"cost_spikes", spikes},
          {"error_rate", ErrorRateJson(f.error_rate)},
          {"login_hints", hints},
          {"needs_reauth", f.needs_reauth()},
          {"run_health", RunHealthJson(f.run_health)},
          {"builder_asks", BuilderAsksJson(f)},
          {"sources", sources},
          {"unreadable", unreadable}};
}

Result<ContextFacts> FactsNow(ApiContext& ctx, FactsWindow window) {
  return ContextFactsNow(*ctx.env, *ctx.db, ctx.config, ctx.workflow_dir, ctx.outside_files, window);
}

Result<GoalStatusParts> GoalStatusNow(ApiContext& ctx, bool record, FactsWindow window) {
  GoalStatusParts p;
  PULSE_ASSIGN_OR_RETURN(p.facts, FactsNow(ctx, window));
  PULSE_ASSIGN_OR_RETURN(p.check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, p.facts.now, record));
  PULSE_ASSIGN_OR_RETURN(p.attention, GatherAttention(*ctx.db, ctx.config, p.check, p.facts, p.facts.now));
  return p;
}

Result<json> GoalStatusDocument(ApiContext& ctx, bool record, FactsWindow window) {
  PULSE_ASSIGN_OR_RETURN(GoalStatusParts p, GoalStatusNow(ctx, record, window));
  json out = p.check.ToJson();
  out["facts"] = ContextFactsJson(p.facts);
  out["needs_reauth"] = p.facts.needs_reauth();
  AddAttentionJson(p.attention, p.check, ctx.workflow, &out);
  return out;
}

Result<json> GoalStatusDocument(ApiContext& ctx, bool record) {
  return GoalStatusDocument(ctx, record, record ? FactsWindow::kSinceLatestCheck : FactsWindow::kSincePreviousCheck);
}

void AddFactsApi(ApiRegistry& r) {
  r.Add("goal.facts", Facts, Access::kRead,
        "the goal check's context facts since the check before the latest recorded one: plan_changes, owner_answers, spend, "
        "cost_spikes, error_rate, login_hints, run_health, builder_asks");
}

}  // namespace pulse

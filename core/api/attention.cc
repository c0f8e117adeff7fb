#include "core/api/attention.h"

#include "core/api/facts.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

void PutTime(json& out, const char* key, const std::optional<int64_t>& t) {
  if (t) out[key] = FormatTime(*t);
}

json ItemJson(const AttentionItem& it, const std::string& workflow) {
  json out = {{"kind", AttentionKindName(it.kind)}, {"severity", SeverityName(it.severity)}, {"text", it.text},
              {"key", it.key}, {"link", "#/w/" + workflow + "/" + it.card}, {"snoozed", it.snoozed}};
  PutTime(out, "since", it.since);
  if (it.snoozed) {
    out["snooze"] = it.snoozed_until ? "until_date" : "until_it_changes";
    PutTime(out, "snoozed_until", it.snoozed_until);
  }
  return out;
}

json WatchJson(const ScheduleWatch& w) {
  json out = {{"id", w.id}, {"cron", w.cron}, {"time_zone", "UTC"}, {"state", ScheduleStateName(w.state)},
              {"missed", w.missed}};
  PutTime(out, "last_run_at", w.last_run_at);
  PutTime(out, "expected_at", w.expected_at);
  PutTime(out, "next_expected_at", w.next_at);
  if (!w.problem.empty()) out["problem"] = w.problem;
  return out;
}

// {key, until?}: the item must need attention now (its fingerprint is what
// "until it changes" keeps).
Result<json> Snooze(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string key;
  std::optional<int64_t> until;
  PULSE_RETURN_IF_ERROR(a.String("key", &key));
  PULSE_RETURN_IF_ERROR(a.OptTime("until", &until));
  PULSE_ASSIGN_OR_RETURN(GoalStatusParts now, GoalStatusNow(ctx, false, FactsWindow::kSincePreviousCheck));
  PULSE_RETURN_IF_ERROR(SnoozeAttention(*ctx.db, now.attention, key, until, ctx.env->NowSeconds()));
  PULSE_ASSIGN_OR_RETURN(json after, GoalStatusDocument(ctx, false));
  return json{{"snoozed", key}, {"attention", after["attention"]}};
}

Result<json> Unsnooze(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string key;
  PULSE_RETURN_IF_ERROR(a.String("key", &key));
  PULSE_RETURN_IF_ERROR(UnsnoozeAttention(*ctx.db, key));
  PULSE_ASSIGN_OR_RETURN(json after, GoalStatusDocument(ctx, false));
  return json{{"unsnoozed", key}, {"attention", after["attention"]}};
}

}  // namespace

void AddAttentionJson(const Attention& attention, const GoalCheck& check, const std::string& workflow, json* doc) {
  json items = json::array();
  for (const AttentionItem& it : attention.items) items.push_back(ItemJson(it, workflow));
  json schedules = json::array();
  for (const ScheduleWatch& w : attention.schedules) schedules.push_back(WatchJson(w));
  const int rank = AttentionRank(check.status, attention.Worst());
  (*doc)["attention"] = std::move(items);
  (*doc)["schedules"] = std::move(schedules);
  (*doc)["rank"] = rank;
  (*doc)["needs_attention"] = rank <= 2;
}

void AddAttentionApi(ApiRegistry& r) {
  r.Add("attention.snooze", Snooze, Access::kOwner,
        "snooze an attention item {key, until?}: until the time, or (without it) until the item changes");
  r.Add("attention.unsnooze", Unsnooze, Access::kOwner, "lift an attention item's snooze {key}");
}

}  // namespace pulse

#include "server-shim/http/workflow_list.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/agent_log/agent_log.h"
#include "core/api/agent_log.h"
#include "core/api/facts.h"
#include "core/api/review.h"
#include "core/base/time_util.h"
#include "core/decisions/decisions.h"
#include "core/focus_areas/focus_areas.h"
#include "core/goal/goal_check.h"
#include "core/goal/goal_facts.h"
#include "core/autonomy/tool_args.h"
#include "core/store/workspace.h"
#include "core/base/text.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

constexpr size_t kQueryMaxChars = 200;

// One parameter's value; false when it is given more than once.
bool OneValue(const httplib::Params& params, const std::string& name, std::string* value, bool* given,
              std::string* error) {
  auto range = params.equal_range(name);
  *given = range.first != range.second;
  if (!*given) return true;
  if (std::next(range.first) != range.second) {
    *error = name + ": given more than once";
    return false;
  }
  *value = range.first->second;
  return true;
}

bool ParseLimit(const std::string& text, int* limit, std::string* error) {
  const std::string want = "limit: must be a whole number from 1 to " + std::to_string(kWorkflowPageMax);
  const bool digits = std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
  if (text.empty() || text.size() > 4 || !digits) {
    *error = want + " (got \"" + text.substr(0, 40) + "\")";
    return false;
  }
  const int n = std::stoi(text);
  if (n < 1 || n > kWorkflowPageMax) {
    *error = want + " (got " + text + ")";
    return false;
  }
  *limit = n;
  return true;
}

// Everything the overview and the unpaged list show of one workflow, kept
// in the status cache: its goal status document (with the attention items),
// pending decisions, last recorded check and latest Workflow Review.
Result<json> ComputeItem(ApiContext& ctx, const std::string& wf) {
  json item = {{"name", wf}};
  item["has_goal"] = ctx.config.HasGoal();
  item["schedules_paused"] = ctx.config.AllSchedulesPaused();
  item["workflow_review"] = LatestReviewJson(ctx);
  // The goal status document as `pulse check --json` reads it: the check,
  // its facts and the attention items (the overview sorts by their rank).
  Result<json> doc = GoalStatusDocument(ctx, false);
  if (doc.ok()) {
    item["status"] = (*doc)["status"];
    item["attention"] = (*doc)["attention"];
    item["rank"] = (*doc)["rank"];
    item["needs_attention"] = (*doc)["needs_attention"];
    item["goal_status"] = std::move(doc).value();
  } else {
    item["error"] = doc.status().message();
  }
  Result<std::vector<Decision>> pending = PendingDecisions(*ctx.db);
  item["pending_decisions"] = pending.ok() ? json(pending->size()) : json(nullptr);
  Result<std::optional<RecordedCheck>> last = LatestRecordedCheck(*ctx.db, ctx.env->NowSeconds());
  item["last_check"] = last.ok() && *last ? json{{"checked_at", FormatTime((*last)->checked_at)}, {"status", (*last)->status}}
                                          : json{{"checked_at", nullptr}, {"status", nullptr}};
  Result<std::vector<FocusArea>> areas = ReadFocusAreas(ctx.config.raw);
  item["focus_areas_open"] = areas.ok() ? std::count_if(areas->begin(), areas->end(),
                                                        [](const FocusArea& a) { return a.open(); })
                                        : 0;
  Result<RunningAgents> agents = CountRunningAgents(*ctx.db, ConfiguredStuckAfter(ctx.config), ctx.env->NowSeconds());
  item["agents_running"] = agents.ok() ? agents->running : 0;
  item["agents_stuck"] = agents.ok() ? agents->stuck : 0;
  return item;
}

json ItemOf(PooledReads& reads, Env& env, const std::string& wf) { return CachedWorkflowItem(reads, env, wf); }

// A page's item: the overview's row, without the whole goal status document.
json Compact(const json& full) {
  json out = {{"name", full.value("name", "")}};
  for (const char* key : {"error", "status", "has_goal", "schedules_paused", "pending_decisions", "last_check", "attention",
                          "rank", "needs_attention"}) {
    if (full.contains(key)) out[key] = full[key];
  }
  auto doc = full.find("goal_status");
  if (doc == full.end()) return out;
  auto metric = doc->find("metric");
  if (metric != doc->end() && metric->is_object()) {
    out["metric"] = {{"name", metric->value("name", "")}, {"value", metric->value("value", json())},
                     {"target", metric->value("target", json())}};
  } else {
    out["metric"] = nullptr;
  }
  const json alarms = doc->value("alarms", json::array());
  out["alarms"] = alarms.size();
  out["worst_alarm"] = alarms.empty() ? json() : alarms[0].value("message", json());
  return out;
}

}  // namespace

json CachedWorkflowItem(PooledReads& reads, Env& env, const std::string& wf, int64_t max_age) {
  bool open_failed = false;
  Result<json> item = reads.Cached(
      env, wf, "workflow list item", [&](ApiContext& ctx) { return ComputeItem(ctx, wf); }, &open_failed, max_age);
  return item.ok() ? *item : json{{"name", wf}, {"error", item.status().message()}};
}

bool ParseWorkflowListQuery(const httplib::Params& params, WorkflowListQuery* out, std::string* error) {
  std::string limit, cursor, q;
  bool has_limit = false, has_cursor = false, has_q = false;
  if (!OneValue(params, "limit", &limit, &has_limit, error) || !OneValue(params, "cursor", &cursor, &has_cursor, error) ||
      !OneValue(params, "q", &q, &has_q, error)) {
    return false;
  }
  out->paged = has_limit || has_cursor || has_q;
  if (has_limit && !ParseLimit(limit, &out->limit, error)) return false;
  if (!cursor.empty() && !ValidateWorkflowName(cursor).ok()) {
    *error = "cursor: not a workflow name from a page's next_cursor (got \"" + cursor.substr(0, 80) + "\")";
    return false;
  }
  if (q.size() > kQueryMaxChars) {
    *error = "q: at most " + std::to_string(kQueryMaxChars) + " characters (got " + std::to_string(q.size()) + ")";
    return false;
  }
  out->cursor = cursor;
  out->q = Lower(q);
  return true;
}

Result<json> WorkflowListAnswer(PooledReads& reads, Env& env, const std::string& workspace,
                                const WorkflowListQuery& query) {
  PULSE_ASSIGN_OR_RETURN(std::vector<std::string> names, ListWorkflows(env, workspace));
  json list = json::array();
  if (!query.paged) {
    for (const std::string& wf : names) list.push_back(ItemOf(reads, env, wf));
    return json{{"workflows", list}};
  }
  // Names come sorted (ListWorkflows), so the page is the first `limit`
  // matches after the cursor.
  std::vector<const std::string*> matching;
  for (const std::string& wf : names) {
    if (query.q.empty() || Lower(wf).find(query.q) != std::string::npos) matching.push_back(&wf);
  }
  auto from = std::upper_bound(matching.begin(), matching.end(), query.cursor,
                               [](const std::string& c, const std::string* name) { return c < *name; });
  json next = nullptr;
  for (auto it = from; it != matching.end(); ++it) {
    if (static_cast<int>(list.size()) == query.limit) {
      next = list.back()["name"];
      break;
    }
    list.push_back(Compact(ItemOf(reads, env, **it)));
  }
  return json{{"workflows", list}, {"next_cursor", next}, {"total", matching.size()}, {"limit", query.limit}};
}

}  // namespace pulse::serve

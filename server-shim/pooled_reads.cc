#include "server-shim/pooled_reads.h"

#include <malloc.h>

#include "agent/agent_api.h"
#include "core/api/review.h"
#include "core/goal_check.h"

namespace pulse::serve {

using nlohmann::json;

Result<StatusCache::Answer> PooledReads::Call(Env& env, const std::string& workflow, const std::string& method,
                                              const json& args, bool* open_failed) {
  // Only a read is a function of what it reads (a goal check with record
  // stores the check; the routes send such calls to the writers).
  if (ServerApi().AccessFor(method, args) != Access::kRead) return Status::Internal(method + ": not a read");
  StatusCache& cache = method == "goal.check" ? status_ : answers_;
  return cache.GetText(env, workflow, method + " " + args.dump(),
                       [&](ApiContext& ctx) { return CallApi(ctx, method, args); }, open_failed);
}

Result<json> PooledReads::WorkflowList() {
  Result<std::vector<std::string>> names = ListWorkflows(*env_, workspace_);
  if (!names.ok()) return names.status();
  json list = json::array();
  for (const std::string& wf : *names) {
    auto item_of = [&](ApiContext& ctx) -> Result<json> {
      json item = {{"name", wf}};
      item["has_goal"] = ctx.config.HasGoal();
      item["schedules_paused"] = ctx.config.AllSchedulesPaused();
      item["workflow_review"] = LatestReviewJson(ctx);
      Result<GoalCheck> check = RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, ctx.env->NowSeconds(), false);
      if (check.ok()) {
        item["status"] = GoalStatusName(check->status);
        item["goal_status"] = check->ToJson();
      } else {
        item["error"] = check.status().message();
      }
      return item;
    };
    bool open_failed = false;
    Result<json> item = status_.Get(*env_, wf, "workflow list item", item_of, &open_failed);
    list.push_back(item.ok() ? *item : json{{"name", wf}, {"error", item.status().message()}});
  }
  return json{{"workflows", list}};
}

void KeepFreedMemory() {
  // Up to 32 MiB free at the top of a heap is kept; blocks under 4 MiB come
  // from the heap rather than their own mapping.
  mallopt(M_TRIM_THRESHOLD, 32 << 20);
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
}

json PooledReads::Health() const {
  return json{{"open", pool_.open()},
              {"opens", pool_.opens()},
              {"reuses", pool_.reuses()},
              {"dropped_stale", pool_.dropped_stale()},
              {"status_recomputes", status_.recomputes()},
              {"status_hits", status_.hits()},
              {"answer_recomputes", answers_.recomputes()},
              {"answer_hits", answers_.hits()},
              {"answer_bytes", answers_.bytes() + status_.bytes()}};
}

}  // namespace pulse::serve

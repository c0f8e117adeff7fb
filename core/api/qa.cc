// QA owned by Pulse in the API table: a pass's worklist (which modules were
// due and what became of each) and the failed runs the safety net woke Pulse
// for. The command line, the HTTP routes and the browser read the same rows.
#include "core/api/api.h"
#include "core/conversation/pass_worklist.h"
#include "core/conversation/run_failures.h"

namespace pulse {

using nlohmann::json;

namespace {

Result<json> Worklist(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  int pass_id = 0;
  PULSE_RETURN_IF_ERROR(a.OptInt("pass_id", 0, 1 << 30, &pass_id));
  PULSE_ASSIGN_OR_RETURN(std::vector<WorklistRow> rows, ReadWorklist(*ctx.db, pass_id));
  json items = json::array();
  for (const WorklistRow& r : rows) items.push_back(r.ToJson());
  PULSE_ASSIGN_OR_RETURN(std::vector<ModuleDue> due, ListModuleDue(*ctx.db));
  json rules = json::array();
  for (const ModuleDue& d : due) {
    rules.push_back({{"module", d.module}, {"rule", d.rule}, {"reason", d.reason}, {"since", d.since}});
  }
  return json{{"pass_id", rows.empty() ? 0 : rows.front().pass_id},
              {"order", PassOrderFor(ctx.config.HasGoal())},
              {"worklist", items},
              {"module_due", rules}};
}

Result<json> FailedRuns(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  PULSE_ASSIGN_OR_RETURN(std::vector<FailedRunSeen> seen, ListSeenFailedRuns(*ctx.db));
  json items = json::array();
  for (const FailedRunSeen& r : seen) items.push_back(r.ToJson());
  return json{{"failed_runs", items}};
}

}  // namespace

void AddQaApi(ApiRegistry& r) {
  r.Add("pass.worklist", Worklist, Access::kRead,
        "a pass's worklist (the latest pass unless {pass_id}): each module due or not and why, and the rules that "
        "make a module due");
  r.Add("qa.failed_runs", FailedRuns, Access::kRead,
        "the failed workflow runs Pulse was woken for (one run_failed turn each), newest first");
}

}  // namespace pulse

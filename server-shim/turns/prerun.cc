#include "server-shim/turns/prerun.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "agent/tools/pulse_tools.h"
#include "core/workflow/after_run.h"
#include "core/workflow/workflow_edit.h"
#include "core/store/workspace.h"
#include "core/review/workflow_review.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

// Reviews this process submitted and that have not claimed their record
// yet (a turn may wait for a slot): the same revision is not submitted twice.
std::mutex g_mu;
std::map<std::string, std::pair<std::string, int64_t>> g_submitted;  // workflow -> (revision, when)

struct Now {
  PlanState plan;
  ReviewFile file;
  PreRunVerdict verdict;
};

Result<Now> Look(Env& env, OpenCtx& oc, const std::string& step) {
  Now n;
  n.file = ReadReviewFile(env, ReviewFilePath(oc.paths().dir));
  if (!n.file.rebuilt_reason.empty()) spdlog::warn("{}: {}", oc.ctx.workflow, n.file.rebuilt_reason);
  PULSE_ASSIGN_OR_RETURN(n.plan, ReadPlanState(env, oc.paths().dir, oc.ctx.config, n.file, env.NowSeconds()));
  n.verdict = DecidePreRun(n.plan, step, env.NowSeconds());
  return n;
}

// Submits the review of `revision` unless this process already did.
Status StartReview(Env& env, const ServeOptions& options, TurnManager& turns, const std::string& workflow,
                   const std::string& revision, const std::string& trigger, const std::string& chat) {
  const int64_t now = env.NowSeconds();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_submitted.find(workflow);
  const double stale = options.review_timeout + options.review_wait;
  if (it != g_submitted.end() && it->second.first == revision && now - it->second.second < stale) {
    return Status::OK();
  }
  TurnRequest req;
  req.workflow = workflow;
  req.kind = "workflow_review";
  req.trigger = trigger;
  req.input = {{"trigger", trigger}, {"revision", revision}, {"notify", json::array()}};
  if (!chat.empty()) req.input["notify"].push_back(chat);
  PULSE_RETURN_IF_ERROR(turns.Submit(req).status());
  g_submitted[workflow] = {revision, now};
  spdlog::info("{}: Workflow Review started ({})", workflow, trigger);
  return Status::OK();
}

json Answer(const Now& n) {
  json out = n.verdict.ToJson();
  out["revision"] = n.plan.revision;
  if (n.plan.current) out["review"] = n.plan.current->ToJson();
  return out;
}

// A chat's run returns at once. The chat is put on the running review's
// list (a review this process submitted may still wait for a slot, so its
// record is awaited briefly) and is told through the outbox when it ends.
Result<json> ChatAnswer(Env& env, OpenCtx& oc, const PreRunRequest& req, const Now& n) {
  json waiting = {{"go", false}, {"reason", kReviewingMessage}, {"review_running", true}, {"revision", n.plan.revision}};
  if (req.chat_session.empty()) return waiting;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(Now now, Look(env, oc, req.step));
    if (now.verdict.go || (!now.verdict.review_needed && !now.verdict.review_running)) return Answer(now);
    if (now.verdict.review_running) {
      Status added = AddReviewWaiter(env, oc.paths().dir, now.plan.revision, req.chat_session, env.NowSeconds());
      if (added.ok()) return waiting;
    }
    if (std::chrono::steady_clock::now() >= until) {
      spdlog::warn("{}: the Workflow Review has not started yet; chat {} is not on its list", req.workflow,
                   req.chat_session);
      return waiting;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

Result<PreRunRequest> PreRunRequestFromJson(const std::string& workflow, const json& body) {
  PreRunRequest r;
  r.workflow = workflow;
  Args a("pre-run", body);
  PULSE_RETURN_IF_ERROR(a.OptString("step", &r.step));
  PULSE_RETURN_IF_ERROR(a.OptString("caller", &r.caller));
  if (r.caller.empty()) r.caller = "schedule";
  if (r.caller != "schedule" && r.caller != "chat") return a.Error("caller", "must be schedule or chat");
  PULSE_RETURN_IF_ERROR(a.OptString("chat_session", &r.chat_session));
  if (r.step.size() > 200 || r.chat_session.size() > 200) return a.Fail("step or chat_session is longer than 200 bytes");
  int wait = -1;
  PULSE_RETURN_IF_ERROR(a.OptInt("wait_seconds", 0, 3600, &wait));
  r.wait_seconds = wait;
  return r;
}

Result<json> PreRun(Env& env, const ServeOptions& options, TurnManager& turns, const PreRunRequest& req) {
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<OpenCtx> oc, OpenForCall(env, options.workspace, req.workflow));
  PULSE_ASSIGN_OR_RETURN(Now n, Look(env, *oc, req.step));
  if (n.verdict.go || (!n.verdict.review_needed && !n.verdict.review_running)) return Answer(n);
  if (n.verdict.review_needed) {
    PULSE_RETURN_IF_ERROR(StartReview(env, options, turns, req.workflow, n.plan.revision, req.caller,
                                      req.caller == "chat" ? req.chat_session : ""));
  }
  if (req.caller == "chat") return ChatAnswer(env, *oc, req, n);
  // A scheduled run waits for the review, bounded; a review that does not
  // finish in time lets the run go.
  const double wait = req.wait_seconds >= 0 ? req.wait_seconds : options.review_wait;
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait);
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    PULSE_ASSIGN_OR_RETURN(Now again, Look(env, *oc, req.step));
    if (again.verdict.go || (!again.verdict.review_needed && !again.verdict.review_running)) return Answer(again);
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", wait);
  return json{{"go", true}, {"revision", n.plan.revision},
              {"reason", std::string("the Workflow Review did not finish within ") + buf + " s; the run goes"}};
}

void ReviewAhead(Env& env, const ServeOptions& options, TurnManager& turns, const std::string& workflow,
                 ApiContext& ctx) {
  if (turns.RunningOfKind("workflow_review") > 0 || turns.ActiveOn(workflow)) return;  // one at a time
  ReviewFile file = ReadReviewFile(env, ReviewFilePath(ctx.workflow_dir));
  if (RunningReview(file, env.NowSeconds())) return;
  Result<PlanState> plan = ReadPlanState(env, ctx.workflow_dir, ctx.config, file, env.NowSeconds());
  if (!plan.ok()) {
    spdlog::warn("tick: {}: plan: {}", workflow, plan.status().message());
    return;
  }
  if (!ReviewAheadDue(ctx.config, *plan, env.NowSeconds())) return;
  Status s = StartReview(env, options, turns, workflow, plan->revision, "tick", "");
  if (!s.ok()) spdlog::warn("tick: {}: Workflow Review not started: {}", workflow, s.message());
}

std::vector<std::string> MigrateAfterRunAtStart(Env& env, const std::string& workspace,
                                                const std::vector<std::string>& workflows) {
  std::vector<std::string> log;
  for (const std::string& wf : workflows) {
    // The migration is an edit of workflow.json only: no database is opened,
    // and a file that names no pulse_mode has nothing to migrate.
    Result<WorkflowPaths> paths = ResolveWorkflow(workspace, wf);
    Result<std::string> text = paths.ok() ? ReadWorkflowJson(env, paths->workflow_json) : Result<std::string>(paths.status());
    if (!text.ok()) {
      log.push_back(wf + ": after-run migration skipped: " + text.status().message());
      continue;
    }
    if (text->find("pulse_mode") == std::string::npos) continue;
    AfterRunMigration report;
    Result<WorkflowEditResult> edit = EditWorkflowJson(env, paths->workflow_json, "migrate", [&](json& doc) {
      report = AfterRunMigration{};  // a re-read starts over
      return MigrateAfterRunDoc(doc, &report);
    });
    if (!edit.ok()) {
      log.push_back(wf + ": after-run migration: " + edit.status().message());
    } else if (edit->changed) {
      const json out = report.ToJson();
      log.push_back(wf + ": pulse_mode migrated to after_run: migrated " + out["migrated"].dump() + ", in step " +
                    out["in_step"].dump());
    }
  }
  return log;
}

void StartHousekeeping(TurnManager& turns, const std::string& workflow, ApiContext& ctx) {
  if (turns.ActiveOn(workflow)) return;
  Result<std::vector<HousekeepingRequest>> pending = ListHousekeeping(*ctx.db, "pending", 1);
  if (!pending.ok() || pending->empty()) return;
  TurnRequest req;
  req.workflow = workflow;
  req.kind = "housekeeping";
  req.trigger = "after run " + pending->front().run_id;
  req.input = {{"request_id", pending->front().id}};
  Result<TurnTicket> t = turns.Submit(req);
  if (!t.ok()) spdlog::warn("tick: {}: housekeeping not started: {}", workflow, t.status().message());
}

}  // namespace pulse::serve

// The scheduler tick. Whether a goal check is due, and
// whether a safe default is due, are core rules (TurnCheckDue,
// "decision.apply_due_defaults"); the tick only asks, starts what is due and
// records what it started.
#include <spdlog/spdlog.h>

#include "agent/outbox/notifications.h"
#include "agent/tools/pulse_tools.h"
#include "agent/turns/pulse_turns.h"
#include "core/api/decisions.h"
#include "core/goal/goal_facts.h"
#include "core/conversation/pass.h"
#include "core/base/time_util.h"
#include "server-shim/cluster/claims.h"
#include "server-shim/turns/prerun.h"
#include "server-shim/observe/metrics.h"
#include "server-shim/serve.h"
#include "server-shim/tick/tick_due.h"
#include "server-shim/tick/tick_import.h"

namespace pulse::serve {

using nlohmann::json;

Scheduler::Scheduler(Env* env, const ServeOptions& options, TurnManager* turns, OutboxDeliverer* deliverer)
    : env_(env), options_(options), turns_(turns), deliverer_(deliverer),
      due_(DueIndexFor(options, "tick-due.json", kSecondsPerDay, 0)), count_(env, options.workspace) {}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Start() {
  if (!options_.etcd.empty()) claims_ = StartClaims(options_);
  // The first pass comes at once: the deliverer waits for it (TickOnce).
  if (deliverer_) deliverer_->TickPassing(true);
  thread_ = std::thread([this] {
    LowerThreadPriority("tick");
    due_->Load();  // here, not before serving: 10,000 entries take a while to parse
    for (;;) {
      try {
        TickOnce();
      } catch (const std::exception& e) {
        spdlog::error("tick: internal error: {}", e.what());
      }
      due_->Save(false);
      std::unique_lock<std::mutex> l(mu_);
      if (cv_.wait_for(l, std::chrono::duration<double>(options_.tick_seconds), [this] { return stop_; })) break;
    }
    due_->Save(true);
  });
}

TickStats Scheduler::last_stats() {
  std::lock_guard<std::mutex> l(mu_);
  TickStats s = last_stats_;
  s.running = ticking_;
  return s;
}

void Scheduler::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (claims_) claims_->Stop();
}

namespace {

// Safe defaults whose time has passed (the core applies them only with
// pulse.autonomy.answer=act); what it applied is recorded as one background
// agent of the tick.
void ApplySafeDefaults(Env& env, WorkflowHandle& h, const std::string& wf) {
  GoalMemory memory = h.memory();
  DecisionContext dc = h.decisions(memory);
  Result<DefaultsApplied> applied = ApplyDueDefaults(dc);
  if (!applied.ok()) {
    spdlog::warn("tick: {}: applying safe defaults: {}", wf, applied.status().message());
    return;
  }
  if (applied->applied.empty()) return;
  const int64_t now = env.NowSeconds();
  AgentStart start;
  start.session_id = "schedule-pulse-tick";
  start.agent_id = "pulse-tick-safe-defaults-" + FormatTime(now);
  start.name = wf + " Pulse: safe defaults applied";
  start.kind = "apply_due_defaults";
  start.at = now;
  AgentCompletion done;
  done.session_id = start.session_id;
  done.agent_id = start.agent_id;
  done.status = "completed";
  done.result = DefaultsAppliedJson(*applied)["applied"].dump();
  done.at = now;
  AgentLogWriter log = h.agent_log();
  Status s = log.Started(h.agent_log_key(), start, now);
  if (s.ok()) s = log.Completed(h.agent_log_key(), done, now);
  if (!s.ok()) spdlog::warn("tick: {}: safe defaults not logged: {}", wf, s.message());
  spdlog::info("tick: {}: applied {} safe default(s)", wf, applied->applied.size());
}

void NoteGoalRecovery(Env& env, ApiContext& ctx, const std::string& wf) {
  Result<std::optional<int64_t>> sent = pulse::NoteGoalRecovery(ctx);
  if (!sent.ok()) spdlog::warn("tick: {}: recovery message: {}", wf, sent.status().message());
  else if (*sent) spdlog::info("tick: {}: the goal is measured again (outbox {})", wf, **sent);
}

// A turn the tick starts (its records written through the tick's own
// connection when given); a refusal (busy, shutting down) is logged.
bool SubmitTickTurn(TurnManager& turns, const std::string& wf, const char* kind, json input, OpenCtx* open = nullptr) {
  TurnRequest req;
  req.workflow = wf;
  req.kind = kind;
  req.trigger = "tick";
  req.input = std::move(input);
  Result<TurnTicket> t = turns.Submit(req, open);
  if (!t.ok()) spdlog::warn("tick: {}: {} not started: {}", wf, kind, t.status().message());
  return t.ok();
}

// The full Pulse pass, when its schedule or a fast request makes it due.
bool StartPassIfDue(Env& env, TurnManager& turns, OpenCtx& oc, const std::string& wf) {
  ApiContext& ctx = oc.ctx;
  Result<PassDue> pass = PassDueAt(*ctx.db, ctx.config, env.NowSeconds());
  if (!pass.ok()) {
    spdlog::warn("tick: {}: pass due: {}", wf, pass.status().message());
    return false;
  }
  if (!pass->due) return false;
  return SubmitTickTurn(turns, wf, "pass", {{"pass_kind", pass->kind}, {"due_reason", pass->reason}}, &oc);
}

// Focus areas past their end date expire (an edit of workflow.json that
// keeps any concurrent save).
void ExpireFocusAreas(WorkflowHandle& h, const std::string& wf) {
  Result<std::vector<std::string>> expired = h.focus_areas(nullptr).Expire();
  if (!expired.ok()) {
    spdlog::warn("tick: {}: expiring focus areas: {}", wf, expired.status().message());
  } else if (!expired->empty()) {
    spdlog::info("tick: {}: focus areas expired: {}", wf, json(*expired).dump());
  }
}

// The daily goal check, when the core says it is due.
void StartCheckIfDue(TurnManager& turns, OpenCtx& oc, const std::string& wf, const CheckLoad& load) {
  Result<CheckDue> due = TurnCheckDue(oc.ctx, load);
  if (!due.ok()) {
    spdlog::warn("tick: {}: goal check due: {}", wf, due.status().message());
    return;
  }
  if (due->due) {
    (void)SubmitTickTurn(turns, wf, "goal_check", {{"report_only", due->report_only}, {"due_reason", due->reason}}, &oc);
  }
}

// The pass's figures for /api/health, with its time.
void StoreStats(std::mutex& mu, TickStats* into, TickStats stats, std::chrono::steady_clock::time_point started) {
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::lock_guard<std::mutex> l(mu);
  *into = stats;
}

// The share of the tick interval a pass may spend taking in runs of
// schedule-runs.json (unless --import-seconds says); visits after it leave
// theirs for the next pass.
constexpr double kImportShare = 0.4;

// Older runs from schedule-runs.json come in first, as for `pulse check`, so
// the goal check deciding due-ness and quiet sees the runs the command line
// sees (only when the file changed since its last import: tick_import.h). At
// most --import-batch new runs a visit, the newest first, and none once the
// pass has spent kImportShare of the tick interval and imported some
// (`may_import` false), so a workspace met for the first time (every run
// new) comes in over a few passes, each within the interval. False while
// runs are left for a later visit; `took_runs` is set when runs came in.
bool HistoryIn(Env& env, const ServeOptions& options, OpenCtx& oc, const std::string& wf, bool may_import,
               std::atomic<bool>* took_runs) {
  Result<ImportCounts> imported = ImportScheduleRunsOnChange(env, *oc.ctx.db, oc.ctx.config, oc.paths().schedule_runs,
                                                             may_import ? options.import_batch : -1);
  if (!imported.ok()) {
    spdlog::warn("tick: {}: {}", wf, imported.status().message());
    return true;
  }
  if (imported->imported > 0) *took_runs = true;
  if (imported->remaining == 0) return true;
  spdlog::debug("tick: {}: imported {} runs of schedule-runs.json, {} to go", wf, imported->imported,
                imported->remaining);
  return false;
}

}  // namespace

void Scheduler::TickOnce() {
  const auto started = std::chrono::steady_clock::now();
  ticking_ = true;  // until the pass ends, however it ends
  if (deliverer_) deliverer_->TickPassing(true);
  struct Ended {
    std::atomic<bool>& flag;
    OutboxDeliverer* deliverer;
    ~Ended() {
      flag = false;
      if (deliverer) deliverer->TickPassing(false);
    }
  } ended{ticking_, deliverer_};
  const WorkflowCount::DirMark listed_at = count_.Mark();
  Result<std::vector<std::string>> names = ListWorkflows(*env_, options_.workspace);
  if (!names.ok()) return spdlog::error("tick: {}", names.status().message());
  count_.Seen(listed_at, *names);
  due_->Retain(*names);
  const std::vector<std::string> mine = claims_ ? Claimed(*names) : *names;
  // Workflows are independent databases: `tick_threads` visitors take the
  // next one in name order until none is left (the threads below this one
  // inherit its lower priority, so the HTTP side still comes first).
  PassCounts counts;
  const double import_seconds =
      options_.import_seconds >= 0 ? options_.import_seconds : kImportShare * options_.tick_seconds;
  counts.import_until = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(import_seconds));
  std::atomic<size_t> next{0};
  auto visitor = [&] {
    for (size_t i; (i = next.fetch_add(1)) < mine.size();) {
      if (std::lock_guard<std::mutex> l(mu_); stop_) return;
      try {
        Visit(mine[i], counts);
      } catch (const std::exception& e) {
        spdlog::error("tick: {}: internal error: {}", mine[i], e.what());
      }
    }
  };
  const size_t helpers = std::min<size_t>(static_cast<size_t>(std::max(1, options_.tick_threads)) - 1,
                                          mine.size() > 1 ? mine.size() - 1 : 0);
  std::vector<std::thread> others;
  for (size_t t = 0; t < helpers; ++t) others.emplace_back(visitor);
  visitor();
  for (std::thread& t : others) t.join();
  if (std::lock_guard<std::mutex> l(mu_); stop_) return;
  if (deliverer_) deliverer_->Wake();
  TickStats stats;
  stats.workflows = static_cast<int64_t>(mine.size());
  stats.visited = counts.visited;
  stats.skipped = counts.skipped;
  stats.importing = counts.importing;
  StoreStats(mu_, &last_stats_, stats, started);
  ++ticks_;
  if (ServerMetrics* metrics = CurrentServerMetrics()) {
    metrics->TickPass(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
}

void Scheduler::Visit(const std::string& wf, PassCounts& counts) {
  // Passed over when nothing it reads moved and no rule's time came
  // (tick_due.h); declared first so it ends after the database closed.
  TickVisit visit(*due_, *env_, options_, *turns_, wf);
  ++(visit.skip() ? counts.skipped : counts.visited);
  if (visit.skip()) return;
  // With --etcd every write below, and in the turns started here, carries
  // this instance's claim on the workflow (fence.h).
  FenceScope fence(FenceFor(wf));
  Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env_, options_.workspace, wf);
  if (!oc.ok()) {
    spdlog::warn("tick: {}: {}", wf, oc.status().message());
    return;
  }
  ApiContext& ctx = (*oc)->ctx;
  visit.Opened(*ctx.db);
  if (claims_ && !BeginFencedTick(wf, *ctx.db)) return;

  // 1. The daily goal check, when the core says it is due, once the older
  // runs are in (HistoryIn); until then nothing that reads them starts (the
  // goal check or pass, the failed-run and QA turns, a review ahead, the
  // recovery note) and the workflow is visited again on the next pass.
  const bool may_import = std::chrono::steady_clock::now() < counts.import_until || !counts.imported;
  const bool history_in = HistoryIn(*env_, options_, **oc, wf, may_import, &counts.imported);
  if (!history_in) {
    visit.NotQuiet();
    ++counts.importing;
  }
  if (history_in) {
    // 1a. The full Pulse pass first (its Goal Work begins with the goal
    // check): never beside another turn of the workflow, and it shares the
    // goal checks' concurrency cap. The cap is counted and a turn started
    // under one lock, so two visitors never both take its last place.
    std::lock_guard<std::mutex> starting(starts_mu_);
    const int pulse_running = turns_->RunningOfKind("goal_check") + turns_->RunningOfKind("pass");
    const bool pass_started =
        !turns_->ActiveOn(wf) && pulse_running < options_.max_checks && StartPassIfDue(*env_, *turns_, **oc, wf);
    if (!pass_started) StartCheckIfDue(*turns_, **oc, wf, CheckLoad{turns_->ActiveOn(wf), pulse_running, options_.max_checks});
  }

  // 1b. The failed-run safety net (a workflow with a goal: one short
  // run_failed turn per new failed run), then a QA fix run for the oldest
  // QA request; each only when no turn of the workflow is active.
  if (history_in && !StartFailedRunTurn(*env_, *turns_, **oc)) (void)StartQaFixRun(*env_, *turns_, **oc);

  // 2. Safe defaults whose time has passed.
  ApplySafeDefaults(*env_, *(*oc)->handle, wf);

  ExpireFocusAreas(*(*oc)->handle, wf);

  // Workflow Review ahead of the next run (one at a time over the
  // workspace, so under the same lock), and the after-run housekeeping a
  // finished run asked for.
  if (history_in) {
    std::lock_guard<std::mutex> starting(starts_mu_);
    ReviewAhead(*env_, options_, *turns_, wf, ctx);
  }
  StartHousekeeping(*turns_, wf, ctx);

  // Asks over the hourly cap whose slot has freed.
  (void)StartQueuedAsks(*turns_, ctx);

  // 3. The goal measured again after it was not: the recovery message.
  if (history_in) NoteGoalRecovery(*env_, ctx, wf);

  // 4. Messages not yet delivered: on the deliverer's thread, so a slow
  // endpoint never holds up the tick.
  if (!deliverer_) DeliverOutbox(**oc);
  // Apply messages go to the Builder chat, not to the channels.
  DeliverApplyMessages(ctx);
  visit.Done(ctx);
  // What the visit wrote (and what waits) is the deliverer's to look at;
  // with nothing for it, it need not open the workflow to find that out.
  if (deliverer_) deliverer_->Settled(wf, ctx);
}

}  // namespace pulse::serve

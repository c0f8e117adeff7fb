#include "server-shim/tick/tick_due.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "agent/outbox/outbox.h"
#include "core/base/cron.h"
#include "core/asks/asks.h"
#include "core/base/time_util.h"
#include "core/decisions/decisions.h"
#include "core/review/workflow_review.h"
#include "server-shim/serve.h"

namespace pulse::serve {

using nlohmann::json;

WorkflowStamp StampWorkflow(const std::string& workspace, const std::string& workflow) {
  const std::string dir = workspace + "/Workflow/" + workflow;
  WorkflowStamp s;
  s.db = StampDatabase(dir + "/db/db.sqlite");
  for (const char* rel : {"/workflow.json", "/schedule-runs.json", "/planning/plan.json", "/planning/step_config.json",
                          "/planning/changelog.jsonl", "/planning/workflow_review.json", "/runs"}) {
    s.files.push_back(StampFile(dir + rel));
  }
  return s;
}

namespace {

// The next minute at or after `from` that `cron` fires, looked for up to
// `limit` (nullopt past it). Between two fires PreviousFire stays the same,
// so a pass that was not due stays not due.
std::optional<int64_t> NextFire(const CronSpec& spec, int64_t from, int64_t limit) {
  for (int64_t m = (from / 60 + 1) * 60; m <= limit; m += 60) {
    if (spec.Matches(m)) return m;
  }
  return std::nullopt;
}

// The full pass's cron, when Pulse is on and one is set; false when the
// horizon cannot be said (a cron the pass itself would refuse).
bool LimitByCron(const WorkflowConfig& config, int64_t now, int64_t* until) {
  if (!config.pulse_enabled) return true;
  const json& raw = config.raw;
  if (!raw.contains("pulse") || !raw["pulse"].is_object() || !raw["pulse"].contains("full_pass")) return true;
  const json& fp = raw["pulse"]["full_pass"];
  if (!fp.is_object() || !fp.contains("cron") || !fp["cron"].is_string()) return false;
  Result<CronSpec> spec = ParseCron(fp["cron"].get<std::string>(), "pulse.full_pass.cron");
  if (!spec.ok()) return false;
  std::optional<int64_t> next = NextFire(*spec, now, *until);
  if (next) *until = std::min(*until, *next);
  return true;
}

// The first safe default still ahead (one whose time has passed and was not
// applied waits for the owner, not the clock).
bool LimitBySafeDefaults(Db& db, int64_t now, int64_t* until) {
  Result<std::optional<int64_t>> at = NextSafeDefault(db, now);
  if (!at.ok()) return false;
  if (*at) *until = std::min(*until, **at);
  return true;
}

// A queued ask starts when its hourly slot frees: visited every tick.
bool NoQueuedAsks(Db& db) {
  Result<int64_t> queued = QueuedAskCount(db);
  return queued.ok() && *queued == 0;
}

// A Workflow Review ahead waits for the plan to be quiet; a running one
// holds every other.
bool LimitByReview(Env& env, ApiContext& ctx, int64_t now, int64_t* until) {
  ReviewFile file = ReadReviewFile(env, ReviewFilePath(ctx.workflow_dir));
  if (RunningReview(file, now)) return false;
  Result<PlanState> plan = ReadPlanState(env, ctx.workflow_dir, ctx.config, file, now);
  if (!plan.ok()) return false;
  bool enabled = false;
  for (const Schedule& s : ctx.config.schedules) enabled = enabled || s.enabled;
  if (!enabled || !plan->has_plan || plan->current || plan->due.empty()) return true;
  const int64_t quiet_at = plan->last_change_at + kPlanQuietSeconds;
  if (quiet_at <= now) return false;  // due now: the tick starts it when no turn holds the workflow
  *until = std::min(*until, quiet_at);
  return true;
}

}  // namespace

std::optional<int64_t> TickQuietUntil(Env& env, ApiContext& ctx, int64_t now) {
  if (!ctx.db) return std::nullopt;
  // The daily goal check and focus areas' end dates move with the UTC day.
  int64_t until = StartOfDay(now) + kSecondsPerDay;
  if (until <= now) return std::nullopt;
  if (!LimitByCron(ctx.config, now, &until)) return std::nullopt;
  if (!LimitBySafeDefaults(*ctx.db, now, &until)) return std::nullopt;
  if (!NoQueuedAsks(*ctx.db)) return std::nullopt;
  if (!LimitByReview(env, ctx, now, &until)) return std::nullopt;
  return until;
}

bool OutboxQuiet(ApiContext& ctx) {
  if (!ctx.db) return false;
  Result<std::vector<OutboxMessage>> fresh = UnplannedOutbox(*ctx.db, 1);
  if (!fresh.ok() || !fresh->empty()) return false;
  // Retries with backoff wait for the clock: any pending one keeps it busy.
  const int64_t far = (ctx.env ? ctx.env->NowSeconds() : 0) + 3650 * kSecondsPerDay;
  Result<std::vector<DueDelivery>> pending = DueDeliveries(*ctx.db, far, 1);
  return pending.ok() && pending->empty();
}

void LowerThreadPriority(const char* who) {
  const id_t tid = static_cast<id_t>(::syscall(SYS_gettid));
  if (::setpriority(PRIO_PROCESS, tid, 10) != 0) spdlog::warn("{}: lower priority not set: {}", who, std::strerror(errno));
}

json TickStatsJson(const TickStats& stats) {
  return json{{"running", stats.running}, {"workflows", stats.workflows}, {"visited", stats.visited}, {"skipped", stats.skipped},
              {"importing", stats.importing}, {"seconds", stats.seconds}};
}

std::unique_ptr<DueIndex> DueIndexFor(const ServeOptions& options, const std::string& file_name,
                                      int64_t max_quiet_seconds, double min_save_seconds) {
  // With --etcd several instances share the workspace: each keeps its own in
  // memory.
  if (!options.etcd.empty()) return std::make_unique<DueIndex>(options.workspace);
  return std::make_unique<DueIndex>(options.workspace, file_name, max_quiet_seconds, min_save_seconds);
}

bool DueIndex::Quiet(const std::string& workflow, int64_t now) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(workflow);
  if (it == entries_.end()) return false;
  if (now < it->second.visited_at || now >= it->second.until ||
      StampWorkflow(workspace_, workflow) != it->second.stamp) {
    entries_.erase(it);
    saved_ = false;
    return false;
  }
  return true;
}

void DueIndex::MarkQuiet(const std::string& workflow, const WorkflowStamp& expected, int64_t visited_at,
                         int64_t until) {
  if (StampWorkflow(workspace_, workflow) != expected) return;
  std::lock_guard<std::mutex> l(mu_);
  entries_[workflow] = Entry{expected, visited_at, until};
  saved_ = false;
}

void DueIndex::Retain(const std::vector<std::string>& workflows) {
  std::set<std::string> keep(workflows.begin(), workflows.end());
  std::lock_guard<std::mutex> l(mu_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (keep.count(it->first)) {
      ++it;
    } else {
      it = entries_.erase(it);
      saved_ = false;
    }
  }
}

size_t DueIndex::size() {
  std::lock_guard<std::mutex> l(mu_);
  return entries_.size();
}

TickVisit::TickVisit(DueIndex& index, Env& env, const ServeOptions& options, TurnManager& turns,
                     const std::string& workflow)
    : index_(index), env_(env), options_(options), turns_(turns), workflow_(workflow), now_(env.NowSeconds()) {
  skip_ = index_.Quiet(workflow_, now_);
  if (skip_) return;
  calm_before_ = Calm();
  before_ = StampWorkflow(options_.workspace, workflow_);
}

bool TickVisit::Calm() const {
  const int pulse_running = turns_.RunningOfKind("goal_check") + turns_.RunningOfKind("pass");
  return !turns_.ActiveOn(workflow_) && turns_.RunningOfKind("workflow_review") == 0 &&
         pulse_running < options_.max_checks;
}

void TickVisit::Done(ApiContext& ctx) {
  if (skip_ || not_quiet_ || !calm_before_ || !Calm()) return;
  until_ = TickQuietUntil(env_, ctx, now_);
  if (until_) db_after_ = own_.End(*ctx.db, WorkflowDbPath(options_.workspace, workflow_));
}

TickVisit::~TickVisit() {
  if (skip_ || !until_ || !db_after_) return;
  WorkflowStamp expected = before_;
  expected.db = *db_after_;
  index_.MarkQuiet(workflow_, expected, now_, *until_);
}

}  // namespace pulse::serve

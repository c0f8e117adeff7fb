// Attention: what in a workflow needs a person, besides its goal status.
// One model, computed by this core for every surface (the overview and the
// workflow page of the Pulse tab, in the server and in the browser, `pulse
// status`, `pulse check`, --fail-on), so they agree. Each item is a kind with
// a severity, one sentence, the card it links to and, where known, since
// when:
//   goal_alarm        a goal check alarm (not_measured, no_run, ...)
//   needs_reauth      run errors that look like an expired login
//   error_rate_spike  the failure share since the previous check, against the
//                     14-day median day
//   cost_spike        runs costing twice the 14-day median run or more
//   review_broken     the latest Workflow Review left a break that stops runs
//   delivery_failed   a message to the owner given up after its retries
//   schedule_late     a schedule's expected run did not start within its grace
//   decision_waiting  a decision waiting for the owner for over a day
// Every input comes from the workflow database (the goal check, its context
// facts and the snapshot of the outside files), so a copy in the browser
// shows what the server shows.
//
// The owner may snooze an item: until a time, or until it changes (its
// fingerprint: the runs, the spike, the missed fire, ... it is about). A
// snoozed item is still listed, marked so, and no longer counts: not in the
// overview's "needs attention", not for --fail-on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/facts/goal_context_facts.h"
#include "core/goal/goal_check.h"
#include "core/store/db.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

enum class AttentionKind {
  kGoalAlarm, kNeedsReauth, kErrorRateSpike, kCostSpike, kReviewBroken, kDeliveryFailed, kScheduleLate,
  kDecisionWaiting,
};
inline constexpr int kAttentionKindCount = 8;
const char* AttentionKindName(AttentionKind kind);  // "goal_alarm", ...
std::optional<AttentionKind> ParseAttentionKind(std::string_view name);

// Worst first.
enum class Severity { kCritical, kWarning, kInfo };
const char* SeverityName(Severity severity);

// The rules' numbers (docs/attention.md says the same).
inline constexpr int64_t kScheduleGraceSeconds = 3600;      // as Healthchecks' default grace
inline constexpr int kScheduleMissedCritical = 3;           // missed fires that make it critical
inline constexpr int64_t kDecisionWaitingSeconds = 86400;   // a decision older than a day
inline constexpr int64_t kDeliveryFailedWindowSeconds = 7 * 86400;

struct AttentionItem {
  AttentionKind kind = AttentionKind::kGoalAlarm;
  Severity severity = Severity::kWarning;
  std::string key;          // stable within a kind: "goal_alarm:not_measured", "schedule_late:daily"
  std::string fingerprint;  // what "until it changes" compares
  std::string text;         // one sentence
  std::string card;         // the Pulse tab's card it links to ("needs-you")
  std::optional<int64_t> since;
  bool snoozed = false;
  std::optional<int64_t> snoozed_until;  // snoozed until a time; none: until it changes
};

// A schedule as Healthchecks and Cronitor watch a job: when it is expected
// next, and whether an expected run did not start within the grace. Times are
// UTC, the zone the cron expressions are read in.
enum class ScheduleState {
  kOnTime,   // every fire since its last run is covered, or still within its grace
  kLate,     // a fire passed its grace with no run since
  kPaused,   // not enabled
  kNew,      // no run of this schedule recorded yet: nothing to be late against
  kInvalid,  // the cron expression does not parse
};
const char* ScheduleStateName(ScheduleState state);

struct ScheduleWatch {
  std::string id, cron;
  ScheduleState state = ScheduleState::kNew;
  std::optional<int64_t> last_run_at;  // the latest start of a run of this schedule
  std::optional<int64_t> expected_at;  // the first fire after that run
  std::optional<int64_t> next_at;      // the next fire after now
  int missed = 0;                      // fires past their grace with no run (at most 100 counted)
  std::string problem;                 // kInvalid: why
};

// Pure: one schedule's state at `now`.
ScheduleWatch WatchSchedule(const Schedule& schedule, std::optional<int64_t> last_run_at, int64_t now);

struct Attention {
  std::vector<AttentionItem> items;  // open items worst first, then the snoozed ones
  std::vector<ScheduleWatch> schedules;
  // The worst severity among items not snoozed; none when nothing is open.
  std::optional<Severity> Worst() const;
  int Open() const;  // items not snoozed
};

// Every item at `now` from the check, its facts (read as a reader sees them:
// FactsWindow::kSincePreviousCheck) and the database, snoozes applied.
// REQUIRES: the schema ensured (as every opened workflow has it).
Result<Attention> GatherAttention(Db& db, const WorkflowConfig& config, const GoalCheck& check,
                                  const ContextFacts& facts, int64_t now);

// The overview's order, worst first (`pulse status` and the Pulse tab sort by
// it): 0 cannot be read, 1 critical (off track, not measured, or a critical
// item), 2 needs attention (at risk, or a warning item), 3 on track, 4 no
// goal; an info item never raises a workflow.
int AttentionRank(GoalStatus status, std::optional<Severity> worst);
// The goal statuses' own order within a rank (off_track first, no_goal last).
int GoalStatusOrder(GoalStatus status);

// Snoozes `key` (an item of `current`) until `until`, or until the item
// changes when `until` is none; NotFound naming the key when `current` has
// no such item, InvalidArgument for an `until` not after `now`.
Status SnoozeAttention(Db& db, const Attention& current, const std::string& key, std::optional<int64_t> until,
                       int64_t now);
// Lifts a snooze; NotFound when `key` is not snoozed.
Status UnsnoozeAttention(Db& db, const std::string& key);

}  // namespace pulse

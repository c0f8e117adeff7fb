// The goal check's context facts: what turns "is it measured" into "why is
// it not moving". Each is computed from the workflow database alone (the
// outside files are snapshotted into it first, core/facts/fact_snapshot.h), over
// a window that starts at a recorded goal check (FactsWindow; the last 7 days
// before it, or before now, when there is none):
//   plan_changes   changelog entries; those touching the goal route's steps or
//                  the metric are marked (the check asks the Builder about them)
//   owner_answers  decisions the owner answered or dismissed
//   spend          the ledger's last 7 days against the 7 before (no budget
//                  exists, so none is compared)
//   cost_spikes    runs costing at least twice the 14-day median run
//   error_rate     the failure share against the 14-day median daily share
//   login_hints    run errors and CONCERNS: lines that look like an expired login
//   run_health     runs, failures with their error, CONCERNS: lines, open QA
//                  requests, each schedule's runs, unreadable run folders
//   builder_asks   Pulse's asks to the Builder chat that ended, with the answers
// The JSON is in core/api/facts.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/env.h"
#include "core/facts/fact_snapshot.h"
#include "core/store/db.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// The rules' numbers (docs/goal.md says the same).
inline constexpr int64_t kFactsDefaultWindowSeconds = 7 * 86400;  // no recorded check yet
inline constexpr int64_t kSpendWindowSeconds = 7 * 86400;
inline constexpr int64_t kMedianWindowSeconds = 14 * 86400;
inline constexpr int kErrorSpikeMinRuns = 5;      // runs since the last check
inline constexpr int kErrorSpikeMinFailed = 2;    // failed runs since the last check
inline constexpr size_t kFactsListMax = 50;       // entries per list (newest kept)

// What became of the latest read of an outside file.
struct FactSource {
  std::string file;
  std::string state;   // ok | missing | unreadable
  std::string reason;  // "costs/costs.sqlite: file is not a database"
  int64_t skipped = 0; // lines or rows skipped
  std::string read_at;
};

struct PlanChange {
  int64_t at = 0;
  std::string tool, reason, who, session;
  std::vector<std::string> steps;
  std::vector<std::string> goal_steps;  // steps of the goal's route among `steps`
  bool touches_metric = false;          // the metric's name, or configure_goal_metrics
  bool builder_chat = false;            // `session` is a Builder chat in chats.json
  bool touches_goal() const { return touches_metric || !goal_steps.empty(); }
};

struct OwnerAnswer {
  int64_t decision_id = 0;
  std::string question;
  std::string answer;  // the option, the text, or "dismissed"
  std::string kind;    // accepted | changed | dismissed | answered
  std::string note;
  int64_t answered_at = 0;
};

struct Spend {
  int64_t last_7_days_micros = 0;      // US dollars × 10^6, summed exactly
  int64_t previous_7_days_micros = 0;
  int64_t events_last_7_days = 0;
  int64_t events_previous_7_days = 0;
  bool has_ledger = false;             // rows were ever copied from the ledger
};

struct CostSpike {
  std::string run_id;
  int64_t usd_micros = 0;
  int64_t median_micros_x2 = 0;  // twice the median (exact for an even count)
  int64_t last_at = 0;
  std::string route;
  bool goal_route = false;
};

struct CostMedian {
  int64_t runs = 0;            // runs with a run_id in the 14 days
  int64_t median_micros_x2 = 0;
};

struct ErrorRate {
  int64_t runs = 0;
  int64_t failed = 0;
  std::optional<double> share;
  std::optional<double> median_daily_share;
  int64_t days_with_runs = 0;
  bool spike = false;
};

struct LoginHint {
  std::string run_id;
  int64_t at = 0;
  std::string where;    // error | concerns
  std::string pattern;  // the labelled pattern that matched
  std::string matched;  // the matched text
  std::string line;     // the line it is in (bounded)
};

struct RunConcern {
  std::string run_id;
  std::string line;
};

struct FailedRun {
  std::string run_id;
  int64_t finished_at = 0;
  std::string status, error, route;
  bool goal_route = false;
};

// One schedule's runs since the last check (goal_run_facts' schedule_id).
struct ScheduleHealth {
  std::string id;
  bool enabled = true;
  int64_t runs = 0, completed = 0, failed = 0;
  std::string last_status;  // "" with no run since the last check
  int64_t last_finished_at = 0;
};

// A run folder whose run.json could not be read (named, with the reason).
struct UnreadableRun {
  std::string folder;
  std::string reason;
};

struct RunHealth {
  int64_t runs = 0, completed = 0, failed = 0;
  std::vector<FailedRun> failed_runs;
  std::vector<RunConcern> concerns;
  // Open QA requests: what Pulse asked to have checked and no fix run has
  // answered yet (the workspace keeps no issue list of its own).
  int64_t open_issues = 0;
  std::vector<ScheduleHealth> schedules;
  std::vector<UnreadableRun> unreadable;
};

// One of Pulse's ask_builder calls that ended since the last check (a late
// answer reaches the next check this way).
struct BuilderAsk {
  std::string at, kind, message, answer;
  std::string status, call_id, builder_session_id;
};

// Where the window starts. A check being made (and the turn that makes it)
// reads what is new since the latest recorded check; a reader is shown what
// the latest check saw and what came since, from the check before it, so
// the check just recorded does not empty "since the last check".
enum class FactsWindow { kSinceLatestCheck, kSincePreviousCheck };

struct ContextFacts {
  std::optional<int64_t> last_check_at;  // the window starts here (exclusive)
  std::optional<int64_t> latest_check_at;  // the latest recorded check (kSincePreviousCheck)
  FactsWindow window = FactsWindow::kSinceLatestCheck;
  int64_t since = 0;
  int64_t now = 0;
  std::vector<PlanChange> plan_changes;
  std::vector<OwnerAnswer> owner_answers;
  Spend spend;
  CostMedian cost_median;
  std::vector<CostSpike> cost_spikes;
  ErrorRate error_rate;
  std::vector<LoginHint> login_hints;
  RunHealth run_health;
  std::vector<BuilderAsk> builder_asks;
  std::vector<FactSource> sources;
  bool needs_reauth() const { return !login_hints.empty(); }
};

Result<ContextFacts> GatherContextFacts(Db& db, const WorkflowConfig& config, int64_t now,
                                        FactsWindow window = FactsWindow::kSinceLatestCheck);

// The facts now: where the workflow's folder is at hand (`workflow_dir` and
// its reader, OutsideFilesReader in core/facts/fact_snapshot.h: the command
// line and the server), its outside files are snapshotted into the database
// first; the browser (no folder, no reader) computes from the database alone.
Result<ContextFacts> ContextFactsNow(Env& env, Db& db, const WorkflowConfig& config, const std::string& workflow_dir,
                                     OutsideFilesReader read_outside_files,
                                     FactsWindow window = FactsWindow::kSinceLatestCheck);

// The Pulse summary's one line when login hints were found: "Needs re-auth:
// re-connect what run r-9 uses (invalid_grant in its error: "...")".
std::string NeedsReauthLine(const ContextFacts& facts);

// ---- the rules, pure, each tested on its own ----

// Twice the median of `values` (exact in integers: a+b for an even count);
// 0 for none.
int64_t TwiceMedian(std::vector<int64_t> values);
// A run is a spike when it cost at least twice the median (2× is a spike,
// 1.99× is not); no median (no runs, or all free) means no spike.
bool IsCostSpike(int64_t usd_micros, int64_t median_micros_x2);
// A dollar amount as micro-dollars (rounded to the nearest).
int64_t UsdToMicros(double usd);
// The error-rate spike: at least kErrorSpikeMinRuns runs and
// kErrorSpikeMinFailed failures since the last check, and a share at least
// twice the median daily share (any share with a zero median).
bool IsErrorRateSpike(int64_t runs, int64_t failed, std::optional<double> median_daily_share);
// The median of `shares`; nullopt for none.
std::optional<double> MedianShare(std::vector<double> shares);

struct LoginMatch {
  std::string pattern;
  std::string matched;
};
// The login patterns found in one line of text (each pattern once).
std::vector<LoginMatch> MatchLoginHints(const std::string& line);

}  // namespace pulse

// Workflow Review: the pre-run check of the plan. Before a run, code reads
// the due set — no review for this plan revision, plan edits since the last
// review (planning/changelog.jsonl), plan files changed with no changelog
// entry (no review receipt), a contract_version older than Pulse's, a
// plan.json that is not JSON — and only when something is due does a review
// turn (workflow_review) run first. A clean plan never costs an AI call.
//
// One review per plan revision: the revision is a hash of the due set's
// sources (plan.json, step_config.json, the changelog's length and the
// contract version), and planning/workflow_review.json records each
// revision's review, so the same state is never reviewed twice and a run
// never loops. The record is also the claim that keeps one review per
// workflow at a time (a running record within kReviewLeaseSeconds). A
// corrupt record file is rebuilt, never trusted.
//
// A break the review leaves stops only runs that touch a broken step; a
// review that did not finish (timed out, failed) lets the run go. A review
// that reached its result and could not record it (its receipt refused or
// not written) stops every run with the reason ("unrecorded"), and is
// tried again after kReviewLeaseSeconds. However many breaks a review
// finds, its record is bounded by summarising: the first kMaxListedBreaks
// and a whole-plan entry with the count, never by giving up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/env.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// The workflow platform contract this Pulse reviews against; an older
// contract_version in workflow.json is a due item.
constexpr int kPulseContractVersion = 3;
// The tick reviews ahead once the plan has been quiet this long.
constexpr int64_t kPlanQuietSeconds = 600;
// A review recorded as running longer than this is taken as unfinished.
constexpr int64_t kReviewLeaseSeconds = 900;
// Records kept in workflow_review.json (oldest dropped first).
constexpr size_t kMaxReviewRecords = 50;
// Breaks a record lists one by one; the rest are counted in one entry.
constexpr size_t kMaxListedBreaks = 50;
// The longest step id and reason a listed break keeps (cut on a character).
constexpr size_t kMaxBreakStepBytes = 200;
constexpr size_t kMaxBreakReasonBytes = 500;
constexpr const char* kReviewingMessage = "Reviewing the workflow before running…";

struct DueItem {
  std::string kind;    // no_review, plan_edit, unreceipted_change, contract_version, plan_not_json
  std::string detail;  // one line for the reviewer and the owner
  nlohmann::json ToJson() const;
};

struct BrokenStep {
  std::string step;
  std::string reason;
  nlohmann::json ToJson() const;
};

// One review of one revision, as workflow_review.json keeps it.
struct ReviewRecord {
  std::string revision;
  std::string outcome;  // running, clean, broken, unfinished, unrecorded
  std::vector<BrokenStep> broken;
  std::vector<DueItem> due;
  std::string trigger;  // schedule, chat, tick, cli
  std::string session;  // the review turn's tool session
  std::string pulse_run_id;
  std::string summary;
  std::vector<std::string> notify;  // chat sessions told when the review ends
  std::string receipt_error;        // why the last receipt the review tried was not recorded
  int64_t started_at = 0;
  std::optional<int64_t> finished_at;
  nlohmann::json ToJson() const;
};

struct ReviewFile {
  std::vector<ReviewRecord> reviews;  // oldest first
  std::string rebuilt_reason;         // set when the file was corrupt and is being rebuilt
  std::string text;                   // the bytes read ("" when missing), for the swap
};

// Reads planning/workflow_review.json; a missing file is empty, a corrupt
// one is empty with rebuilt_reason naming the problem.
ReviewFile ReadReviewFile(Env& env, const std::string& path);
// The same from the file's text (`path` names it in the reason).
ReviewFile ParseReviewFile(const std::string& text, const std::string& path);
std::string RenderReviewFile(const ReviewFile& file);

// The plan as the review and the due set see it.
struct PlanState {
  bool has_plan = false;  // any of plan.json, step_config.json, changelog.jsonl exists
  std::string revision;
  std::vector<DueItem> due;  // empty: clean (or reviewed), nothing to do
  std::vector<std::string> steps;  // step ids in plan.json (top level and every route's), once each
  std::vector<std::string> top_level_ids;   // the "steps" list's ids in order (duplicates kept)
  std::vector<nlohmann::json> step_objects; // steps given as objects (their depends_on)
  std::string plan_error;          // plan.json not JSON (or not a plan): why
  nlohmann::json plan;             // parsed plan.json (null when it is not JSON)
  nlohmann::json step_config;      // parsed step_config.json (null when missing or not JSON)
  std::vector<nlohmann::json> changes_since;  // changelog entries after the last review
  int64_t last_change_at = 0;      // the newest changelog entry's time (0: none)
  const ReviewRecord* current = nullptr;  // the record for this revision, if any (points into the file)
};

// Paths inside a workflow folder.
std::string PlanPath(const std::string& workflow_dir);
std::string ReviewFilePath(const std::string& workflow_dir);

// Reads the plan files and computes the revision and the due set against
// `file`. Never fails on bad plan content (that is a due item); fails only
// when a file exists and cannot be read.
Result<PlanState> ReadPlanState(Env& env, const std::string& workflow_dir, const WorkflowConfig& config,
                                const ReviewFile& file, int64_t now);

// What a run may do now.
struct PreRunVerdict {
  bool go = true;
  std::string reason;         // why not (or why it goes without a review)
  bool review_needed = false; // due, and no review of this revision yet
  bool review_running = false;
  std::vector<BrokenStep> stopping;  // the breaks that stop this run
  nlohmann::json ToJson() const;
};
// Pure. `step`: the step the run executes ("" for a whole-workflow run,
// which touches every step).
PreRunVerdict DecidePreRun(const PlanState& plan, const std::string& step, int64_t now);

// The record of a running review anywhere in the file (any revision),
// within the lease: one review per workflow at a time.
const ReviewRecord* RunningReview(const ReviewFile& file, int64_t now);

// Claims the review of `revision`: appends a running record and swaps the
// file in. Busy when a review is running (within the lease); AlreadyExists-
// like Refused when this revision has a finished record.
Result<ReviewRecord> ClaimReview(Env& env, const std::string& workflow_dir, const std::string& revision,
                                 const std::vector<DueItem>& due, const std::string& trigger,
                                 const std::string& session, const std::string& pulse_run_id, int64_t now);

// The review's typed receipt: clean (no broken steps) or broken (each step
// with its reason), for the running record of `session`. Refused when that
// session has no running review.
Result<ReviewRecord> RecordReviewReceipt(Env& env, const std::string& workflow_dir, const std::string& session,
                                         const std::string& outcome, const std::vector<BrokenStep>& broken,
                                         const std::string& summary, int64_t now);

// Ends a running review that left no receipt: outcome unfinished with `why`
// (timed out, failed: the run goes), or unrecorded when the review tried a
// receipt that was not recorded (NoteReceiptError: runs stop with that
// reason). Does nothing when the receipt was recorded.
Status FinishUnreceipted(Env& env, const std::string& workflow_dir, const std::string& session,
                         const std::string& why, int64_t now);
// Notes on `session`'s running review why the receipt it tried was not
// recorded (one line, bounded).
Status NoteReceiptError(Env& env, const std::string& workflow_dir, const std::string& session,
                        const std::string& why, int64_t now);
// At most kMaxListedBreaks breaks, each step and reason cut to its bound;
// past that, one more entry for the whole plan ("plan.json": which stops
// every run) counting them all.
std::vector<BrokenStep> SummariseBreaks(const std::vector<BrokenStep>& broken);

// A chat whose run waits on the running review of `revision`: told when it
// ends. Refused when no review of that revision is running.
Status AddReviewWaiter(Env& env, const std::string& workflow_dir, const std::string& revision,
                       const std::string& chat_session, int64_t now);
// The record of `session`'s review (any outcome); NotFound when none.
Result<ReviewRecord> FindReviewBySession(Env& env, const std::string& workflow_dir, const std::string& session);

// The built-in reviewer (no model): plan.json not JSON or not a plan,
// duplicate step ids, depends_on naming an unknown step, step_config.json
// entries for steps the plan does not have.
std::vector<BrokenStep> RulesReview(const PlanState& plan);

// Whether the tick should review ahead: a schedule enabled, something due,
// no review of this revision, and the plan quiet for kPlanQuietSeconds.
bool ReviewAheadDue(const WorkflowConfig& config, const PlanState& plan, int64_t now);

// The state the module view and the status API carry: {revision, due,
// latest (record), current (this revision's record or null), rebuilt_reason}.
nlohmann::json ReviewStateJson(const PlanState& plan, const ReviewFile& file);

}  // namespace pulse

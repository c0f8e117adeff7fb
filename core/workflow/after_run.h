// After-run options: what `pulse finalize-run` does once a run has finished
// — back up, publish, notify — chosen per schedule (schedules[].after_run)
// and for full runs from a chat (after_manual_run). They replace the
// retired pulse_mode; the migration here turns one into the other inside
// workflow.json (through EditWorkflowJson, so a concurrent save is kept) and
// writes nothing to the plan's changelog, so it never starts a Workflow
// Review.
//
// Notify is code: failures and status changes go to the owner's channels
// (the outbox), a routine success is recorded for the dashboard only.
// Backup and publish are skipped in code when the workflow's source hash is
// the one the last backup / publish recorded; otherwise one short
// housekeeping turn is asked for, limited to those actions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// ---- the migration (pulse_mode -> after_run) ----

// What one workflow.json migration changed, schedule by schedule.
struct AfterRunMigration {
  std::vector<std::string> migrated;   // schedules given after_run from pulse_mode
  std::vector<std::string> in_step;    // schedules whose pulse_mode was set to match after_run
  bool pulse_kept_on = false;          // a legacy full schedule: pulse.enabled set true
  bool changed() const { return !migrated.empty() || !in_step.empty() || pulse_kept_on; }
  nlohmann::json ToJson() const;
};

// The migration as a change of the parsed document: basic and the retired
// full -> all three on; off -> none; a legacy full keeps the workflow's own
// Pulse on (pulse.enabled: true); a pulse_mode present is kept in step with
// after_run (none on -> "off", else "basic", or "full" where it was full).
// Running it on its own output changes nothing.
Status MigrateAfterRunDoc(nlohmann::json& doc, AfterRunMigration* report);

// The pulse_mode that reads as `after` for a server that only knows
// pulse_mode.
std::string PulseModeInStep(const AfterRun& after, const std::string& previous);

// The owner's checkboxes: sets one schedule's after_run (`schedule_id`), or
// after_manual_run when `schedule_id` is "manual", keeping pulse_mode in
// step. NotFound for an unknown schedule.
Status SetAfterRunDoc(nlohmann::json& doc, const std::string& schedule_id, const AfterRun& after);

nlohmann::json AfterRunToJson(const AfterRun& a);

// ---- finalize-run: which options apply, and what each came to ----

// The options for a run started by `trigger`: "schedule:<id>" -> that
// schedule's after_run; anything else (a chat's full run, manual) ->
// after_manual_run. `source` says which ("schedule daily", "after a manual
// run", or why none applies).
struct AppliedAfterRun {
  AfterRun options;
  std::string source;
};
AppliedAfterRun AfterRunForTrigger(const WorkflowConfig& config, const std::string& trigger);

// Where a run's summary goes: to the channels (a failure, or a change of
// status from the run before), or to the dashboard only (a routine success).
struct RunNotice {
  bool to_channels = false;
  std::string why;    // "the run failed", "status changed from failed to completed", "routine success"
  std::string title;  // "Substack run r-7: failed"
  std::string text;
};
// `previous_status`: the status of the workflow's run before this one ("" when none).
RunNotice DecideRunNotice(const std::string& workflow, const std::string& run_id, const std::string& status,
                          const std::string& previous_status, const std::string& error, const std::string& route);

// The workflow's source as backup and publish see it: SHA-256 over
// workflow.json, soul.md, planning/plan.json and planning/step_config.json
// (a missing file counts as empty, named, so adding one changes the hash).
Result<std::string> WorkflowSourceHash(Env& env, const std::string& workflow_dir);

// The status of the workflow's run before `run_id` (goal_run_facts, by
// finish time); "" when there is none.
Result<std::string> PreviousRunStatus(Db& db, const std::string& run_id, int64_t finished_at);

Status EnsureAfterRunSchema(Db& db);

// The last source hash a backup or publish recorded ("" when none).
Result<std::string> LastHousekeepingHash(Db& db, const std::string& action);
// A housekeeping turn's receipt: `action` (backup|publish) was done for
// `source_hash`.
Status RecordHousekeepingDone(Db& db, const std::string& action, const std::string& source_hash,
                              const std::string& run_id, const std::string& note, int64_t now);

// A request for the housekeeping turn (the server's tick runs it).
struct HousekeepingRequest {
  int64_t id = 0;
  std::string run_id;
  std::vector<std::string> actions;  // backup, publish
  std::string source_hash;
  std::string state;  // pending, running, done, failed
  int64_t created_at = 0;
  nlohmann::json ToJson() const;
};
// Idempotent per run: a second call for the same run returns the first id.
Result<int64_t> RequestHousekeeping(Db& db, const HousekeepingRequest& request, int64_t now);
Result<std::vector<HousekeepingRequest>> ListHousekeeping(Db& db, const std::string& state, int limit = 50);
Status SetHousekeepingState(Db& db, int64_t id, const std::string& state, int64_t now);

// A run's summary as finalize-run recorded it (the dashboard reads these).
struct RunSummaryRecord {
  std::string run_id;
  std::string status;
  bool to_channels = false;
  std::string why;
  std::string text;
  std::optional<int64_t> outbox_id;
  int64_t at = 0;
  nlohmann::json ToJson() const;
};
// false when the run already has one (finalize-run twice changes nothing).
Result<bool> RecordRunSummary(Db& db, const RunSummaryRecord& record);
Result<std::optional<RunSummaryRecord>> LoadRunSummary(Db& db, const std::string& run_id);
Result<std::vector<RunSummaryRecord>> ListRunSummaries(Db& db, int limit = 20);

}  // namespace pulse

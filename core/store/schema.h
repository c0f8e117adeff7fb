// Versioned, idempotent schema creation for every Pulse table in a workflow's
// db/db.sqlite. Each module owns a named component with an ordered list of
// migrations; the applied version per component is kept in
// pulse_schema_versions, so a database made by an older version is upgraded
// in place and a newer one is refused rather than damaged.
//
// The schema is ensured once, when a workflow is opened (WorkflowHandle,
// OpenWorkflow): every module function that reads or writes a Pulse table
// REQUIRES it and does not check again. Only a writer that opens its own
// connection (the background agent log, the server's fence and import
// marks) ensures what it uses itself.
#pragma once

#include <vector>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

struct Migration {
  int version;      // 1, 2, 3... in order
  const char* sql;  // one or more statements
};

// Applies the migrations of `component` above its recorded version, each in
// its own transaction. Refuses (Conflict) a database whose recorded version is
// newer than the last migration known here.
Status ApplyMigrations(Db& db, const char* component, const std::vector<Migration>& migrations);

// Every component, in order. Cheap when nothing is due: a database whose
// recorded versions are exactly those the first database this process
// brought up to date ended with is left as it is after one query.
Status EnsureSchema(Db& db);
// The same without that shortcut: each component's own check.
Status EnsureEveryComponent(Db& db);

// Per-module schema entry points (each defined next to its module).
Status EnsureConfigSchema(Db& db);
Status EnsureOutboxSchema(Db& db);
Status EnsureOutboxDeliverySchema(Db& db);  // core/notify/delivery.h
Status EnsureSlackSchema(Db& db);           // core/slack/slack_bindings.h
Status EnsureDecisionsSchema(Db& db);  // decisions and goal memory
Status EnsureAutonomySchema(Db& db);
Status EnsureAgentLogSchema(Db& db);
Status EnsureGoalSchema(Db& db);
Status EnsureConversationSchema(Db& db);  // core/conversation/conversation.h
Status EnsurePassSchema(Db& db);          // core/conversation/pass.h
Status EnsureFactsSchema(Db& db);  // the outside files' snapshot (core/facts/fact_snapshot.h)
Status EnsureRequestsSchema(Db& db);   // QA, fast and Builder requests (pulse_requests.h)
Status EnsureWorklistSchema(Db& db);   // a pass's worklist and module_due rules (pass_worklist.h)
Status EnsureRunFailuresSchema(Db& db);  // failed runs Pulse has seen (run_failures.h)
Status EnsureAsksSchema(Db& db);       // ask_pulse and ask_builder calls and threads (asks.h)
Status EnsureAfterRunSchema(Db& db);   // housekeeping hashes, requests, run summaries (after_run.h)
Status EnsureOtlpExportSchema(Db& db);  // the OTLP export's durable cursor (core/agent_log/otlp_export.h)
Status EnsureAttentionSchema(Db& db);  // snoozes, the schedules' latest runs (core/attention/attention.h)

}  // namespace pulse

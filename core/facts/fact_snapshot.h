// The outside files the goal check's context facts read, copied into the
// workflow database at check time, so the facts are computed from the
// database alone (the browser has only that file):
//   planning/changelog.jsonl  -> pulse_fact_changelog   (plan changes)
//   planning/plan.json        -> pulse_fact_route_steps (which steps a route runs)
//   costs/costs.sqlite        -> pulse_fact_costs       (the cost ledger, opened read-only)
//   chats.json                -> pulse_fact_chats       (which sessions are Builder chats)
//   runs/iteration-*/default/run.json (+ route_selection.json) -> pulse_fact_runs
//   planning/workflow_review.json -> pulse_fact_review (its latest record)
// and what became of each read in pulse_fact_sources (ok, missing,
// unreadable with the reason, lines or rows skipped).
//
// Every outside file is hostile. Each has a size or row bound (below); a
// malformed line or row is skipped, counted and warned about in one line
// naming the file and the line (or ledger row); a file that cannot be read at
// all is "unreadable: <file>: <reason>". Rows already stored are never
// deleted by a snapshot: a truncated, rotated or damaged file loses nothing.
// A snapshot never fails the check: its own errors become warnings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/base/status.h"

namespace pulse {

Status EnsureFactsSchema(Db& db);

// The bounds, also in docs/goal.md.
struct SnapshotLimits {
  int64_t max_changelog_bytes = 8 << 20;   // planning/changelog.jsonl
  int64_t max_line_bytes = 64 << 10;       // one changelog line
  int64_t max_plan_bytes = 4 << 20;        // planning/plan.json
  int64_t max_chats_bytes = 1 << 20;       // chats.json
  int64_t max_run_json_bytes = 1 << 20;    // one run.json
  int64_t max_ledger_rows = 200000;        // new ledger rows copied per check (the rest next check)
  int max_run_folders = 500;               // new run folders read per check
  int max_warnings = 10;                   // warning lines per file per check ("... and N more")
};

// The files' paths relative to the workflow folder (the names the facts and
// warnings use).
extern const char kChangelogFile[];  // "planning/changelog.jsonl"
extern const char kPlanFile[];       // "planning/plan.json"
extern const char kLedgerFile[];     // "costs/costs.sqlite"
extern const char kChatsFile[];      // "chats.json"
extern const char kRunsDir[];        // "runs"
extern const char kReviewFile[];     // "planning/workflow_review.json"

struct SnapshotReport {
  // One line each ("planning/changelog.jsonl:4: ..., skipped"), each also
  // sent to env.Log(kWarn).
  std::vector<std::string> warnings;
};

// Copies what is new in the workflow folder's outside files into `db`.
// Never fails: a problem with one file is a warning and that file's source
// row says so; the others are still read.
SnapshotReport SnapshotOutsideFiles(Env& env, Db& db, const std::string& workflow_dir, int64_t now,
                                    const SnapshotLimits& limits = {});

// What copies a workflow folder's outside files into its database before the
// facts are read (ReadOutsideFiles below). A workflow opened from its folder
// carries it (WorkflowHandle, the native program); the browser has no folder
// and passes none, so the WASM module carries no file readers (docs/wasm.md,
// *Size and speed*).
using OutsideFilesReader = void (*)(Env& env, Db& db, const std::string& workflow_dir, int64_t now);

// SnapshotOutsideFiles with the default bounds, its warnings left to the
// log: the OutsideFilesReader a workflow opened from its folder refreshes
// its facts with.
void ReadOutsideFiles(Env& env, Db& db, const std::string& workflow_dir, int64_t now);

// chats.json alone: the asks read the chats at the moment of the call.
SnapshotReport SnapshotChatsFile(Env& env, Db& db, const std::string& workflow_dir, int64_t now,
                                 const SnapshotLimits& limits = {});

}  // namespace pulse

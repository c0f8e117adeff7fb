// WorkflowHandle: one opened workflow, the handle every edge holds (an HTTP
// request's pooled connection, a tick visit, a turn, the browser's
// connection). Opening one ensures the schema once and parses the
// configuration once; after that the typed services below work on it with
// no further schema checks or configuration reads.
//
// Two ways to open one:
//  - Open: a workflow of a workspace (native). workflow.json and soul.md are
//    read, the database opened (created when missing), the schema ensured
//    and the configuration snapshot stored, so the database alone answers
//    every question afterwards.
//  - Borrow: a database alone (the browser's Local copy, a WASM
//    connection). The configuration comes from the stored snapshot. The
//    handle does not own the connection; Refresh() re-reads the snapshot
//    only when the database changed since (another connection's commit, or
//    a write on this one), so a page can keep one handle across calls.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/agent_log/agent_log.h"
#include "core/asks/asks.h"
#include "core/base/env.h"
#include "core/base/status.h"
#include "core/conversation/conversation.h"
#include "core/decisions/decisions.h"
#include "core/facts/fact_snapshot.h"
#include "core/focus_areas/focus_areas.h"
#include "core/goal/goal_memory.h"
#include "core/store/db.h"
#include "core/store/workspace.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

class WorkflowHandle {
 public:
  // NotFound when the workflow folder does not exist; the open's errors
  // (a workflow.json that is not valid, a file that is not a database)
  // otherwise, each naming the file.
  static Result<std::unique_ptr<WorkflowHandle>> Open(Env& env, const std::string& workspace,
                                                      const std::string& name,
                                                      const OpenWorkflowOptions& options = {});
  // An opened workflow taken over whole (the server's pool opens through
  // OpenWorkflow itself to stamp the files it read).
  static std::unique_ptr<WorkflowHandle> Adopt(Env& env, OpenedWorkflow opened);
  // REQUIRES: `db` outlives the handle.
  static Result<std::unique_ptr<WorkflowHandle>> Borrow(Db& db, Env& env);

  WorkflowHandle(const WorkflowHandle&) = delete;
  WorkflowHandle& operator=(const WorkflowHandle&) = delete;

  // A borrowed handle: the schema ensured and the configuration read again
  // when the database changed since the last look (PRAGMA data_version for
  // other connections, the connection's own change count for this one);
  // nothing when it did not. An opened handle: nothing (its configuration
  // is the workflow.json it read).
  Status Refresh();

  // Counts the configuration reads: a caller keeping a view of config()
  // takes it again when this moved.
  uint64_t generation() const { return generation_; }

  Db& db() const { return *db_; }
  Env& env() const { return *env_; }
  // The clock and files the next calls use (a request's own clock).
  void set_env(Env* env) { env_ = env; }
  const std::string& workflow() const { return workflow_; }
  const WorkflowConfig& config() const { return config_; }
  // The workflow's folder; empty for a borrowed database (no files at hand).
  const std::string& dir() const { return dir_; }
  // What refreshes the database from the folder's outside files before the
  // goal check's facts are read: ReadOutsideFiles for a workflow opened from
  // its folder, none for a borrowed database (so the WASM module, which only
  // borrows, carries no file readers).
  OutsideFilesReader outside_files() const { return outside_files_; }
  // The workspace paths; nullptr for a borrowed database.
  const WorkflowPaths* paths() const { return opened_ ? &opened_->paths : nullptr; }
  // memory/goal.md, or empty with no folder (the memory lives in the
  // database alone).
  std::string goal_memory_path() const { return dir_.empty() ? std::string() : dir_ + "/memory/goal.md"; }

  // ---- typed services ----
  GoalMemory memory() const { return GoalMemory(*db_, *env_, goal_memory_path()); }
  Conversation conversation() const { return Conversation(*db_, workflow_); }
  Asks asks() const { return Asks(*db_, workflow_); }
  AgentLogWriter agent_log() const { return AgentLogWriter(*db_); }
  // The agent-log rows' workspace key for this workflow.
  std::string agent_log_key() const { return AgentLogWorkspacePath(workflow_); }
  // REQUIRES: `memory` outlives the returned context.
  DecisionContext decisions(GoalMemory& memory) const { return DecisionContext{*db_, *env_, config_.autonomy, memory}; }
  // Edits are refused for a borrowed database (no workflow.json at hand).
  // `memory` may be null (no lesson lines then).
  FocusAreas focus_areas(GoalMemory* memory) const {
    return FocusAreas(*db_, *env_, workflow_, opened_ ? opened_->paths.workflow_json : std::string(), memory);
  }

 private:
  WorkflowHandle() = default;
  Status ReadSnapshot();

  std::optional<OpenedWorkflow> opened_;  // Open: owns the database
  Db* db_ = nullptr;
  Env* env_ = nullptr;
  std::string workflow_;
  std::string dir_;
  OutsideFilesReader outside_files_ = nullptr;
  WorkflowConfig config_;
  // Borrowed: what the database looked like when the snapshot was read.
  int64_t data_version_ = -1;
  int64_t own_changes_ = -1;
  uint64_t generation_ = 0;
};

}  // namespace pulse

// The workspace layout (the platform's): <workspace>/Workflow/<slug>/...
// A workflow is always named explicitly; nothing here ever walks up from the
// working directory to find one.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

struct WorkflowPaths {
  std::string workspace;
  std::string name;            // the slug
  std::string dir;             // <workspace>/Workflow/<slug>
  std::string workflow_json;
  std::string soul_md;
  std::string db_dir;
  std::string db;              // db/db.sqlite
  std::string schedule_runs;   // schedule-runs.json
  std::string runs_dir;        // runs/
  std::string memory_dir;
  std::string goal_memory;     // memory/goal.md
};

// InvalidArgument unless `name` is a plain slug: letters, digits, '.', '_',
// '-', not starting with '.', at most 128 characters (so "..", "/x", "a/b",
// "%2F" never reach the file system).
Status ValidateWorkflowName(const std::string& name);

// Paths only; touches nothing.
Result<WorkflowPaths> ResolveWorkflow(const std::string& workspace, const std::string& name);

// Slugs of every <workspace>/Workflow/* folder holding a workflow.json, sorted.
Result<std::vector<std::string>> ListWorkflows(Env& env, const std::string& workspace);

// An open workflow: its configuration and its database, schema ensured and
// configuration snapshot stored, so the database alone answers every question.
struct OpenedWorkflow {
  WorkflowPaths paths;
  WorkflowConfig config;
  std::unique_ptr<Db> db;
};

struct OpenWorkflowOptions {
  bool create_db = true;  // create db/db.sqlite (and db/) when missing
  int busy_timeout_ms = 5000;
};

Result<OpenedWorkflow> OpenWorkflow(Env& env, const std::string& workspace, const std::string& name,
                                    const OpenWorkflowOptions& options = {});

// ---- configuration snapshot (pulse_workflow_config) ----

// Stores workflow.json's text (and soul.md, when present) in the database.
Status StoreConfigSnapshot(Db& db, const std::string& workflow, const std::string& config_json,
                           const std::string& soul_md, int64_t now);

struct ConfigSnapshot {
  std::string workflow;
  std::string config_json;
  std::string soul_md;
  int64_t updated_at = 0;
};
// NotFound when no snapshot was ever stored.
Result<ConfigSnapshot> LoadConfigSnapshot(Db& db);

}  // namespace pulse

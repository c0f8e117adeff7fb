#include "core/store/workspace.h"

#include "core/workflow/workflow_edit.h"

#include "core/store/schema.h"
#include "core/base/time_util.h"

namespace pulse {

Status ValidateWorkflowName(const std::string& name) {
  if (name.empty()) return Status::InvalidArgument("workflow name is empty");
  if (name.size() > 128) return Status::InvalidArgument("workflow name is longer than 128 characters");
  if (name[0] == '.') return Status::InvalidArgument("workflow name \"" + name + "\" may not start with '.'");
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '_' || c == '.';
    if (!ok) {
      return Status::InvalidArgument("workflow name \"" + name +
                                     "\" may hold only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::OK();
}

Result<WorkflowPaths> ResolveWorkflow(const std::string& workspace, const std::string& name) {
  if (workspace.empty()) return Status::InvalidArgument("--workspace is required");
  PULSE_RETURN_IF_ERROR(ValidateWorkflowName(name));
  WorkflowPaths p;
  p.workspace = workspace;
  while (p.workspace.size() > 1 && p.workspace.back() == '/') p.workspace.pop_back();
  p.name = name;
  p.dir = p.workspace + "/Workflow/" + name;
  p.workflow_json = p.dir + "/workflow.json";
  p.soul_md = p.dir + "/soul.md";
  p.db_dir = p.dir + "/db";
  p.db = p.db_dir + "/db.sqlite";
  p.schedule_runs = p.dir + "/schedule-runs.json";
  p.runs_dir = p.dir + "/runs";
  p.memory_dir = p.dir + "/memory";
  p.goal_memory = p.memory_dir + "/goal.md";
  return p;
}

Result<std::vector<std::string>> ListWorkflows(Env& env, const std::string& workspace) {
  std::string root = workspace + "/Workflow";
  if (!env.IsDirectory(workspace)) return Status::NotFound(workspace + ": workspace directory does not exist");
  std::vector<std::string> out;
  if (!env.IsDirectory(root)) return out;
  PULSE_ASSIGN_OR_RETURN(std::vector<std::string> names, env.ListDir(root));
  for (const std::string& n : names) {
    if (!ValidateWorkflowName(n).ok()) continue;
    if (WorkflowJsonExists(env, root + "/" + n + "/workflow.json")) out.push_back(n);
  }
  return out;
}

Result<OpenedWorkflow> OpenWorkflow(Env& env, const std::string& workspace, const std::string& name,
                                    const OpenWorkflowOptions& options) {
  OpenedWorkflow w;
  PULSE_ASSIGN_OR_RETURN(w.paths, ResolveWorkflow(workspace, name));
  Result<std::string> text = ReadWorkflowJson(env, w.paths.workflow_json);
  if (!text.ok()) {
    if (!env.IsDirectory(w.paths.dir)) return Status::NotFound(w.paths.dir + ": no such workflow");
    return text.status();
  }
  PULSE_ASSIGN_OR_RETURN(w.config, ParseWorkflowConfig(*text, w.paths.workflow_json));
  std::string soul;
  if (env.FileExists(w.paths.soul_md)) {
    PULSE_ASSIGN_OR_RETURN(soul, env.ReadFile(w.paths.soul_md));
  }
  if (!env.FileExists(w.paths.db)) {
    if (!options.create_db) return Status::NotFound(w.paths.db + ": no such database");
    PULSE_RETURN_IF_ERROR(env.CreateDirs(w.paths.db_dir));
  }
  OpenOptions open;
  open.create = options.create_db;
  open.busy_timeout_ms = options.busy_timeout_ms;
  PULSE_ASSIGN_OR_RETURN(w.db, Db::Open(w.paths.db, open));
  PULSE_RETURN_IF_ERROR(EnsureSchema(*w.db));
  PULSE_RETURN_IF_ERROR(StoreConfigSnapshot(*w.db, name, *text, soul, env.NowSeconds()));
  return w;
}

// ---- configuration snapshot ----

Status EnsureConfigSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_workflow_config ("
       " id INTEGER PRIMARY KEY CHECK (id = 1),"
       " workflow TEXT NOT NULL,"
       " config_json TEXT NOT NULL,"
       " soul_md TEXT NOT NULL DEFAULT '',"
       " updated_at TEXT NOT NULL)"},
  };
  return ApplyMigrations(db, "config", kMigrations);
}

Status StoreConfigSnapshot(Db& db, const std::string& workflow, const std::string& config_json,
                           const std::string& soul_md, int64_t now) {
  // Skip the write when nothing changed: read-mostly commands stay read-only.
  PULSE_ASSIGN_OR_RETURN(Statement get, db.Prepare(
      "SELECT 1 FROM pulse_workflow_config WHERE id = 1 AND workflow = ? AND config_json = ? AND soul_md = ?"));
  get.Bind(1, workflow).Bind(2, config_json).Bind(3, soul_md);
  PULSE_ASSIGN_OR_RETURN(bool same, get.Step());
  if (same) return Status::OK();
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_workflow_config(id, workflow, config_json, soul_md, updated_at)"
      " VALUES(1, ?, ?, ?, ?)"
      " ON CONFLICT(id) DO UPDATE SET workflow = excluded.workflow, config_json = excluded.config_json,"
      " soul_md = excluded.soul_md, updated_at = excluded.updated_at"));
  put.Bind(1, workflow).Bind(2, config_json).Bind(3, soul_md).Bind(4, FormatTime(now));
  return put.Run();
}

Result<ConfigSnapshot> LoadConfigSnapshot(Db& db) {
  PULSE_ASSIGN_OR_RETURN(Statement get, db.Prepare(
      "SELECT workflow, config_json, soul_md, updated_at FROM pulse_workflow_config WHERE id = 1"));
  PULSE_ASSIGN_OR_RETURN(bool has, get.Step());
  if (!has) return Status::NotFound(db.name() + ": holds no Pulse configuration snapshot");
  return ConfigSnapshot{get.Text(0), get.Text(1), get.Text(2), get.Time(3).value_or(0)};
}

}  // namespace pulse

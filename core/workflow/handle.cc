#include "core/workflow/handle.h"

#include <sqlite3.h>

#include "core/store/schema.h"

namespace pulse {

Result<std::unique_ptr<WorkflowHandle>> WorkflowHandle::Open(Env& env, const std::string& workspace,
                                                             const std::string& name,
                                                             const OpenWorkflowOptions& options) {
  PULSE_ASSIGN_OR_RETURN(OpenedWorkflow opened, OpenWorkflow(env, workspace, name, options));
  return Adopt(env, std::move(opened));
}

std::unique_ptr<WorkflowHandle> WorkflowHandle::Adopt(Env& env, OpenedWorkflow opened) {
  std::unique_ptr<WorkflowHandle> h(new WorkflowHandle());
  h->env_ = &env;
  h->workflow_ = opened.paths.name;
  h->dir_ = opened.paths.dir;
  h->outside_files_ = &ReadOutsideFiles;
  h->config_ = opened.config;
  h->opened_ = std::move(opened);
  h->db_ = h->opened_->db.get();
  return h;
}

Result<std::unique_ptr<WorkflowHandle>> WorkflowHandle::Borrow(Db& db, Env& env) {
  std::unique_ptr<WorkflowHandle> h(new WorkflowHandle());
  h->env_ = &env;
  h->db_ = &db;
  PULSE_RETURN_IF_ERROR(h->Refresh());
  return h;
}

Status WorkflowHandle::Refresh() {
  if (opened_) return Status::OK();
  PULSE_ASSIGN_OR_RETURN(int64_t data_version, db_->QueryInt64("PRAGMA data_version"));
  const int64_t own = sqlite3_total_changes64(db_->handle());
  if (data_version == data_version_ && own == own_changes_) return Status::OK();
  PULSE_RETURN_IF_ERROR(ReadSnapshot());
  // The marks after the read: ensuring the schema may itself have written.
  PULSE_ASSIGN_OR_RETURN(data_version_, db_->QueryInt64("PRAGMA data_version"));
  own_changes_ = sqlite3_total_changes64(db_->handle());
  return Status::OK();
}

Status WorkflowHandle::ReadSnapshot() {
  data_version_ = own_changes_ = -1;  // read again next time should this fail
  PULSE_RETURN_IF_ERROR(EnsureSchema(*db_));
  Result<ConfigSnapshot> snap = LoadConfigSnapshot(*db_);
  if (snap.ok()) {
    PULSE_ASSIGN_OR_RETURN(config_, ParseWorkflowConfig(snap->config_json, "stored workflow.json snapshot"));
    workflow_ = snap->workflow;
  } else if (snap.status().code() == Code::kNotFound) {
    config_ = WorkflowConfig();
    workflow_.clear();
  } else {
    return snap.status();
  }
  ++generation_;
  return Status::OK();
}

}  // namespace pulse

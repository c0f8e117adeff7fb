#include "server-shim/tick/workflow_count.h"

#include <set>

#include "core/workflow/workflow_edit.h"
#include "core/store/workspace.h"

namespace pulse::serve {

WorkflowCount::DirMark WorkflowCount::Mark() const { return StampFile(workspace_ + "/Workflow"); }

size_t WorkflowCount::Get() {
  const DirMark mark = Mark();
  std::lock_guard<std::mutex> l(mu_);
  if (!valid_ || !(mark == mark_) || PendingGained()) Relist(mark);
  return count_;
}

void WorkflowCount::Seen(const DirMark& mark, const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> l(mu_);
  // The pass found another count than the cache holds for the same
  // Workflow/: the next request lists again.
  if (mark == mark_ && names.size() != count_) valid_ = false;
}

void WorkflowCount::Relist(const DirMark& mark) {
  valid_ = false;
  pending_.clear();
  count_ = 0;
  Result<std::vector<std::string>> names = ListWorkflows(*env_, workspace_);
  if (!names.ok()) return;
  count_ = names->size();
  mark_ = mark;
  valid_ = true;
  const std::string root = workspace_ + "/Workflow";
  if (!env_->IsDirectory(root)) return;
  Result<std::vector<std::string>> all = env_->ListDir(root);
  if (!all.ok()) return;
  const std::set<std::string> listed(names->begin(), names->end());
  for (const std::string& n : *all) {
    if (!listed.count(n) && ValidateWorkflowName(n).ok() && env_->IsDirectory(root + "/" + n)) pending_.push_back(n);
  }
}

bool WorkflowCount::PendingGained() {
  const std::string root = workspace_ + "/Workflow/";
  for (const std::string& n : pending_) {
    if (WorkflowJsonExists(*env_, root + n + "/workflow.json")) return true;
  }
  return false;
}

}  // namespace pulse::serve

// How many workflows the workspace holds, for /api/health, without listing
// the workspace on every request (a readdir and a stat per workflow: with
// thousands of workflows, most of what a health answer cost). The list is
// taken again when Workflow/ itself moved (a workflow folder added, removed
// or renamed), when a folder seen without workflow.json gained one, and on
// every tick pass (which lists the workspace anyway), so a workflow.json
// removed from a folder that stays is seen by the next pass.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/env.h"
#include "server-shim/db_stamp.h"

namespace pulse::serve {

class WorkflowCount {
 public:
  WorkflowCount(Env* env, std::string workspace) : env_(env), workspace_(std::move(workspace)) {}
  // 0 when the workspace cannot be listed.
  size_t Get();
  // Workflow/'s own stamp (db_stamp.h); the tick's listing, taken after
  // `Mark()` was read.
  using DirMark = FileStamp;
  DirMark Mark() const;
  void Seen(const DirMark& mark, const std::vector<std::string>& names);

 private:
  void Relist(const DirMark& mark);  // mu_ held
  bool PendingGained();              // mu_ held

  Env* env_;
  std::string workspace_;
  std::mutex mu_;
  bool valid_ = false;
  DirMark mark_;
  size_t count_ = 0;
  std::vector<std::string> pending_;  // folders under Workflow/ without workflow.json
};

}  // namespace pulse::serve

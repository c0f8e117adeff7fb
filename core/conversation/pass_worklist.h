// A pass's worklist: which of Pulse's modules (Goal Work, Architecture,
// Technical) are due in this pass and why, one row each, kept in the
// workflow database (pulse_pass_worklist) so the tab and the browser read
// the same rows.
//
// For a workflow with a goal, QA and architecture belong to its Pulse
// conversation: Gate records Architecture and Technical as not due (the
// conversation's skill and QA on request). A module another rule still makes
// due (module_due: recovery after a failed step, a prompt budget, a
// protected boundary) is closed as skipped by code right after Gate, which
// clears that rule's row, so nothing runs it behind the conversation's back.
// A workflow without a goal runs all three, in ExecutionOrder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

// Goal Work, Architecture, Technical: the modules in the order they run.
const std::vector<std::string>& ExecutionOrder();
// A pass's steps: gate, goal_work, finalize with a goal; gate, goal_work,
// architecture, technical, finalize without one.
std::vector<std::string> PassOrderFor(bool has_goal);

struct WorklistRow {
  int64_t pass_id = 0;
  std::string module;  // goal_work | architecture | technical
  bool due = false;
  std::string reason;  // why due or not due
  std::string state;   // pending (due, not yet run) | not_due | skipped | completed | failed
  std::string detail;  // what became of it
  std::string closed_at;
  nlohmann::json ToJson() const;
};

// A rule that makes a module due in the next pass, whatever Gate says.
struct ModuleDue {
  std::string module;
  std::string rule;    // recovery | prompt_budget | protected_boundary
  std::string reason;
  std::string since;
};

Status EnsureWorklistSchema(Db& db);

// Gate's worklist for `pass_id`: each module of ExecutionOrder with due and
// reason (see the header comment), then the module_due rules on top. Stored
// in one transaction; returns the rows in ExecutionOrder.
Result<std::vector<WorklistRow>> WriteGateWorklist(Db& db, int64_t pass_id, bool has_goal, int64_t now);

// After Gate, for a workflow with a goal: every Architecture or Technical row
// a rule made due is closed as skipped and its module_due rows are cleared.
// Returns the rows it closed.
Result<std::vector<WorklistRow>> CloseOwnedModules(Db& db, int64_t pass_id, int64_t now);

// How a due module's step ended: completed clears its recovery; failed
// leaves a recovery rule for the next pass.
Status FinishModule(Db& db, int64_t pass_id, const std::string& module, bool completed, const std::string& detail,
                    int64_t now);

// Adds (or refreshes) a rule making `module` due; InvalidArgument for an
// unknown module or rule.
Status MarkModuleDue(Db& db, const ModuleDue& due, int64_t now);
Result<std::vector<ModuleDue>> ListModuleDue(Db& db);

// The rows of one pass (0: the latest pass that has rows), in ExecutionOrder.
Result<std::vector<WorklistRow>> ReadWorklist(Db& db, int64_t pass_id);

}  // namespace pulse

// The full Pulse pass. With a goal: Gate (code: may the pass run, its
// worklist), Goal Work in Pulse's conversation (which begins with the goal
// check), Finalize (the pass's Pulse summary, leading with the goal status);
// no Architecture or Technical turn. Without a goal: Gate, Goal Work,
// Architecture, Technical, Finalize (core/conversation/pass_worklist.h). A pass is due once per fire of pulse.full_pass.cron, or
// earlier when Pulse asked for one (record_pulse_fast_request). The daily
// goal check never moves this schedule and never consumes fast requests:
// only passes are read here.
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

// The order of a pass's steps for a workflow with a goal (PassOrderFor in
// core/conversation/pass_worklist.h gives both orders).
const std::vector<std::string>& PassOrder();

// Fast requests (record_pulse_fast_request) are pulse_requests rows of kind
// fast (core/conversation/pulse_requests.h): a waiting one makes a pass due at once, and
// the pass that starts takes them all.

struct PassDue {
  bool due = false;
  std::string kind;    // full | fast
  std::string reason;  // "pulse.full_pass 0 6 * * * fired at ...", "fast request 3: ..."
  nlohmann::json ToJson() const;
};

// Whether a pass is due now: a fast request waits, or pulse.full_pass.cron
// fired since the last pass started. Never with Pulse off. A workflow
// without a goal has a pass too (Goal Work, Architecture, Technical; see
// core/conversation/pass_worklist.h). InvalidArgument for a malformed cron.
Result<PassDue> PassDueAt(Db& db, const WorkflowConfig& config, int64_t now);

struct PassStep {
  std::string step;     // gate, goal_work, finalize
  std::string state;    // completed, failed, skipped
  std::string detail;
  int64_t turn_id = 0;  // the conversation turn (goal_work)
};

struct PassRecord {
  int64_t id = 0;
  std::string kind, trigger, started_at, finished_at, state, summary, goal_status;
  std::vector<PassStep> steps;
  std::vector<int64_t> fast_requests;
  nlohmann::json ToJson() const;
};

// Opens a pass record (state running) at env's clock and takes the waiting
// fast requests for it.
Result<PassRecord> StartPass(Db& db, Env& env, const std::string& kind, const std::string& trigger);
// Stores the steps, the summary and the end.
Status FinishPass(Db& db, const PassRecord& pass, int64_t now);
// Newest first.
Result<std::vector<PassRecord>> ListPasses(Db& db, int limit);

Status EnsurePassSchema(Db& db);

}  // namespace pulse

// Evidence: what a goal check still needs, so that no pruning forgets it.
// An agent-log row is evidence when something the goal check reads points to
// it:
//   - a pending or answered decision: the rows of a session or run its text
//     names (question, what it blocks, why, the recommendation's why,
//     evidence and text, the answer's note), and the rows of the session
//     that made one of its records (the recommendation, the refused call it
//     stands in for, the answer) that were running at that moment: Pulse's
//     conversation is one session over many turns, so the turn that
//     recommended is kept, not the whole conversation. A dismissed decision
//     keeps nothing.
//   - a failed run in the facts' window (since the last recorded check, and
//     at least the last 14 days, the medians' window): the rows of that run
//     (their pulse_run_id or session is the run's id), and a failed agent row
//     that finished in the window.
//   - a cost spike since the last check: the rows of that run.
// `agent-log prune` removes none of them and reports each with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/agent_log/agent_log.h"
#include "core/store/db.h"
#include "core/facts/goal_context_facts.h"
#include "core/base/status.h"

namespace pulse {

struct Evidence {
  // A session or run id -> why rows carrying it are kept.
  std::map<std::string, std::string> ids;
  // A session -> the moments something was recorded in it, and why: its
  // rows running at one of them are kept.
  struct Moment {
    int64_t at = 0;
    std::string why;
  };
  std::map<std::string, std::vector<Moment>> moments;
  // Failed agent rows finished at or after this time are kept.
  int64_t window_start = 0;

  // Why `row` must be kept; "" when nothing points to it.
  std::string Why(const AgentLogRow& row) const;
};

// `facts`: the context facts at the time of pruning (their last recorded
// check and cost spikes); the decisions and runs are read from `db`.
Result<Evidence> GatherEvidence(Db& db, const ContextFacts& facts);

// The ids a text names: runs of letters, digits and "_-.:" (a trailing "."
// or ":" is punctuation), two characters or more. "run r-0042 failed." ->
// {"run", "r-0042", "failed"}.
void CollectIds(const std::string& text, const std::string& why, std::map<std::string, std::string>* ids);

}  // namespace pulse

// The failed-run safety net's memory: which failed workflow runs Pulse has
// already been woken for (pulse_run_failures). Each tick, for a workflow with
// a goal, the runs that failed (error, failed, interrupted) within the last
// kFailedRunWindowSeconds and are not in this table get one short run_failed
// turn; a run is claimed here before its turn is started, so it is at most
// one turn per failed run across any number of ticks and restarts.
//
// The runs are the workflow's own (run.json as snapshotted, and the runs the
// after-run hook recorded); Pulse's passes and turns are not runs and never
// appear here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

inline constexpr int64_t kFailedRunWindowSeconds = 86400;

struct FailedRunSeen {
  std::string run_id;
  std::string finished_at;
  std::string status;  // error | failed | interrupted
  std::string error;
  std::string route;
  std::vector<std::string> concerns;
  // Filled once claimed.
  std::string seen_at;
  std::string pulse_run_id;  // the run_failed turn
  std::string outcome;       // "" while the turn runs; then its state and first reply line
  nlohmann::json ToJson() const;
};

// Failed runs finished in (now - window, now] that no turn was started for,
// oldest first, at most `limit`.
Result<std::vector<FailedRunSeen>> UnseenFailedRuns(Db& db, int64_t now, int limit = 10);

// Claims the run for one turn: true when this call claimed it, false when it
// was claimed already (by an earlier tick, another server, before a restart).
Result<bool> ClaimFailedRun(Db& db, const FailedRunSeen& run, const std::string& pulse_run_id, int64_t now);
// Gives a claim back when its turn could not even be started (the server is
// shutting down, too many turns waiting), so a later tick wakes Pulse for it.
Status ReleaseFailedRun(Db& db, const std::string& run_id);
// The turn that was started for a claimed run.
Status AttachFailedRunTurn(Db& db, const std::string& run_id, const std::string& pulse_run_id);
// What the turn came to.
Status RecordFailedRunOutcome(Db& db, const std::string& run_id, const std::string& outcome);

// Newest first.
Result<std::vector<FailedRunSeen>> ListSeenFailedRuns(Db& db, int limit = 50);

// "run r-0121 (interrupted, route growth_funnel, finished 2026-10-07T06:25:00Z): <error>" plus its CONCERNS:
// lines: what the run_failed turn is told.
std::string DescribeFailedRun(const FailedRunSeen& run);

}  // namespace pulse

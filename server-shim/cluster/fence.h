// Fencing for workflows ticked under an etcd claim (claims.h). A claim's
// etcd revision is its fencing token: the workflow db keeps the newest token
// that ticked it (pulse_fence), and every write a holder makes on its
// connection is checked against it inside the same SQLite write, so a holder
// whose claim was taken over (its lease lapsed while it was paused, or cut
// off) cannot write after the new holder has begun, whatever it believes.
// Plain SQLite on core's Db: no etcd here, so the rule is tested on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse::serve {

struct Fence {
  std::string workflow;
  int64_t revision = 0;  // the claim's etcd revision
  std::string instance;  // who holds the claim
};

// pulse_fence (one row: the newest claim revision that ticked the workflow,
// its holder, when) and pulse_ticks (one row per tick: instance, the
// instance's tick number, the claim revision, when; the newest kTickRowsKept).
Status EnsureFenceSchema(Db& db);
constexpr int64_t kTickRowsKept = 2000;

// A TEMP trigger on every table of this connection refuses each insert,
// update and delete while pulse_fence holds a revision newer than
// `revision`; the refusal reads "fenced: ...".
Status InstallFenceTriggers(Db& db, int64_t revision);

// Moves the fence up to the claim's revision (never down) and records the
// tick, in one transaction. Conflict when the fence is already newer: the
// claim is stale and the tick must not go on.
Status RecordFencedTick(Db& db, const Fence& fence, int64_t tick, int64_t now);

// What `pulse ticks` shows: {"fence": {revision, holder, at} or null,
// "ticks": [{instance, tick, revision, at}, ...] oldest first, the newest
// `limit`}; both empty on a workflow never ticked under a claim.
Result<nlohmann::json> ReadFencedTicks(Db& db, int64_t limit);

// The fence of what the current thread does (the tick for one workflow, a
// turn it started): OpenForCall applies it to the connection it opens for
// that workflow, so a write the tick makes anywhere below it is fenced.
class FenceScope {
 public:
  explicit FenceScope(std::optional<Fence> fence);
  ~FenceScope();
  FenceScope(const FenceScope&) = delete;
  FenceScope& operator=(const FenceScope&) = delete;

 private:
  std::optional<Fence> previous_;
};
std::optional<Fence> CurrentFence();
// Schema and triggers for the current thread's fence when it is for
// `workflow`; nothing otherwise (a server without --etcd, an HTTP request).
Status ApplyCurrentFence(Db& db, const std::string& workflow);

}  // namespace pulse::serve

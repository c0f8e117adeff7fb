#include "server-shim/http/pooled_reads.h"

#include <malloc.h>

#include "agent/tools/agent_api.h"

namespace pulse::serve {

using nlohmann::json;

Result<StatusCache::Answer> PooledReads::Call(Env& env, const std::string& workflow, const std::string& method,
                                              const json& args, bool* open_failed) {
  // Only a read is a function of what it reads (a goal check with record
  // stores the check; the routes send such calls to the writers).
  if (ServerApi().AccessFor(method, args) != Access::kRead) return Status::Internal(method + ": not a read");
  StatusCache& cache = method == "goal.check" ? status_ : answers_;
  return cache.GetText(env, workflow, method + " " + args.dump(),
                       [&](ApiContext& ctx) { return CallApi(ctx, method, args); }, open_failed);
}

void KeepFreedMemory() {
  // Up to 32 MiB free at the top of a heap is kept; blocks under 4 MiB come
  // from the heap rather than their own mapping.
  mallopt(M_TRIM_THRESHOLD, 32 << 20);
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
}

json PooledReads::Health() const {
  return json{{"open", pool_.open()},
              {"opens", pool_.opens()},
              {"reuses", pool_.reuses()},
              {"dropped_stale", pool_.dropped_stale()},
              {"status_recomputes", status_.recomputes()},
              {"status_hits", status_.hits()},
              {"answer_recomputes", answers_.recomputes()},
              {"answer_hits", answers_.hits()},
              {"answer_bytes", answers_.bytes() + status_.bytes()}};
}

}  // namespace pulse::serve

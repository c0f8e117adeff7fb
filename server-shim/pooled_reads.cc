#include "server-shim/pooled_reads.h"

#include <malloc.h>


namespace pulse::serve {

using nlohmann::json;

namespace {

// goal.check without record: a read of the goal status, kept while its
// inputs stand still. With record it stores the check: never from memory.
bool CachedStatus(const std::string& method, const json& args) {
  if (method != "goal.check") return false;
  auto record = args.find("record");
  return record == args.end() || record->is_null() || (record->is_boolean() && !record->get<bool>());
}

}  // namespace

Result<json> PooledReads::Call(Env& env, const std::string& workflow, const std::string& method, const json& args,
                               bool* open_failed) {
  if (CachedStatus(method, args)) {
    return status_.Get(env, workflow, method + " " + args.dump(),
                       [&](ApiContext& ctx) { return CallApi(ctx, method, args); }, open_failed);
  }
  Result<DbPool::Lease> lease = pool_.Checkout(workflow, &env);
  if (!lease.ok()) {
    *open_failed = true;
    return lease.status();
  }
  return CallApi(lease->ctx(), method, args);
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
              {"status_hits", status_.hits()}};
}

}  // namespace pulse::serve

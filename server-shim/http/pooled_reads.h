// The read routes' side of `pulse serve`: every GET under
// /api/workflows/<wf>, the generic route's reads and the workflow list run
// on a kept connection (db_pool.h), and their answers come from memory
// while their inputs are unchanged (status_cache.h): the goal status, alone
// or in the list, and each other read (agent log, decisions, ...) by its
// method and arguments. Writes never come here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/base/env.h"
#include "server-shim/db_pool.h"
#include "server-shim/http/status_cache.h"

namespace pulse::serve {

class PooledReads {
 public:
  PooledReads(Env* env, const std::string& workspace, DbPoolOptions options)
      : workspace_(workspace), pool_(env, workspace, options), status_(&pool_), answers_(&pool_) {}

  // One read method on `workflow` at `env`'s clock, as the reply's text
  // (CachedAnswer::text). *open_failed: the workflow could not be opened
  // (NotFound: it does not exist).
  Result<StatusCache::Answer> Call(Env& env, const std::string& workflow, const std::string& method,
                                   const nlohmann::json& args, bool* open_failed);
  // `compute`'s answer for `workflow` from the status cache: what
  // GET /api/workflows keeps of each workflow (workflow_list.h).
  Result<nlohmann::json> Cached(Env& env, const std::string& workflow, const std::string& variant,
                                const StatusCache::Compute& compute, bool* open_failed, int64_t max_age = 0) {
    return status_.Get(env, workflow, variant, compute, open_failed, max_age);
  }
  // What /api/health shows of the pool and the cache.
  nlohmann::json Health() const;

 private:
  std::string workspace_;
  DbPool pool_;
  StatusCache status_;   // the goal status (the route and the list's items)
  StatusCache answers_;  // every other read
};

// Keeps freed memory in the process instead of handing it back after each
// request: a goal check's SQLite statements allocate and free page caches of
// ~100 KiB, and glibc trimming them with madvise made every request fault the
// pages in again and flush the TLB of every core (a quarter of the server's
// time in a profile of goal-status reads). Called once, before serving.
void KeepFreedMemory();

}  // namespace pulse::serve

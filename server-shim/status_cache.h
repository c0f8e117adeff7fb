// Goal status answers kept in memory and handed out again while nothing
// they were computed from has moved. An answer is a function of
//  - the workflow database: its change stamp (db_stamp.h) taken after the
//    computation, kept only when PRAGMA data_version on the computing
//    connection shows no other connection committed meanwhile (the
//    computation's own writes, the outside-file snapshot, are part of the
//    state it answered from);
//  - every file outside the database the open and the computation touched
//    (workflow.json, soul.md, planning/changelog.jsonl, planning/plan.json,
//    chats.json, costs/costs.sqlite with its WAL, the runs folder and each
//    run folder's files, ...), recorded by the Env the computation is given
//    (input_watch.h), so none is missed when the check learns to read more;
//  - the clock, to the second: the answer names its time (checked_at, now)
//    and every rule counts from it.
// A computation that read a file written within the last second is not kept
// (the file system's timestamps may not show a second write that soon).
// Requests for the same answer while it is computed wait for it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/env.h"
#include "server-shim/db_pool.h"

namespace pulse::serve {

class StatusCache {
 public:
  explicit StatusCache(DbPool* pool, size_t max_entries = 4096) : pool_(pool), max_entries_(max_entries) {}

  using Compute = std::function<Result<nlohmann::json>(ApiContext& ctx)>;
  // `compute`'s answer for `workflow` at `env`'s clock; `variant` names the
  // computation and its arguments (one entry per workflow and variant).
  // *open_failed: the error is the workflow's open's (the pool's).
  Result<nlohmann::json> Get(Env& env, const std::string& workflow, const std::string& variant,
                             const Compute& compute, bool* open_failed);

  uint64_t recomputes() const { return recomputes_; }
  uint64_t hits() const { return hits_; }

 private:
  struct Entry {
    int64_t now = 0;
    std::string db_path;
    DbStamp db;
    WatchSet inputs;
    nlohmann::json answer;
  };
  struct Slot {
    std::shared_ptr<const Entry> entry;
    bool busy = false;
    uint64_t used = 0;
  };
  static bool Fresh(const Entry& e, int64_t now);
  // Computes on a pooled connection; the entry when it may be kept.
  Result<nlohmann::json> Run(Env& env, const std::string& workflow, int64_t now, const Compute& compute,
                             std::shared_ptr<const Entry>* keep, bool* open_failed);
  void Store(const std::string& key, std::shared_ptr<const Entry> entry);

  DbPool* pool_;
  size_t max_entries_;
  std::mutex mu_;
  std::condition_variable done_;
  std::map<std::string, Slot> slots_;
  uint64_t tick_ = 0;
  std::atomic<uint64_t> recomputes_{0}, hits_{0};
};

}  // namespace pulse::serve

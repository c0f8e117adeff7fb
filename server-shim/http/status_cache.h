// Read answers kept in memory and handed out again while nothing they were
// computed from has moved: the goal status (alone and in the workflow list)
// and every other read route (agent log, decisions, ...). A read method is a
// function of its arguments and of what its ApiContext gives it, and core
// reaches files and the clock only through the Env, so an answer is a
// function of
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
// Requests for the same answer while it is computed wait for it. Kept as
// JSON (the workflow list assembles its items) or as the reply's text (a
// route's answer is sent as it is, a hit copies bytes and dumps nothing).
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
#include "core/base/env.h"
#include "server-shim/db_pool.h"

namespace pulse::serve {

// One answer: `doc` in a JSON cache, `text` (doc dumped as a reply body) in
// a text cache.
struct CachedAnswer {
  nlohmann::json doc;
  std::string text;
};

class StatusCache {
 public:
  enum class Keep { kJson, kText };
  // At most `max_entries` answers and `max_bytes` of text; no text answer
  // over an eighth of that is kept (a whole log read without a limit is
  // computed each time rather than crowd out the rest).
  explicit StatusCache(DbPool* pool, size_t max_entries = 4096, size_t max_bytes = size_t{64} << 20)
      : pool_(pool), max_entries_(max_entries), max_bytes_(max_bytes) {}

  using Compute = std::function<Result<nlohmann::json>(ApiContext& ctx)>;
  using Answer = std::shared_ptr<const CachedAnswer>;
  // `compute`'s answer for `workflow` at `env`'s clock; `variant` names the
  // computation and its arguments (one entry per workflow and variant).
  // *open_failed: the error is the workflow's open's (the pool's). Get
  // keeps the answer as JSON, GetText as the reply's text (one variant, one
  // form).
  // `max_age` > 0: an answer computed up to that many seconds before the
  // clock is still handed out while everything else it was computed from is
  // unchanged (the metrics' gauges, which may lag the clock, not the data).
  Result<nlohmann::json> Get(Env& env, const std::string& workflow, const std::string& variant,
                             const Compute& compute, bool* open_failed, int64_t max_age = 0);
  Result<Answer> GetText(Env& env, const std::string& workflow, const std::string& variant, const Compute& compute,
                         bool* open_failed) {
    return Lookup(env, workflow, variant, Keep::kText, compute, open_failed, 0);
  }

  uint64_t recomputes() const { return recomputes_; }
  uint64_t hits() const { return hits_; }
  size_t bytes() const;

 private:
  struct Entry {
    int64_t now = 0;
    std::string db_path;
    DbStamp db;
    WatchSet inputs;
    Answer answer;
  };
  struct Slot {
    std::shared_ptr<const Entry> entry;
    bool busy = false;
    uint64_t used = 0;
  };
  static bool Fresh(const Entry& e, int64_t now, int64_t max_age);
  Result<Answer> Lookup(Env& env, const std::string& workflow, const std::string& variant, Keep keep,
                        const Compute& compute, bool* open_failed, int64_t max_age);
  // Computes on a pooled connection; the entry when it may be kept.
  Result<Answer> Run(Env& env, const std::string& workflow, int64_t now, Keep form, const Compute& compute,
                     std::shared_ptr<const Entry>* keep, bool* open_failed);
  // REQUIRES: mu_.
  void Store(const std::string& key, std::shared_ptr<const Entry> entry);
  void Evict();
  static size_t SizeOf(const Slot& slot) { return slot.entry ? slot.entry->answer->text.size() : 0; }

  DbPool* pool_;
  size_t max_entries_, max_bytes_;
  size_t bytes_ = 0;  // text held, all slots together
  mutable std::mutex mu_;
  std::condition_variable done_;
  std::map<std::string, Slot> slots_;
  uint64_t tick_ = 0;
  std::atomic<uint64_t> recomputes_{0}, hits_{0};
};

}  // namespace pulse::serve

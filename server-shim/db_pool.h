// Open workflow databases kept for the read routes, so a read costs no
// open, schema check and config read. At most `max_open` connections are
// kept, across all workflows; each is used by one request at a time (checked
// out, checked back in) and closed once idle for `idle_seconds`. A kept
// connection is used again only while
//  - db.sqlite is still the file it opened (same device and inode: a file
//    renamed over it or a deleted and recreated workflow gets a new
//    connection; the inode cannot be reused while the connection holds it),
//  - the files the open read (workflow.json, soul.md) stamp as they did
//    then (input_watch.h), else the workflow is opened afresh and its
//    config snapshot stored as a fresh open does,
//  - it holds no transaction (a request that failed inside one).
// Writers (the tick, turns, owner writes) keep opening their own.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/base/env.h"
#include "server-shim/tick/input_watch.h"
#include "server-shim/serve.h"

namespace pulse::serve {

struct DbPoolOptions {
  size_t max_open = 64;
  double idle_seconds = 30;
};

class DbPool {
  struct Entry;

 public:
  DbPool(Env* env, std::string workspace, DbPoolOptions options);
  ~DbPool();
  DbPool(const DbPool&) = delete;
  DbPool& operator=(const DbPool&) = delete;

  // One checked-out connection; checked back in when destroyed.
  class Lease {
   public:
    Lease(Lease&& o) noexcept : pool_(o.pool_), entry_(o.entry_) { o.entry_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    // The workflow at `env`'s clock (the request's; ctx().env may be swapped).
    ApiContext& ctx();
    Db& db();
    const WorkflowPaths& paths() const;
    // The files the open read, as stamped then.
    const WatchSet& config_inputs() const;

   private:
    friend class DbPool;
    Lease(DbPool* pool, Entry* entry) : pool_(pool), entry_(entry) {}
    DbPool* pool_;
    Entry* entry_;
  };

  // NotFound (the workflow does not exist) and other open errors as
  // OpenForCall returns them.
  Result<Lease> Checkout(const std::string& workflow, Env* env);

  size_t open() const;              // connections open now (kept and checked out)
  uint64_t opens() const { return opens_; }        // connections the pool has opened
  uint64_t reuses() const { return reuses_; }      // checkouts served by a kept connection
  uint64_t dropped_stale() const { return stale_; }  // kept connections refused as stale

 private:
  std::unique_ptr<Entry> TakeIdle(const std::string& workflow);
  bool StillValid(const Entry& e) const;
  Result<std::unique_ptr<Entry>> OpenEntry(const std::string& workflow, Env* env);
  void CheckIn(Entry* e);
  void Reap();

  std::string workspace_;
  DbPoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::list<std::unique_ptr<Entry>> idle_;  // most recently used first
  size_t in_use_ = 0;
  std::atomic<uint64_t> opens_{0}, reuses_{0}, stale_{0};
  std::thread reaper_;
};

}  // namespace pulse::serve

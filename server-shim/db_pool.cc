#include "server-shim/db_pool.h"
#include "server-shim/tick/first_open.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "agent/tools/agent_api.h"

namespace pulse::serve {

namespace {

using Clock = std::chrono::steady_clock;

// The device and inode db.sqlite has now; false when it is gone.
bool DbIdentity(const std::string& path, dev_t* dev, ino_t* ino) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *dev = st.st_dev;
  *ino = st.st_ino;
  return true;
}

}  // namespace

struct DbPool::Entry {
  std::string workflow;
  std::unique_ptr<WorkflowHandle> handle;
  ApiContext ctx;
  dev_t dev = 0;
  ino_t ino = 0;
  WatchSet config;
  Clock::time_point last_used;
  bool transient = false;  // opened past the bound: closed when checked in
};

DbPool::Lease::~Lease() {
  if (entry_) pool_->CheckIn(entry_);
}
ApiContext& DbPool::Lease::ctx() { return entry_->ctx; }
Db& DbPool::Lease::db() { return entry_->handle->db(); }
const WorkflowPaths& DbPool::Lease::paths() const { return *entry_->handle->paths(); }
const WatchSet& DbPool::Lease::config_inputs() const { return entry_->config; }

DbPool::DbPool(Env* env, std::string workspace, DbPoolOptions options)
    : workspace_(std::move(workspace)), options_(options) {
  reaper_ = std::thread([this] { Reap(); });
}

DbPool::~DbPool() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  reaper_.join();
  std::lock_guard<std::mutex> l(mu_);
  idle_.clear();
}

size_t DbPool::open() const {
  std::lock_guard<std::mutex> l(mu_);
  return idle_.size() + in_use_;
}

std::unique_ptr<DbPool::Entry> DbPool::TakeIdle(const std::string& workflow) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = std::find_if(idle_.begin(), idle_.end(), [&](const auto& e) { return e->workflow == workflow; });
  if (it == idle_.end()) return nullptr;
  std::unique_ptr<Entry> e = std::move(*it);
  idle_.erase(it);
  ++in_use_;
  return e;
}

bool DbPool::StillValid(const Entry& e) const {
  dev_t dev = 0;
  ino_t ino = 0;
  if (!DbIdentity(e.handle->paths()->db, &dev, &ino) || dev != e.dev || ino != e.ino) return false;
  return e.config.Fresh() && !e.config.Racy(WallNanos());
}

Result<std::unique_ptr<DbPool::Entry>> DbPool::OpenEntry(const std::string& workflow, Env* env) {
  auto e = std::make_unique<Entry>();
  e->workflow = workflow;
  PULSE_ASSIGN_OR_RETURN(WorkflowPaths paths, ResolveWorkflow(workspace_, workflow));
  // Nothing is read before this process recovered what an earlier server
  // left running in the workflow (first_open.h).
  EnsureFirstOpen(*env, workspace_, workflow);
  // The database is checked by its inode; its folder moves with its WAL.
  WatchingEnv watching(env, env->NowSeconds(), &e->config, {paths.db, paths.db_dir});
  dev_t dev_before = 0;
  ino_t ino_before = 0;
  bool existed = DbIdentity(paths.db, &dev_before, &ino_before);
  PULSE_ASSIGN_OR_RETURN(OpenedWorkflow opened, OpenWorkflow(watching, workspace_, workflow));
  e->handle = WorkflowHandle::Adopt(*env, std::move(opened));
  ++opens_;
  // A file renamed in between may be the one opened or not: such a
  // connection serves this request only.
  if (!DbIdentity(paths.db, &e->dev, &e->ino) || (existed && (e->dev != dev_before || e->ino != ino_before))) {
    e->transient = true;
  }
  e->ctx = ServerContext(*e->handle);
  return e;
}

Result<DbPool::Lease> DbPool::Checkout(const std::string& workflow, Env* env) {
  for (;;) {
    std::unique_ptr<Entry> e = TakeIdle(workflow);
    if (!e) break;
    if (StillValid(*e)) {
      ++reuses_;
      e->ctx.env = env;
      e->handle->set_env(env);
      return Lease(this, e.release());
    }
    ++stale_;
    {
      std::lock_guard<std::mutex> l(mu_);
      --in_use_;
    }
  }
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<Entry> e, OpenEntry(workflow, env));
  std::unique_ptr<Entry> evicted;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (idle_.size() + in_use_ >= options_.max_open && !idle_.empty()) {
      evicted = std::move(idle_.back());
      idle_.pop_back();
    }
    if (idle_.size() + in_use_ >= options_.max_open) e->transient = true;
    ++in_use_;
  }
  return Lease(this, e.release());
}

void DbPool::CheckIn(Entry* raw) {
  std::unique_ptr<Entry> e(raw);
  // A connection left inside a transaction (a request failed in one) is
  // not handed to the next request.
  bool keep = !e->transient && sqlite3_get_autocommit(e->handle->db().handle()) != 0;
  std::lock_guard<std::mutex> l(mu_);
  --in_use_;
  if (!keep || stopping_) return;
  e->last_used = Clock::now();
  idle_.push_front(std::move(e));
}

void DbPool::Reap() {
  const auto idle = std::chrono::duration<double>(options_.idle_seconds);
  const auto step = std::chrono::duration<double>(std::clamp(options_.idle_seconds / 4, 0.05, 1.0));
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    wake_.wait_for(l, step);
    std::list<std::unique_ptr<Entry>> closing;
    auto cutoff = Clock::now() - std::chrono::duration_cast<Clock::duration>(idle);
    // The list is most recently used first: the idle ones are at its end.
    while (!idle_.empty() && idle_.back()->last_used < cutoff) {
      closing.push_back(std::move(idle_.back()));
      idle_.pop_back();
    }
    l.unlock();
    closing.clear();
    l.lock();
  }
}

}  // namespace pulse::serve

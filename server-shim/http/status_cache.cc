#include "server-shim/http/status_cache.h"

#include <limits>

#include "server-shim/http/http_util.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

// Changes whenever another connection commits to the database (never for
// this connection's own commits); -1 when it cannot be read.
int64_t DataVersion(Db& db) {
  Result<int64_t> v = db.QueryInt64("PRAGMA data_version");
  return v.ok() ? *v : -1;
}

}  // namespace

bool StatusCache::Fresh(const Entry& e, int64_t now, int64_t max_age) {
  const bool in_time = e.now == now || (e.now < now && now - e.now <= max_age);
  return in_time && StampDatabase(e.db_path) == e.db && e.inputs.Fresh();
}

Result<StatusCache::Answer> StatusCache::Run(Env& env, const std::string& workflow, int64_t now, Keep form,
                                             const Compute& compute, std::shared_ptr<const Entry>* keep,
                                             bool* open_failed) {
  Result<DbPool::Lease> lease = pool_->Checkout(workflow, &env);
  if (!lease.ok()) {
    *open_failed = true;
    return lease.status();
  }
  auto e = std::make_shared<Entry>();
  e->now = now;
  e->db_path = lease->paths().db;
  e->inputs.Merge(lease->config_inputs());
  WatchingEnv watching(&env, now, &e->inputs, {lease->paths().db, lease->paths().db_dir});
  ApiContext ctx = lease->ctx();
  ctx.env = &watching;
  const int64_t before = DataVersion(lease->db());
  Result<json> out = compute(ctx);
  if (!out.ok()) return out.status();
  // Stamped before data_version is read again: an unchanged version then
  // proves no other commit came before the stamp.
  e->db = StampDatabase(e->db_path);
  const int64_t after = DataVersion(lease->db());
  auto answer = std::make_shared<CachedAnswer>();
  if (form == Keep::kText) {
    answer->text = ReplyText(*out);
  } else {
    answer->doc = std::move(out).value();
  }
  e->answer = answer;
  const bool small = form == Keep::kJson || answer->text.size() <= max_bytes_ / 8;
  if (before >= 0 && before == after && small && !e->inputs.Racy(WallNanos())) *keep = std::move(e);
  return Answer(std::move(answer));
}

void StatusCache::Store(const std::string& key, std::shared_ptr<const Entry> entry) {
  Slot& slot = slots_[key];
  slot.busy = false;
  if (entry) {
    bytes_ -= SizeOf(slot);
    slot.entry = std::move(entry);
    bytes_ += SizeOf(slot);
  }
  Evict();
}

void StatusCache::Evict() {
  // Over a bound: the least recently asked-for answers go.
  while (slots_.size() > max_entries_ || bytes_ > max_bytes_) {
    auto victim = slots_.end();
    uint64_t oldest = std::numeric_limits<uint64_t>::max();
    for (auto it = slots_.begin(); it != slots_.end(); ++it) {
      if (!it->second.busy && it->second.used < oldest) {
        oldest = it->second.used;
        victim = it;
      }
    }
    if (victim == slots_.end()) return;
    bytes_ -= SizeOf(victim->second);
    slots_.erase(victim);
  }
}

size_t StatusCache::bytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return bytes_;
}

Result<json> StatusCache::Get(Env& env, const std::string& workflow, const std::string& variant,
                              const Compute& compute, bool* open_failed, int64_t max_age) {
  Result<Answer> out = Lookup(env, workflow, variant, Keep::kJson, compute, open_failed, max_age);
  if (!out.ok()) return out.status();
  return (*out)->doc;
}

Result<StatusCache::Answer> StatusCache::Lookup(Env& env, const std::string& workflow, const std::string& variant,
                                                Keep keep, const Compute& compute, bool* open_failed,
                                                int64_t max_age) {
  const int64_t now = env.NowSeconds();
  const std::string key = workflow + '\n' + variant;
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    Slot& slot = slots_[key];
    slot.used = ++tick_;
    std::shared_ptr<const Entry> e = slot.entry;
    if (e) {
      // The stamps are read without the lock; the entry cannot change
      // under this reference.
      l.unlock();
      bool fresh = Fresh(*e, now, max_age);
      l.lock();
      if (fresh) {
        ++hits_;
        return e->answer;
      }
      if (slots_[key].entry != e) continue;  // another request stored a newer one
    }
    Slot& again = slots_[key];
    if (!again.busy) {
      again.busy = true;
      break;
    }
    done_.wait(l);
  }
  l.unlock();
  std::shared_ptr<const Entry> kept;
  Result<Answer> out = Status::Internal("read answer: not computed");
  try {
    out = Run(env, workflow, now, keep, compute, &kept, open_failed);
  } catch (...) {
    // The waiters must not wait for an answer that will never come.
    l.lock();
    Store(key, nullptr);
    l.unlock();
    done_.notify_all();
    throw;
  }
  l.lock();
  ++recomputes_;
  Store(key, std::move(kept));
  l.unlock();
  done_.notify_all();
  return out;
}

}  // namespace pulse::serve

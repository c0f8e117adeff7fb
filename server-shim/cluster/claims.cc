// Workflow claims in etcd (claims.h).
#include "server-shim/cluster/claims.h"

#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "core/base/time_util.h"
#include "server-shim/serve.h"

namespace pulse::serve {

namespace {

using Clock = std::chrono::steady_clock;

std::string RandomId() {
  std::random_device rd;
  std::mt19937_64 rng{(static_cast<uint64_t>(rd()) << 32) ^ rd()};
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) s += digits[rng() % 16];
  return s;
}

}  // namespace

Result<std::string> WorkspaceClaimsPrefix(const std::string& workspace) {
  const std::string dir = workspace + "/.pulse";
  const std::string path = dir + "/workspace-id";
  ::mkdir(dir.c_str(), 0700);
  std::ifstream in(path);
  std::string id;
  if (!(in >> id)) {
    // Written aside and linked in place: link() fails when another instance
    // got there first, and then its id is the one read back.
    const std::string tmp = path + "." + RandomId();
    {
      std::ofstream out(tmp);
      out << RandomId() << "\n";
      if (!out) return Status::IoError(tmp + ": cannot write the workspace id");
    }
    (void)::link(tmp.c_str(), path.c_str());
    ::unlink(tmp.c_str());
    std::ifstream again(path);
    if (!(again >> id)) return Status::IoError(path + ": cannot read the workspace id");
  }
  return "/pulse/" + id + "/";
}

Result<std::unique_ptr<Claims>> Claims::Make(const ClaimsOptions& options) {
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<EtcdClient> etcd, EtcdClient::ForUrl(options.url, options.auth));
  // A connection of its own: the keep-alive never waits behind the tick's claims.
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<EtcdClient> keepalive, EtcdClient::ForUrl(options.url, options.auth));
  return std::unique_ptr<Claims>(new Claims(options, std::move(etcd), std::move(keepalive)));
}

Claims::Claims(ClaimsOptions options, std::unique_ptr<EtcdClient> etcd, std::unique_ptr<EtcdClient> keepalive)
    : options_(std::move(options)), etcd_(std::move(etcd)), keepalive_(std::move(keepalive)) {}

Claims::~Claims() { Stop(); }

void Claims::Start() {
  thread_ = std::thread([this] { KeepAliveLoop(); });
}

void Claims::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::string lease;
  {
    std::lock_guard<std::mutex> l(mu_);
    lease.swap(lease_);
    valid_until_ = {};
  }
  if (lease.empty()) return;
  Status revoked = etcd_->Revoke(lease);
  if (revoked.ok()) spdlog::info("etcd: lease {} revoked: this instance's claims are released", lease);
  else spdlog::warn("{}", revoked.message());
}

bool Claims::LeaseAlive() {
  std::lock_guard<std::mutex> l(mu_);
  return !lease_.empty() && Clock::now() < valid_until_;
}

void Claims::KeepAliveLoop() {
  const auto every = std::chrono::duration<double>(std::max<double>(0.2, options_.ttl / 3.0));
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    if (cv_.wait_for(l, every, [this] { return stop_; })) return;
    std::string lease = lease_;
    if (lease.empty()) continue;
    l.unlock();
    const Clock::time_point sent = Clock::now();
    Result<int64_t> ttl = keepalive_->KeepAlive(lease);
    l.lock();
    if (lease_ != lease) continue;
    if (!ttl.ok()) continue;  // the tick reports etcd being away; the lease runs out on its own
    if (*ttl > 0) {
      valid_until_ = sent + std::chrono::seconds(*ttl);
    } else {
      spdlog::warn("etcd: lease {} expired: its claims are gone; claiming again under a new lease", lease);
      lease_.clear();
      valid_until_ = {};
    }
  }
}

Status Claims::EnsureLease() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!lease_.empty()) return Status::OK();
  }
  const Clock::time_point sent = Clock::now();
  int64_t granted = 0;
  PULSE_ASSIGN_OR_RETURN(std::string lease, etcd_->GrantLease(options_.ttl, &granted));
  PULSE_RETURN_IF_ERROR(etcd_->Put(options_.prefix + "instances/" + options_.instance, options_.instance, lease));
  std::lock_guard<std::mutex> l(mu_);
  lease_ = lease;
  valid_until_ = sent + std::chrono::seconds(granted > 0 ? granted : options_.ttl);
  spdlog::info("etcd: instance {} holds lease {} ({} s) at {}", options_.instance, lease, granted, etcd_->url());
  return Status::OK();
}

Status Claims::Refresh(const std::vector<std::string>& workflows, std::vector<Fence>* held) {
  PULSE_RETURN_IF_ERROR(EnsureLease());
  std::string lease;
  {
    std::lock_guard<std::mutex> l(mu_);
    lease = lease_;
  }
  const std::string claims = options_.prefix + "claims/";
  PULSE_ASSIGN_OR_RETURN(std::vector<EtcdKv> kvs, etcd_->RangePrefix(claims));
  PULSE_ASSIGN_OR_RETURN(std::vector<EtcdKv> live, etcd_->RangePrefix(options_.prefix + "instances/"));
  std::vector<std::string> taken;
  for (const EtcdKv& kv : kvs) {
    std::string wf = kv.key.substr(claims.size());
    taken.push_back(wf);
    // Mine by the lease, not by memory: a claim whose answer was lost on the
    // way back is still found here.
    if (kv.lease == lease) held->push_back(Fence{wf, kv.create_revision, options_.instance});
  }
  Rebalance(workflows, std::max<size_t>(1, live.size()), held, taken);
  return Status::OK();
}

// Up to the fair share: release what is over it (and claims of workflows
// that are gone), then claim free workflows. A batch is one transaction (one
// fsync in etcd rather than one per workflow); a batch that finds one of its
// workflows taken claims nothing, and the next tick reads the claims again.
// Each instance starts its search at its own place in the list, so instances
// starting together rarely reach for the same batch.
void Claims::Rebalance(const std::vector<std::string>& workflows, size_t live, std::vector<Fence>* held,
                       const std::vector<std::string>& taken) {
  constexpr size_t kBatch = 32;  // well under etcd's 128 operations per transaction
  const size_t share = (workflows.size() + live - 1) / live;
  const std::set<std::string> present(workflows.begin(), workflows.end());
  const std::string claims = options_.prefix + "claims/";
  std::sort(held->begin(), held->end(), [](const Fence& a, const Fence& b) { return a.workflow < b.workflow; });
  std::vector<Fence> keep, drop;
  for (const Fence& f : *held) (present.count(f.workflow) ? keep : drop).push_back(f);
  while (keep.size() > share) {
    drop.push_back(keep.back());
    keep.pop_back();
  }
  *held = keep;
  for (size_t i = 0; i < drop.size(); i += kBatch) {
    std::vector<std::pair<std::string, int64_t>> keys;
    for (size_t j = i; j < std::min(drop.size(), i + kBatch); ++j) {
      keys.push_back({claims + drop[j].workflow, drop[j].revision});
    }
    Result<bool> gone = etcd_->DeleteAllIfCreatedAt(keys);
    if (!gone.ok() || !*gone) {
      // Not released: still this instance's, so still ticked by it.
      held->insert(held->end(), drop.begin() + static_cast<std::ptrdiff_t>(i), drop.end());
      return;
    }
  }
  std::string lease;
  {
    std::lock_guard<std::mutex> l(mu_);
    lease = lease_;
  }
  const std::set<std::string> busy(taken.begin(), taken.end());
  std::vector<std::string> free;
  const size_t start = workflows.empty() ? 0 : std::hash<std::string>{}(options_.instance) % workflows.size();
  for (size_t k = 0; k < workflows.size(); ++k) {
    const std::string& wf = workflows[(start + k) % workflows.size()];
    if (!busy.count(wf)) free.push_back(wf);
  }
  for (size_t i = 0; i < free.size() && held->size() < share; i += kBatch) {
    const size_t n = std::min({kBatch, share - held->size(), free.size() - i});
    std::vector<std::string> keys;
    for (size_t j = i; j < i + n; ++j) keys.push_back(claims + free[j]);
    Result<std::optional<int64_t>> rev = etcd_->CreateAllIfAbsent(keys, options_.instance, lease);
    if (!rev.ok() || !*rev) return;
    for (size_t j = i; j < i + n; ++j) held->push_back(Fence{free[j], **rev, options_.instance});
  }
}

void Claims::Report(const Status& status, size_t held) {
  if (!status.ok() && !down_) {
    spdlog::error("{}; this instance ticks no workflow until etcd answers", status.message());
  } else if (status.ok() && down_) {
    spdlog::info("etcd at {} answers again; {} workflow(s) claimed by {}", etcd_->url(), held, options_.instance);
  }
  down_ = !status.ok();
}

std::vector<Fence> Claims::Plan(const std::vector<std::string>& workflows) {
  std::vector<Fence> held;
  Status s = Refresh(workflows, &held);
  Report(s, held.size());
  // A failed refresh knows nothing: tick nothing rather than guess.
  if (!s.ok() || !LeaseAlive()) return {};
  const std::set<std::string> present(workflows.begin(), workflows.end());
  held.erase(std::remove_if(held.begin(), held.end(), [&](const Fence& f) { return !present.count(f.workflow); }),
             held.end());
  return held;
}

std::unique_ptr<Claims> StartClaims(const ServeOptions& options) {
  ClaimsOptions c;
  c.url = options.etcd;
  c.ttl = options.etcd_ttl;
  c.auth = options.etcd_auth;
  c.instance = options.instance;
  if (c.instance.empty()) {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    c.instance = std::string(host) + "-" + std::to_string(::getpid());
  }
  c.prefix = options.etcd_prefix;
  if (c.prefix.empty()) {
    Result<std::string> prefix = WorkspaceClaimsPrefix(options.workspace);
    if (!prefix.ok()) {
      spdlog::error("etcd: {}; this instance ticks no workflow", prefix.status().message());
      return nullptr;
    }
    c.prefix = *prefix;
  }
  if (c.prefix.back() != '/') c.prefix += '/';
  Result<std::unique_ptr<Claims>> claims = Claims::Make(c);
  if (!claims.ok()) {
    spdlog::error("{}; this instance ticks no workflow", claims.status().message());
    return nullptr;
  }
  (*claims)->Start();
  spdlog::info("etcd: instance {} claims workflows at {} under {}{}", c.instance, c.url, c.prefix,
               c.auth.user.empty() ? " (no etcd auth: any local process can take these claims)"
                                   : " as etcd user " + c.auth.user);
  return std::move(claims).value();
}

// Scheduler's side of the claims (serve.h): kept here so the tick itself
// only asks which workflows, and under which fence.
std::vector<std::string> Scheduler::Claimed(const std::vector<std::string>& all) {
  revisions_.clear();
  std::vector<std::string> mine;
  for (const Fence& f : claims_->Plan(all)) {
    revisions_[f.workflow] = f.revision;
    mine.push_back(f.workflow);
  }
  return mine;
}

std::optional<Fence> Scheduler::FenceFor(const std::string& wf) const {
  if (!claims_) return std::nullopt;
  auto it = revisions_.find(wf);
  // Not claimed here: revision 0 is older than any claim, so every write is refused.
  return Fence{wf, it == revisions_.end() ? 0 : it->second, claims_->options().instance};
}

bool Scheduler::BeginFencedTick(const std::string& wf, Db& db) {
  // A lease that lapsed during this pass ends it: the claims may be gone.
  if (!claims_->LeaseAlive()) return false;
  std::optional<Fence> fence = FenceFor(wf);
  Status recorded = RecordFencedTick(db, *fence, ticks_, env_->NowSeconds());
  if (!recorded.ok()) spdlog::warn("tick: {}", recorded.message());
  return recorded.ok();
}

}  // namespace pulse::serve

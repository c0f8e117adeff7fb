// Who ticks which workflow when several `pulse serve --etcd URL` instances
// share one workspace. Each instance holds an etcd lease and registers under
// <prefix>instances/; it claims workflows by creating <prefix>claims/<name>
// with its lease in a transaction that succeeds only when the key does not
// exist (create_revision == 0), in batches, up to its fair share (the workflows divided
// by the live instances), and releases what is over it. A claim lasts while
// the lease lives: an instance that dies stops keeping it alive and its keys
// go with it after the TTL, for the others to claim. The claim's revision is
// its fencing token (fence.h).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/base/status.h"
#include "server-shim/cluster/etcd_client.h"
#include "server-shim/cluster/fence.h"

namespace pulse::serve {

struct ClaimsOptions {
  std::string url;       // etcd's client URL
  std::string prefix;    // keys live under it; ends with "/"
  std::string instance;  // this instance's name in keys and tick rows
  int64_t ttl = 10;      // lease seconds
  EtcdAuth auth;         // user and password, TLS files
};

class Claims {
 public:
  // Checks the URL; no I/O (an etcd that does not answer is reported by the
  // first tick and retried on every one).
  static Result<std::unique_ptr<Claims>> Make(const ClaimsOptions& options);
  ~Claims();

  // Keeps the lease alive (every TTL/3) on its own thread.
  void Start();
  // Stops the keep-alive and revokes the lease: this instance's claims go at once.
  void Stop();

  // On each tick: claims up to the fair share of `workflows`, releases the
  // rest, and returns the workflows this instance holds with their claim
  // revisions. Empty while etcd has not confirmed the lease within its TTL.
  std::vector<Fence> Plan(const std::vector<std::string>& workflows);
  // True while the last keep-alive etcd answered is younger than the lease.
  bool LeaseAlive();

  const ClaimsOptions& options() const { return options_; }

 private:
  Claims(ClaimsOptions options, std::unique_ptr<EtcdClient> etcd, std::unique_ptr<EtcdClient> keepalive);
  Status EnsureLease();
  Status Refresh(const std::vector<std::string>& workflows, std::vector<Fence>* held);
  void Rebalance(const std::vector<std::string>& workflows, size_t live, std::vector<Fence>* held,
                 const std::vector<std::string>& taken);
  void Report(const Status& status, size_t held);
  void KeepAliveLoop();

  ClaimsOptions options_;
  std::unique_ptr<EtcdClient> etcd_;       // the tick's calls
  std::unique_ptr<EtcdClient> keepalive_;  // the keep-alive thread's
  std::mutex mu_;  // lease_ and valid_until_
  std::string lease_;
  std::chrono::steady_clock::time_point valid_until_{};
  bool down_ = false;  // the last call to etcd failed (reported once)
  std::thread thread_;
  std::condition_variable cv_;
  bool stop_ = false;
};

struct ServeOptions;
// The claims of `pulse serve --etcd` (prefix, instance name and TTL from
// the options), keeping their lease alive; null (and logged) when the
// workspace id cannot be made.
std::unique_ptr<Claims> StartClaims(const ServeOptions& options);

// The key prefix for a workspace: /pulse/<id>/, where <id> is kept in
// <workspace>/.pulse/workspace-id (made once, atomically, by whichever
// instance comes first), so instances that see the workspace under
// different paths still share their keys.
Result<std::string> WorkspaceClaimsPrefix(const std::string& workspace);

}  // namespace pulse::serve

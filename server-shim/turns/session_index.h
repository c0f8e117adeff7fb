// Which workflow's database knows a session token, answered from memory: the
// token hashes of each workflow, reloaded only when its database's change
// stamp moved. A wrong token on the tool route or MCP thus opens no database.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/base/bounded_lru.h"
#include "core/base/status.h"
#include "server-shim/db_stamp.h"

namespace pulse::serve {

class SessionTokenIndex {
 public:
  explicit SessionTokenIndex(std::string workspace) : workspace_(std::move(workspace)) {}
  // The first of `workflows` whose database holds a session with this token
  // (its SHA-256 hex); nullopt when none does.
  std::optional<std::string> Find(const std::vector<std::string>& workflows, const std::string& token_sha256);
  // The workflow a token (its SHA-256 hex) was last found in, so a token in
  // use skips the scan of every workflow; only the kKnownTokens most recently
  // used are remembered, however many sessions a long-running server sees.
  std::optional<std::string> Known(const std::string& token_sha256) { return known_.Get(token_sha256); }
  void Remember(const std::string& token_sha256, const std::string& workflow) { known_.Put(token_sha256, workflow); }
  static constexpr size_t kKnownTokens = 4096;

 private:
  struct Entry {
    DbStamp stamp;
    std::set<std::string> hashes;
  };
  // The entry for `workflow`, reloaded when its stamp moved.
  const Entry& Current(const std::string& workflow);

  std::string workspace_;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
  BoundedLru<std::string, std::string> known_{kKnownTokens};
};

}  // namespace pulse::serve

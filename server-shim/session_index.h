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

#include "core/status.h"
#include "server-shim/db_stamp.h"

namespace pulse::serve {

class SessionTokenIndex {
 public:
  explicit SessionTokenIndex(std::string workspace) : workspace_(std::move(workspace)) {}
  // The first of `workflows` whose database holds a session with this token
  // (its SHA-256 hex); nullopt when none does.
  std::optional<std::string> Find(const std::vector<std::string>& workflows, const std::string& token_sha256);

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
};

}  // namespace pulse::serve

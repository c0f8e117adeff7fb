// etcd through its JSON gateway (/v3/...): leases, one-key transactions and
// prefix ranges, over the HTTP client the server already uses. Keys and
// values travel base64-encoded; int64 fields arrive as JSON strings.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace httplib {
class Client;
}

namespace pulse::serve {

std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

struct EtcdKv {
  std::string key;
  std::string value;
  std::string lease;  // the lease ID as etcd prints it; empty: none
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
};

class EtcdClient {
 public:
  // Checks the URL (http://HOST:PORT, nothing after it but "/"); no I/O.
  static Result<std::unique_ptr<EtcdClient>> ForUrl(const std::string& url);
  ~EtcdClient();

  const std::string& url() const { return url_; }

  // A new lease of `ttl` seconds: its ID; `*granted` gets etcd's TTL (etcd
  // raises a TTL below its minimum).
  Result<std::string> GrantLease(int64_t ttl, int64_t* granted);
  // One keep-alive: the lease's TTL from now, 0 when it has expired.
  Result<int64_t> KeepAlive(const std::string& lease);
  Status Revoke(const std::string& lease);
  Status Put(const std::string& key, const std::string& value, const std::string& lease);
  // Puts every key, in one transaction, only when none of them exists
  // (create_revision == 0 for each): the revision of those puts, or nullopt
  // when someone already holds one of them (nothing is put then).
  Result<std::optional<int64_t>> CreateAllIfAbsent(const std::vector<std::string>& keys, const std::string& value,
                                                   const std::string& lease);
  // Deletes every key, in one transaction, only while each is still the one
  // created at its revision; false (nothing deleted) otherwise.
  Result<bool> DeleteAllIfCreatedAt(const std::vector<std::pair<std::string, int64_t>>& keys);
  // Every key under `prefix`, in key order.
  Result<std::vector<EtcdKv>> RangePrefix(const std::string& prefix);

 private:
  EtcdClient(std::string url, std::string host, int port);
  Result<nlohmann::json> Post(const std::string& path, const nlohmann::json& body);

  std::string url_;
  std::unique_ptr<httplib::Client> http_;
  std::mutex mu_;  // one request at a time on the connection
};

}  // namespace pulse::serve

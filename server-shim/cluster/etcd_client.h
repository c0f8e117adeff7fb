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

// How this instance proves itself to etcd: a user and password (etcd's
// auth, `etcdctl auth enable`; read from a file or the environment, never
// from the command line) and, with an https:// URL, TLS: the CA that signed
// etcd's certificate and this client's certificate and key.
struct EtcdAuth {
  std::string user, password;  // both or neither
  std::string ca_file;         // PEM; empty: the system's CAs
  std::string cert_file, key_file;  // PEM client certificate and key: both or neither

  // From `auth_file` (one line "user:password") or, when it is empty, the
  // environment's PULSE_ETCD_USER and PULSE_ETCD_PASSWORD; neither: no auth.
  // The password is never part of an error.
  static Result<EtcdAuth> Read(const std::string& auth_file);
};

class EtcdClient {
 public:
  // Checks the URL (http://HOST:PORT or https://HOST:PORT, nothing after it
  // but "/") and that TLS files come with an https:// URL and exist; no I/O
  // to etcd.
  static Result<std::unique_ptr<EtcdClient>> ForUrl(const std::string& url, const EtcdAuth& auth = EtcdAuth());
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
  EtcdClient(std::string url, const EtcdAuth& auth);
  Result<nlohmann::json> Post(const std::string& path, const nlohmann::json& body);
  // One request as it is; `*unauthenticated` when etcd refused its token.
  Result<nlohmann::json> PostOnce(const std::string& path, const nlohmann::json& body, bool* unauthenticated);
  // A new token for auth_'s user (/v3/auth/authenticate).
  Status Authenticate();

  std::string url_;
  EtcdAuth auth_;
  std::string token_;  // etcd's simple or JWT token, sent as Authorization
  std::unique_ptr<httplib::Client> http_;
  std::mutex mu_;  // one request at a time on the connection
};

}  // namespace pulse::serve

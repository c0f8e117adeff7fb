// etcd's JSON gateway (etcd_client.h). Every failure names the etcd URL and
// the call, on one line, so a log reader knows which server and what.
#include "server-shim/cluster/etcd_client.h"

#include <httplib.h>

#include <cctype>
#include <cstdlib>
#include <fstream>

namespace pulse::serve {

using nlohmann::json;

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// int64 fields come as strings ("7"), or are left out when zero.
int64_t Int(const json& doc, const char* key) {
  if (!doc.is_object() || !doc.contains(key)) return 0;
  const json& v = doc[key];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_string()) {
    try {
      return std::stoll(v.get<std::string>());
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

std::string Text(const json& doc, const char* key) {
  if (!doc.is_object() || !doc.contains(key)) return "";
  const json& v = doc[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The key just past every key that starts with `prefix` (etcd's range_end).
std::string PrefixEnd(std::string prefix) {
  while (!prefix.empty()) {
    unsigned char last = static_cast<unsigned char>(prefix.back());
    if (last < 0xff) {
      prefix.back() = static_cast<char>(last + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const char* at = std::char_traits<char>::find(kAlphabet, 64, c);
    if (!at) return Status::InvalidArgument("etcd: not base64: \"" + std::string(text.substr(0, 40)) + "\"");
    acc = (acc << 6) | static_cast<uint32_t>(at - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

Result<EtcdAuth> EtcdAuth::Read(const std::string& auth_file) {
  EtcdAuth a;
  if (!auth_file.empty()) {
    std::ifstream in(auth_file);
    std::string line;
    if (!in || !std::getline(in, line)) {
      return Status::InvalidArgument("--etcd-auth-file " + auth_file + ": cannot read it");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == line.size()) {
      return Status::InvalidArgument("--etcd-auth-file " + auth_file +
                                     ": expected one line \"user:password\" (etcd's user and password)");
    }
    a.user = line.substr(0, colon);
    a.password = line.substr(colon + 1);
    return a;
  }
  const char* user = std::getenv("PULSE_ETCD_USER");
  const char* password = std::getenv("PULSE_ETCD_PASSWORD");
  const bool has_user = user && *user, has_password = password && *password;
  if (has_user != has_password) {
    return Status::InvalidArgument(
        "PULSE_ETCD_USER and PULSE_ETCD_PASSWORD: set both (etcd's user and password) or neither");
  }
  if (has_user) {
    a.user = user;
    a.password = password;
  }
  return a;
}

Result<std::unique_ptr<EtcdClient>> EtcdClient::ForUrl(const std::string& url, const EtcdAuth& auth) {
  const std::string bad = "--etcd \"" + url +
                          "\": expected http://HOST:PORT or https://HOST:PORT (etcd's client URL, e.g. "
                          "http://127.0.0.1:2379)";
  const bool tls = url.compare(0, 8, "https://") == 0;
  const std::string scheme = tls ? "https://" : "http://";
  if (url.compare(0, scheme.size(), scheme) != 0) return Status::InvalidArgument(bad);
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || rest.find('/') != std::string::npos) {
    return Status::InvalidArgument(bad);
  }
  std::string port_text = rest.substr(colon + 1);
  if (port_text.empty() || port_text.size() > 5) return Status::InvalidArgument(bad);
  for (char c : port_text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return Status::InvalidArgument(bad);
  }
  int port = std::stoi(port_text);
  if (port < 1 || port > 65535) return Status::InvalidArgument(bad);
  const bool has_files = !auth.ca_file.empty() || !auth.cert_file.empty() || !auth.key_file.empty();
  if (has_files && !tls) {
    return Status::InvalidArgument("--etcd-ca, --etcd-cert and --etcd-key are for TLS: give --etcd an https:// URL");
  }
  if (auth.cert_file.empty() != auth.key_file.empty()) {
    return Status::InvalidArgument("--etcd-cert and --etcd-key: give both (the client certificate and its key) or neither");
  }
  for (const auto& [flag, path] : {std::pair<const char*, std::string>{"--etcd-ca", auth.ca_file},
                                   {"--etcd-cert", auth.cert_file}, {"--etcd-key", auth.key_file}}) {
    if (!path.empty() && !std::ifstream(path)) {
      return Status::InvalidArgument(std::string(flag) + " " + path + ": cannot read it");
    }
  }
  if (auth.user.empty() != auth.password.empty()) {
    return Status::InvalidArgument("etcd auth: a user needs a password and a password a user");
  }
  return std::unique_ptr<EtcdClient>(new EtcdClient(scheme + rest, auth));
}

EtcdClient::EtcdClient(std::string url, const EtcdAuth& auth)
    : url_(std::move(url)),
      auth_(auth),
      http_(std::make_unique<httplib::Client>(url_, auth.cert_file, auth.key_file)) {
  // Short: a lease of a few seconds must not wait out a long connect.
  http_->set_connection_timeout(1, 0);
  http_->set_read_timeout(2, 0);
  http_->set_write_timeout(2, 0);
  http_->set_keep_alive(true);
  if (url_.compare(0, 8, "https://") == 0) {
    // Debian's cpp-httplib is built with OpenSSL: etcd's certificate is
    // checked against --etcd-ca (or the system's CAs) and its host name.
    if (!auth.ca_file.empty()) http_->set_ca_cert_path(auth.ca_file.c_str());
    http_->enable_server_certificate_verification(true);
  }
}

EtcdClient::~EtcdClient() = default;

Result<json> EtcdClient::PostOnce(const std::string& path, const json& body, bool* unauthenticated) {
  *unauthenticated = false;
  // etcd's gateway (grpc-gateway) ends every error answer with an HTTP
  // trailer, which cpp-httplib 0.11 cannot read: the body is taken as it
  // arrives, so etcd's own words are kept even when the read then fails.
  httplib::Request req;
  req.method = "POST";
  req.path = path;
  req.body = body.dump();
  req.set_header("Content-Type", "application/json");
  if (!token_.empty()) req.set_header("Authorization", token_);
  std::string text;
  req.content_receiver = [&text](const char* data, size_t n, uint64_t, uint64_t) {
    if (text.size() < (1 << 20)) text.append(data, n);
    return true;
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  const bool answered = http_->send(req, res, error);
  const std::string where = "etcd at " + url_ + ": " + path + ": ";
  json doc = json::parse(text, nullptr, false);
  if (!answered && (res.status <= 0 || !doc.is_object())) {
    std::string why = httplib::to_string(error);
    if (url_.compare(0, 8, "https://") == 0) {
      if (error == httplib::Error::SSLServerVerification) {
        why += ": etcd's certificate is not trusted (--etcd-ca)";
      } else if (error == httplib::Error::SSLConnection || error == httplib::Error::Read ||
                 error == httplib::Error::Write) {
        why += ": TLS handshake failed or etcd closed the connection (--etcd-ca, --etcd-cert, --etcd-key)";
      }
    }
    return Status::IoError(where + "cannot reach it (" + why + ")");
  }
  if (res.status != 200 || doc.is_discarded() || doc.contains("error")) {
    std::string msg = doc.is_object() ? Text(doc, "message") : text.substr(0, 200);
    if (msg.empty() && doc.is_object()) msg = Text(doc, "error");
    for (char& c : msg) if (c == '\n' || c == '\r') c = ' ';
    // How etcd refuses a request without a valid token: gRPC's
    // Unauthenticated (401), or "user name is empty" for none at all.
    *unauthenticated = res.status == 401 || msg.find("auth token") != std::string::npos ||
                       msg.find("user name is empty") != std::string::npos;
    std::string hint = *unauthenticated && auth_.user.empty()
                           ? " (etcd has auth on: give --etcd-auth-file, or PULSE_ETCD_USER and PULSE_ETCD_PASSWORD)"
                           : "";
    return Status::IoError(where + "HTTP " + std::to_string(res.status) + ": " + msg + hint);
  }
  return doc;
}

Status EtcdClient::Authenticate() {
  token_.clear();
  bool ignored = false;
  Result<json> doc =
      PostOnce("/v3/auth/authenticate", json{{"name", auth_.user}, {"password", auth_.password}}, &ignored);
  if (!doc.ok()) return Status::IoError(doc.status().message() + " (as etcd user \"" + auth_.user + "\")");
  token_ = Text(*doc, "token");
  if (token_.empty()) return Status::IoError("etcd at " + url_ + ": /v3/auth/authenticate: no token in the answer");
  return Status::OK();
}

Result<json> EtcdClient::Post(const std::string& path, const json& body) {
  std::lock_guard<std::mutex> l(mu_);
  if (!auth_.user.empty() && token_.empty()) PULSE_RETURN_IF_ERROR(Authenticate());
  bool unauthenticated = false;
  Result<json> doc = PostOnce(path, body, &unauthenticated);
  if (doc.ok() || !unauthenticated || auth_.user.empty()) return doc;
  // The token ran out (etcd's simple tokens last --auth-token-ttl): once
  // more with a new one.
  PULSE_RETURN_IF_ERROR(Authenticate());
  return PostOnce(path, body, &unauthenticated);
}

Result<std::string> EtcdClient::GrantLease(int64_t ttl, int64_t* granted) {
  PULSE_ASSIGN_OR_RETURN(json doc, Post("/v3/lease/grant", json{{"TTL", std::to_string(ttl)}}));
  std::string id = Text(doc, "ID");
  if (id.empty() || id == "0") {
    return Status::IoError("etcd at " + url_ + ": /v3/lease/grant: no lease ID in " + doc.dump());
  }
  if (granted) *granted = Int(doc, "TTL");
  return id;
}

Result<int64_t> EtcdClient::KeepAlive(const std::string& lease) {
  // A stream in gRPC; through the gateway one request gets one answer line.
  PULSE_ASSIGN_OR_RETURN(json doc, Post("/v3/lease/keepalive", json{{"ID", lease}}));
  const json result = doc.contains("result") ? doc["result"] : doc;
  return Int(result, "TTL");
}

Status EtcdClient::Revoke(const std::string& lease) {
  return Post("/v3/lease/revoke", json{{"ID", lease}}).status();
}

Status EtcdClient::Put(const std::string& key, const std::string& value, const std::string& lease) {
  json body = {{"key", Base64Encode(key)}, {"value", Base64Encode(value)}, {"lease", lease}};
  return Post("/v3/kv/put", body).status();
}

Result<std::optional<int64_t>> EtcdClient::CreateAllIfAbsent(const std::vector<std::string>& keys,
                                                             const std::string& value, const std::string& lease) {
  json compare = json::array(), success = json::array();
  for (const std::string& key : keys) {
    compare.push_back(
        {{"key", Base64Encode(key)}, {"target", "CREATE"}, {"result", "EQUAL"}, {"create_revision", "0"}});
    success.push_back(
        {{"request_put", {{"key", Base64Encode(key)}, {"value", Base64Encode(value)}, {"lease", lease}}}});
  }
  PULSE_ASSIGN_OR_RETURN(json doc, Post("/v3/kv/txn", json{{"compare", compare}, {"success", success}}));
  if (!doc.value("succeeded", false)) return std::optional<int64_t>();
  // The puts are the transaction's only writes: the header's revision is theirs.
  int64_t revision = Int(doc.value("header", json::object()), "revision");
  if (revision <= 0) return Status::IoError("etcd at " + url_ + ": /v3/kv/txn: no revision in " + doc.dump());
  return std::optional<int64_t>(revision);
}

Result<bool> EtcdClient::DeleteAllIfCreatedAt(const std::vector<std::pair<std::string, int64_t>>& keys) {
  json compare = json::array(), success = json::array();
  for (const auto& [key, revision] : keys) {
    compare.push_back({{"key", Base64Encode(key)}, {"target", "CREATE"}, {"result", "EQUAL"},
                       {"create_revision", std::to_string(revision)}});
    success.push_back({{"request_delete_range", {{"key", Base64Encode(key)}}}});
  }
  PULSE_ASSIGN_OR_RETURN(json doc, Post("/v3/kv/txn", json{{"compare", compare}, {"success", success}}));
  return doc.value("succeeded", false);
}

Result<std::vector<EtcdKv>> EtcdClient::RangePrefix(const std::string& prefix) {
  PULSE_ASSIGN_OR_RETURN(json doc, Post("/v3/kv/range", json{{"key", Base64Encode(prefix)},
                                                              {"range_end", Base64Encode(PrefixEnd(prefix))}}));
  std::vector<EtcdKv> out;
  for (const json& kv : doc.value("kvs", json::array())) {
    EtcdKv e;
    PULSE_ASSIGN_OR_RETURN(e.key, Base64Decode(Text(kv, "key")));
    PULSE_ASSIGN_OR_RETURN(e.value, Base64Decode(Text(kv, "value")));
    e.lease = Text(kv, "lease");
    if (e.lease == "0") e.lease.clear();
    e.create_revision = Int(kv, "create_revision");
    e.mod_revision = Int(kv, "mod_revision");
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace pulse::serve

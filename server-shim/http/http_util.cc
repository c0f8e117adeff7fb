#include "server-shim/http/http_util.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <set>

#include "core/api/api.h"
#include "core/base/json_limits.h"
#include "core/base/one_line.h"
#include "server-shim/http/http_server.h"

namespace pulse::serve {

using nlohmann::json;

std::string ReplyText(const json& doc) {
  // Replacing bad UTF-8 (never throwing) keeps a reply that quotes a hostile
  // name a 4xx instead of a 500.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

void ReplyJson(httplib::Response& res, int status, const json& doc) {
  res.status = status;
  res.set_content(ReplyText(doc), "application/json");
}

void ReplyError(httplib::Response& res, int status, const std::string& reason) {
  ReplyJson(res, status, json{{"error", BoundedReason(reason)}});
}

int HttpStatusFor(const Status& s) {
  switch (s.code()) {
    case Code::kOk: return 200;
    case Code::kInvalidArgument: return 400;
    case Code::kNotFound: return 404;
    case Code::kRefused: return 403;
    case Code::kConflict: return 409;
    case Code::kBusy: return 503;
    case Code::kUnauthenticated: return 401;
    default: return 500;
  }
}

void ReplyStatus(httplib::Response& res, const Status& s) { ReplyJson(res, HttpStatusFor(s), ErrorToJson(s)); }

std::string BearerToken(const httplib::Request& req) {
  std::string h = req.get_header_value("Authorization");
  const std::string prefix = "Bearer ";
  if (h.size() <= prefix.size() || h.compare(0, prefix.size(), prefix) != 0) return "";
  std::string t = h.substr(prefix.size());
  while (!t.empty() && t.back() == ' ') t.pop_back();
  return t;
}

bool TokensEqual(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % b.size()]);
  return diff == 0;
}

bool IsLoopback(const std::string& addr) {
  return addr.rfind("127.", 0) == 0 || addr == "::1" || addr.rfind("::ffff:127.", 0) == 0;
}

bool ParseJsonObjectBody(const httplib::Request& req, httplib::Response& res, json* out) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    *out = json::object();
    return true;
  }
  Result<json> doc = ParseJsonBounded(req.body, "request body");
  if (!doc.ok()) {
    ReplyError(res, 400, doc.status().message());
    return false;
  }
  if (!doc->is_object()) {
    ReplyError(res, 400, "request body: expected a JSON object");
    return false;
  }
  *out = std::move(doc).value();
  return true;
}

namespace {

// db.sqlite, costs.sqlite, x.db and their -wal, -shm and -journal files.
bool IsDatabaseFileName(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  return name.find(".sqlite") != std::string::npos || name.find(".db-") != std::string::npos ||
         (name.size() > 3 && name.compare(name.size() - 3, 3, ".db") == 0);
}

}  // namespace

void SetIsolationHeaders(httplib::Response& res) {
  res.set_header("Cross-Origin-Opener-Policy", "same-origin");
  res.set_header("Cross-Origin-Embedder-Policy", "require-corp");
}

std::string SafeStaticPath(const std::string& root, const std::string& rel, int* http_status, std::string* reason) {
  *http_status = 404;
  *reason = "not found";
  if (root.empty()) return "";
  if (rel.find('\0') != std::string::npos || rel.find('\\') != std::string::npos) {
    *http_status = 400;
    *reason = "path: not allowed";
    return "";
  }
  // Every segment must be a plain name: no "..", no hidden files.
  size_t start = 0;
  while (start <= rel.size()) {
    size_t end = rel.find('/', start);
    if (end == std::string::npos) end = rel.size();
    std::string seg = rel.substr(start, end - start);
    if (!seg.empty() && seg[0] == '.') {
      *http_status = 400;
      *reason = "path: segments starting with '.' (such as \"..\") are not allowed";
      return "";
    }
    start = end + 1;
  }
  // A SQLite file (a workflow's db.sqlite, its -wal, -shm or -journal, a
  // cost ledger) under a --web-root that holds a workspace is never served,
  // by the name asked for or the one it resolves to: its bytes are the
  // owner's, and reading it here would open and close a descriptor of a file
  // the server's connections hold locks on (closing any descriptor of a file
  // drops every POSIX lock this process has on it).
  auto refuse_database = [&] {
    *http_status = 403;
    *reason = "path: database files are not served";
    return std::string();
  };
  if (IsDatabaseFileName(rel)) return refuse_database();
  char root_real[PATH_MAX];
  if (!::realpath(root.c_str(), root_real)) return "";
  std::string candidate = std::string(root_real) + "/" + rel;
  char real[PATH_MAX];
  if (!::realpath(candidate.c_str(), real)) return "";
  std::string r = real, base = root_real;
  if (r != base && r.compare(0, base.size() + 1, base + "/") != 0) {
    *http_status = 403;
    *reason = "path: outside the served folder";
    return "";
  }
  if (IsDatabaseFileName(r)) return refuse_database();
  return r;
}

bool StaticRootFor(const std::string& path, const std::string& web_root, const std::string& wasm_root, std::string* root,
                   std::string* rel) {
  // Keep in step with PULSE_WASM_JS in wasm/CMakeLists.txt.
  static const std::set<std::string> kWasmFiles = {
      "pulse.mjs",           "pulse.wasm",          "sqljs-api.mjs",    "sqljs-statement.mjs", "sqljs-functions.mjs",
      "sqljs-worker.mjs",    "opfs-pool.mjs",       "result-codes.mjs", "sqlite-header.mjs",   "sqljs-guard.mjs",
      "file-handle.mjs",     "opfs-copies.mjs"};
  auto under = [&](const char* prefix) { return path.rfind(prefix, 0) == 0; };
  if (under("/wasm/")) {
    *root = wasm_root;
    *rel = path.substr(6);
    return kWasmFiles.count(*rel) > 0;
  }
  if (under("/docs/")) {
    *root = web_root + "/../docs";
    *rel = path.substr(6);
    return rel->size() > 3 && rel->compare(rel->size() - 3, 3, ".md") == 0;
  }
  *root = web_root;
  *rel = path.size() > 1 ? path.substr(1) : "";
  if (rel->empty() || rel->back() == '/') *rel += "index.html";
  return true;
}

std::string ContentTypeFor(const std::string& path) {
  auto ends = [&](const char* ext) {
    std::string e = ext;
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".wasm")) return "application/wasm";
  if (ends(".json")) return "application/json";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".ico")) return "image/x-icon";
  if (ends(".txt") || ends(".md")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (int k = 1; k <= n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

std::vector<std::string> AllowedHosts(const std::string& listen_host, const std::vector<std::string>& extra) {
  std::vector<std::string> hosts = {"127.0.0.1", "localhost", "[::1]"};
  auto add = [&](std::string h) {
    for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!h.empty() && h.find(':') != std::string::npos && h.front() != '[') h = "[" + h + "]";
    if (!h.empty() && std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  };
  if (listen_host != "0.0.0.0" && listen_host != "::" && !listen_host.empty()) add(listen_host);
  for (const std::string& h : extra) add(h);
  return hosts;
}

namespace {

bool Refuse(httplib::Response& res, int status, const std::string& reason, bool close) {
  if (close) {
    CloseConnectionAfterResponse();
    res.set_header("Connection", "close");
  }
  ReplyError(res, status, reason);
  return false;
}

// "name" or "name:port" (IPv6 in brackets) → lowercase name and port (0 when
// absent); false when it is not a plain host.
bool SplitHost(const std::string& value, std::string* name, int* port) {
  if (value.empty() || value.size() > 255) return false;
  for (char c : value) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr(".-:[]_", c)) return false;
  }
  size_t colon = value.rfind(':');
  size_t bracket = value.rfind(']');
  *port = 0;
  *name = value;
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    std::string digits = value.substr(colon + 1);
    if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    *port = std::stoi(digits);
    *name = value.substr(0, colon);
  }
  for (char& c : *name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return !name->empty();
}

bool HostServedHere(const RequestPolicy& policy, const std::string& value) {
  std::string name;
  int port = 0;
  if (!SplitHost(value, &name, &port)) return false;
  if (port == 0) port = 80;
  if (port != policy.port) return false;
  return std::find(policy.allowed_hosts.begin(), policy.allowed_hosts.end(), name) != policy.allowed_hosts.end();
}

bool IsSafeMethod(const std::string& m) { return m == "GET" || m == "HEAD" || m == "OPTIONS"; }

}  // namespace

bool AdmitRequest(const RequestPolicy& policy, const httplib::Request& req, httplib::Response& res) {
  const std::string& m = req.method;
  bool may_have_body = !IsSafeMethod(m);
  if (m != "GET" && m != "HEAD" && m != "POST" && m != "PUT" && m != "PATCH" && m != "DELETE" && m != "OPTIONS") {
    return Refuse(res, 405, "method not allowed", true);
  }
  bool url_ok = IsValidUtf8(req.path);
  for (const auto& [k, v] : req.params) url_ok = url_ok && IsValidUtf8(k) && IsValidUtf8(v);
  if (!url_ok) return Refuse(res, 400, "request URL: not valid UTF-8", may_have_body);
  std::string host = req.get_header_value("Host");
  if (!HostServedHere(policy, host)) {
    std::string shown = IsValidUtf8(host) && host.size() < 200 ? host : "(unprintable)";
    return Refuse(res, 421,
                  "host \"" + shown + "\" is not served here (this server answers to its loopback names; "
                  "`pulse serve --allowed-host NAME` adds one)", true);
  }
  if (!IsSafeMethod(m)) {
    std::string origin = req.get_header_value("Origin");
    bool same_origin = origin.empty() || (origin.rfind("http://", 0) == 0 && HostServedHere(policy, origin.substr(7)));
    if (!same_origin || req.get_header_value("Sec-Fetch-Site") == "cross-site") {
      return Refuse(res, 403, "cross-site request refused: writes are accepted only from this server's own pages", true);
    }
  }
  if (!may_have_body) return true;
  std::string te = req.get_header_value("Transfer-Encoding");
  if (!te.empty() && strcasecmp(te.c_str(), "chunked") != 0) {
    return Refuse(res, 501, "Transfer-Encoding: only chunked is supported", true);
  }
  std::string ce = req.get_header_value("Content-Encoding");
  std::string ct = req.get_header_value("Content-Type");
  if ((!ce.empty() && strcasecmp(ce.c_str(), "identity") != 0) || ct.rfind("multipart/", 0) == 0) {
    return Refuse(res, 415, "request body: send plain JSON (no Content-Encoding, no multipart)", true);
  }
  if (req.has_header("Content-Length")) {
    std::string cl = req.get_header_value("Content-Length");
    if (cl.empty() || cl.size() > 18 || cl.find_first_not_of("0123456789") != std::string::npos) {
      return Refuse(res, 400, "Content-Length: not a number", true);
    }
    if (std::stoull(cl) > policy.max_body) {
      return Refuse(res, 413,
                    "request body is larger than the server accepts (" + std::to_string(policy.max_body) + " bytes)",
                    true);
    }
  }
  return true;
}

// Served at / only when the Pulse tab's files (web/index.html) are not found:
// the workflows' goal status straight from the API, so the server is never a
// blank page.
const char kFallbackPage[] = R"HTML(<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Pulse</title>
<style>body{font:15px system-ui,sans-serif;margin:2em;max-width:60em}li{margin:.3em 0}.s{font-weight:600}</style>
<h1>Pulse</h1>
<p>The Pulse tab's files (<code>web/</code>) are not found next to this server (see <code>--web-root</code>);
this page shows the goal status from the JSON API (<a href="/api/workflows">/api/workflows</a>).</p>
<div id="w">Loading…</div>
<script type="module">
const esc = (t) => String(t).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' }[c]));
const r = await fetch('/api/workflows');
const { workflows } = await r.json();
document.getElementById('w').innerHTML = workflows.map((w) => `<h2>${esc(w.name)}:
  <span class="s">${esc((w.status || w.error || '').replace('_', ' '))}</span></h2>
  <ul>${((w.goal_status && w.goal_status.alarms) || []).map((a) => `<li>${esc(a.message)}</li>`).join('')}</ul>`).join('');
</script>
</html>
)HTML";

}  // namespace pulse::serve

// Small HTTP helpers for the server shim: JSON replies, Status → HTTP status,
// bearer tokens, body parsing, and safe static-file paths.
#pragma once

#include <httplib.h>

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace pulse::serve {

// The body ReplyJson sends for `doc` (bad UTF-8 replaced).
std::string ReplyText(const nlohmann::json& doc);
void ReplyJson(httplib::Response& res, int status, const nlohmann::json& doc);
// {"error": reason} with `status`, the reason bounded (BoundedReason).
void ReplyError(httplib::Response& res, int status, const std::string& reason);
// InvalidArgument 400, Unauthenticated 401, NotFound 404, Refused 403, Conflict 409, Busy 503, others 500.
int HttpStatusFor(const Status& status);
void ReplyStatus(httplib::Response& res, const Status& status);

// The token of "Authorization: Bearer <token>" (empty when absent or malformed).
std::string BearerToken(const httplib::Request& req);
// Compares without an early exit, so timing does not leak the token.
bool TokensEqual(const std::string& a, const std::string& b);
bool IsLoopback(const std::string& remote_addr);

// Parses a JSON object body (an empty body is {}); false with a 400 already
// written otherwise.
bool ParseJsonObjectBody(const httplib::Request& req, httplib::Response& res, nlohmann::json* out);

// Maps a URL path under `root` to a file, refusing anything that could leave
// the root (".." segments, hidden files, backslashes, NUL, symlinks pointing
// out). Empty with `*http_status` set when refused or missing.
std::string SafeStaticPath(const std::string& root, const std::string& rel, int* http_status, std::string* reason);
// Where a GET of `path` is looked for (`root`, and `rel` under it for
// SafeStaticPath): /wasm/<file> under `wasm_root`, only the module's own files
// (its build directory also holds CMakeCache.txt, build.ninja, ...);
// /docs/<page>.md, the reference pages the tab links to (docs/models.md from
// its banner), in docs/ beside `web_root`; the rest under `web_root`, a
// folder meaning its index.html. False when the path is refused (404).
bool StaticRootFor(const std::string& path, const std::string& web_root, const std::string& wasm_root, std::string* root,
                   std::string* rel);
std::string ContentTypeFor(const std::string& path);

// The tab's files are sent cross-origin isolated (COOP same-origin, COEP
// require-corp): the tab then has SharedArrayBuffer, which Inspect's Cancel
// uses to stop a query in its worker (web/inspect/client.mjs). Everything
// the tab loads is from this origin.
void SetIsolationHeaders(httplib::Response& res);

// Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
bool IsValidUtf8(std::string_view s);

// Who may talk to the server, checked before routing and before a body byte
// is read.
struct RequestPolicy {
  std::vector<std::string> allowed_hosts;  // lowercase host names, IPv6 in brackets, no port
  int port = 0;                            // the port the server listens on
  size_t max_body = 0;
};

// The host names a server listening on `listen_host` answers to: the
// loopback names, the listening address itself (unless a wildcard), and
// `extra` (--allowed-host).
std::vector<std::string> AllowedHosts(const std::string& listen_host, const std::vector<std::string>& extra);

// The pre-routing checks: the method, UTF-8 in the URL, the Host header (a
// page on another name that resolves here — DNS rebinding — gets 421), the
// Origin of writes (a cross-site form or fetch gets 403), the body's framing
// and declared size. False with the refusal written (and the connection
// marked to close when a body may follow).
bool AdmitRequest(const RequestPolicy& policy, const httplib::Request& req, httplib::Response& res);

// The page served at / when the Pulse tab's files are not found: the goal
// status straight from the API, so the server is never a blank page.
extern const char kFallbackPage[];

}  // namespace pulse::serve

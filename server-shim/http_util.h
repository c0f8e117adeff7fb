// Small HTTP helpers for the server shim: JSON replies, Status → HTTP status,
// bearer tokens, body parsing, and safe static-file paths.
#pragma once

#include <httplib.h>

#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace pulse::serve {

void ReplyJson(httplib::Response& res, int status, const nlohmann::json& doc);
// {"error": reason} with `status`.
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
std::string ContentTypeFor(const std::string& path);

}  // namespace pulse::serve

#include "server-shim/http_util.h"

#include <climits>
#include <cstdlib>

namespace pulse::serve {

using nlohmann::json;

void ReplyJson(httplib::Response& res, int status, const json& doc) {
  res.status = status;
  res.set_content(doc.dump(), "application/json");
}

void ReplyError(httplib::Response& res, int status, const std::string& reason) {
  ReplyJson(res, status, json{{"error", reason}});
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

void ReplyStatus(httplib::Response& res, const Status& s) {
  ReplyJson(res, HttpStatusFor(s), json{{"error", s.message()}, {"code", CodeName(s.code())}});
}

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
  json doc = json::parse(req.body, nullptr, false);
  if (doc.is_discarded()) {
    try {
      json ignored = json::parse(req.body);
      (void)ignored;
    } catch (const json::parse_error& e) {
      std::string what = e.what();
      size_t pos = what.find("parse error");
      ReplyError(res, 400, "request body: malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos)));
      return false;
    }
    ReplyError(res, 400, "request body: malformed JSON");
    return false;
  }
  if (!doc.is_object()) {
    ReplyError(res, 400, "request body: expected a JSON object");
    return false;
  }
  *out = std::move(doc);
  return true;
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
  return r;
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

}  // namespace pulse::serve

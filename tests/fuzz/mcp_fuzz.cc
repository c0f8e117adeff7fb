// MCP messages: the whole JSON-RPC handling of POST /mcp, from the request
// body to the reply, for a real tool session opened in the scratch workspace
// (no socket: the request is built in memory as the HTTP server builds it).
#include <httplib.h>

#include "server-shim/mcp.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

struct Session {
  std::string token;
  std::string id;
};

const Session& TheSession() {
  static Session s = [] {
    pulse::fuzz::Opened& o = pulse::fuzz::TheWorkflow();
    pulse::Result<nlohmann::json> opened = pulse::CallApi(o.ctx, "session.open", nlohmann::json{{"turn", "goal_work"}});
    if (!opened.ok()) abort();
    return Session{(*opened)["token"].get<std::string>(), (*opened)["session"].get<std::string>()};
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  static serve::ServeOptions options = [] {
    serve::ServeOptions o;
    o.workspace = fuzz::TheScratch().workspace();
    o.tick = false;
    return o;
  }();
  const Session& session = TheSession();
  serve::SessionFinder find = [&](const std::string& token) -> Result<serve::SessionRef> {
    if (token != session.token) return Status::NotFound("unknown session token");
    return serve::SessionRef{"fz", session.id, "goal_work", true};
  };
  httplib::Request req;
  req.method = "POST";
  req.path = "/mcp";
  req.headers.emplace("Authorization", "Bearer " + session.token);
  req.body = fuzz::Text(data, size);
  httplib::Response res;
  serve::HandleMcp(fuzz::TheWorkflow().env, options, find, req, res);
  return 0;
}

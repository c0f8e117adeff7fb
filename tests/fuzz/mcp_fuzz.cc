// MCP messages: the whole JSON-RPC handling of POST /mcp, from the request
// body to the reply, for a real tool session opened in the scratch workspace
// (no socket: the request is built in memory as the HTTP server builds it).
// The session is found as the server finds it: the workflow opened for the
// request with the server's API, the token resolved in its database.
//
// Property (a violation aborts): every reply is a JSON object of bounded
// size, a refusal one line (fuzz::CheckReply); a notification (no "id")
// gets 202 and no body.
#include <httplib.h>

#include "agent/tools/agent_api.h"
#include "core/autonomy/tool_sessions.h"
#include "server-shim/http/mcp.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

const std::string& TheToken() {
  static std::string token = [] {
    pulse::fuzz::Opened& o = pulse::fuzz::TheWorkflow();
    pulse::Result<nlohmann::json> opened = pulse::CallApi(o.ctx, "session.open", nlohmann::json{{"turn", "goal_work"}});
    if (!opened.ok()) abort();
    return (*opened)["token"].get<std::string>();
  }();
  return token;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  static FixedClockEnv env{DefaultEnv(), 1791363600};
  const std::string& token = TheToken();
  serve::SessionFinder find = [&](const std::string& t) -> Result<serve::FoundSession> {
    if (t != token) return Status::NotFound("unknown session token");
    auto oc = std::make_unique<serve::OpenCtx>();
    PULSE_ASSIGN_OR_RETURN(oc->handle, WorkflowHandle::Open(env, fuzz::TheScratch().workspace(), "fz"));
    oc->ctx = ServerContext(*oc->handle);
    PULSE_ASSIGN_OR_RETURN(ToolSession session, ResolveSessionToken(*oc->ctx.db, t));
    return serve::FoundSession{std::move(oc), std::move(session)};
  };
  httplib::Request req;
  req.method = "POST";
  req.path = "/mcp";
  req.headers.emplace("Authorization", "Bearer " + token);
  req.body = fuzz::Text(data, size);
  httplib::Response res;
  serve::HandleMcp(find, req, res);
  if (res.status == 202 && res.body.empty()) return 0;  // a notification, accepted
  fuzz::CheckReply(res.body, req.body.size(), "POST /mcp");
  return 0;
}

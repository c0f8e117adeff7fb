// MCP over HTTP (JSON-RPC 2.0 on POST /mcp) and the session tool route share
// one way to find a session from its bearer token.
#pragma once

#include <httplib.h>

#include <functional>
#include <memory>
#include <string>

#include "core/autonomy/autonomy.h"
#include "core/base/status.h"
#include "server-shim/serve.h"

namespace pulse::serve {

// A session found from its bearer token (resolved once per request), with
// its workflow opened for the rest of the request.
struct FoundSession {
  std::unique_ptr<OpenCtx> oc;
  ToolSession session;
};

// NotFound when no workflow knows the token.
using SessionFinder = std::function<Result<FoundSession>(const std::string& token)>;

// `options` names the --platform command allowed platform calls go to.
void HandleMcp(const SessionFinder& find, const ServeOptions& options, const httplib::Request& req,
               httplib::Response& res);
// The same without a platform command (allowed platform calls are answered
// carry_out_on_platform).
void HandleMcp(const SessionFinder& find, const httplib::Request& req, httplib::Response& res);

}  // namespace pulse::serve

// MCP over HTTP (JSON-RPC 2.0 on POST /mcp) and the session tool route share
// one way to find a session from its bearer token.
#pragma once

#include <httplib.h>

#include <functional>
#include <string>

#include "core/env.h"
#include "core/status.h"
#include "server-shim/serve.h"

namespace pulse::serve {

struct SessionRef {
  std::string workflow;
  std::string session;
  std::string turn;
  bool open = false;
};

// NotFound when no workflow knows the token.
using SessionFinder = std::function<Result<SessionRef>(const std::string& token)>;

void HandleMcp(Env& env, const ServeOptions& options, const SessionFinder& find, const httplib::Request& req,
               httplib::Response& res);

}  // namespace pulse::serve

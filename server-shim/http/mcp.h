// MCP over HTTP (JSON-RPC 2.0 on POST /mcp) and the session tool route share
// one way to find a session from its bearer token.
#pragma once

#include <httplib.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>

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

// The MCP endpoint of a one-shot command (pulse talk|pass|ask|pre-run) whose
// turn runs a program that reaches Pulse over MCP (--runner claude|codex, or
// a runner command): POST /mcp (and the session tool route's
// /s/<session>/tools/custom/<tool> is not served) on 127.0.0.1 at a free
// port, for the sessions of `workflow`, until it is destroyed. The same
// HandleMcp as `pulse serve`'s, so the same guard.
class LoopbackMcp {
 public:
  static Result<std::unique_ptr<LoopbackMcp>> Start(Env* env, const ServeOptions& options, const std::string& workflow);
  ~LoopbackMcp();
  LoopbackMcp(const LoopbackMcp&) = delete;
  LoopbackMcp& operator=(const LoopbackMcp&) = delete;
  // "http://127.0.0.1:PORT/" (TurnManager::SetBaseUrl).
  const std::string& base_url() const { return base_url_; }

 private:
  LoopbackMcp() = default;
  std::unique_ptr<class HttpServer> server_;
  std::thread thread_;
  std::string base_url_;
};

}  // namespace pulse::serve

// Pulse's MCP for the one-shot commands (pulse talk|pass|ask|pre-run): their
// turn's runner reaches Pulse's tools the way it would under `pulse serve`.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "core/base/env.h"
#include "core/base/status.h"
#include "server-shim/serve.h"

namespace pulse::serve {

class HttpServer;

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
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  std::string base_url_;
};

}  // namespace pulse::serve

#include "server-shim/http/loopback_mcp.h"

#include <chrono>

#include "core/base/sha256.h"
#include "server-shim/http/http_server.h"
#include "server-shim/http/mcp.h"

namespace pulse::serve {

Result<std::unique_ptr<LoopbackMcp>> LoopbackMcp::Start(Env* env, const ServeOptions& options,
                                                       const std::string& workflow) {
  std::unique_ptr<LoopbackMcp> mcp(new LoopbackMcp());
  ConnectionLimits limits;
  limits.threads = 4;
  mcp->server_ = std::make_unique<HttpServer>(limits);
  const std::string workspace = options.workspace;
  SessionFinder find = [env, workspace, workflow](const std::string& token) -> Result<FoundSession> {
    if (token.empty()) return Status::NotFound("no session token");
    Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env, workspace, workflow);
    if (!oc.ok()) return Status::NotFound("unknown session token");
    Result<ToolSession> session = ResolveSessionTokenHash(*(*oc)->ctx.db, Sha256Hex(token));
    if (!session.ok()) return Status::NotFound("unknown session token");
    return FoundSession{std::move(oc).value(), std::move(session).value()};
  };
  auto opts = std::make_shared<const ServeOptions>(options);
  mcp->server_->Post("/mcp", [find, opts](const httplib::Request& req, httplib::Response& res) {
    HandleMcp(find, *opts, req, res);
  });
  std::string error;
  int port = mcp->server_->Bind("127.0.0.1", 0, &error);
  if (port < 0) return Status::IoError("cannot serve MCP on loopback for the turn's program: " + error);
  mcp->base_url_ = "http://127.0.0.1:" + std::to_string(port) + "/";
  HttpServer* server = mcp->server_.get();
  mcp->thread_ = std::thread([server] { server->Run(); });
  return mcp;
}

LoopbackMcp::~LoopbackMcp() {
  if (server_) {
    // stop() does nothing before listening has begun: wait for it (briefly).
    for (int i = 0; i < 2500 && thread_.joinable() && !server_->is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    server_->stop();
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace pulse::serve

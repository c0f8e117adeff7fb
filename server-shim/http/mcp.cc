// POST /mcp: JSON-RPC 2.0 with initialize, ping, tools/list and tools/call.
// tools/list is the whole catalog (Pulse's own tools with their schemas and
// every platform tool the guard knows): it is never narrowed per turn; calls
// are refused instead. The session is the bearer token's, never anything in
// the request; every tools/call passes the autonomy guard in
// DispatchToolCall, exactly like the session tool route. Responses are plain application/json
// (no SSE stream); notifications get 202.
#include "agent/tools/pulse_tools.h"
#include "core/base/json_limits.h"
#include "core/base/one_line.h"
#include "server-shim/http/mcp.h"

#include <spdlog/spdlog.h>

#include "server-shim/http/http_util.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

constexpr const char* kProtocolVersion = "2025-06-18";
const char* kSupportedVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

json RpcError(const json& id, int code, const std::string& message) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", BoundedReason(message)}}}};
}

json RpcResult(const json& id, const json& result) { return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}; }

json ToolText(const json& doc, bool is_error, const json& structured) {
  json out = {{"content", json::array({{{"type", "text"}, {"text", doc.is_string() ? doc.get<std::string>() : doc.dump(2)}}})},
              {"isError", is_error}};
  if (structured.is_object()) out["structuredContent"] = structured;
  return out;
}

// One JSON-RPC request, checked: a method, an id (none for a
// notification) and params that are an object.
struct RpcCall {
  std::string method;
  json id;
  json params;
  bool notification = false;
};

// False with the reply written when the body is not a request we serve.
bool ParseRpc(const httplib::Request& req, httplib::Response& res, RpcCall* call) {
  Result<json> parsed = ParseJsonBounded(req.body, "request body");
  if (!parsed.ok()) {
    ReplyJson(res, 400, RpcError(nullptr, -32700, "parse error: " + parsed.status().message()));
    return false;
  }
  json msg = std::move(parsed).value();
  if (msg.is_array()) {
    ReplyJson(res, 400, RpcError(nullptr, -32600, "invalid request: batches are not supported"));
    return false;
  }
  if (!msg.is_object() || JStr(msg, "jsonrpc") != "2.0" || !msg.contains("method") || !msg["method"].is_string()) {
    json id = msg.is_object() && msg.contains("id") ? msg["id"] : json(nullptr);
    if (!(id.is_string() || id.is_number_integer() || id.is_null())) id = nullptr;
    ReplyJson(res, 400, RpcError(id, -32600, "invalid request: expected a JSON-RPC 2.0 object with a \"method\""));
    return false;
  }
  call->method = msg["method"];
  call->notification = !msg.contains("id");
  call->id = call->notification ? json(nullptr) : msg["id"];
  if (!call->notification && !(call->id.is_string() || call->id.is_number_integer())) {
    ReplyJson(res, 400, RpcError(nullptr, -32600, "invalid request: \"id\" must be a string or an integer"));
    return false;
  }
  call->params = msg.contains("params") ? msg["params"] : json::object();
  if (call->notification) {
    // notifications/initialized, notifications/cancelled, ...: accepted, no body.
    res.status = 202;
    return false;
  }
  if (!call->params.is_object()) {
    ReplyJson(res, 200, RpcError(call->id, -32602, "invalid params: \"params\" must be an object"));
    return false;
  }
  return true;
}

json Initialize(const RpcCall& call, const ApiContext& ctx, const ToolSession& session) {
  std::string asked = JStr(call.params, "protocolVersion");
  std::string version = kProtocolVersion;
  for (const char* v : kSupportedVersions) if (asked == v) version = v;
  return RpcResult(call.id,
                   {{"protocolVersion", version},
                    {"capabilities", {{"tools", {{"listChanged", false}}}}},
                    {"serverInfo", {{"name", "pulse"}, {"title", "Pulse"}, {"version", PULSE_VERSION}}},
                    {"instructions", "Pulse's tools and the platform's for workflow " + ctx.workflow +
                                         ", every call held to the session's autonomy (turn " +
                                         TurnKindName(session.turn) + "); a refused call: create_decision_request."}});
}

// tools/call: any tool, through the guarded dispatch; a refusal is a tool
// error carrying the guard's reason.
json CallTool(const RpcCall& call, ApiContext& ctx, const ToolSession& session, const ServeOptions& options) {
  const json& params = call.params;
  if (!params.contains("name") || !params["name"].is_string()) {
    return RpcError(call.id, -32602, "invalid params: tools/call needs \"name\" (a string)");
  }
  json arguments = params.contains("arguments") ? params["arguments"] : json::object();
  if (arguments.is_null()) arguments = json::object();
  if (!arguments.is_object()) return RpcError(call.id, -32602, "invalid params: \"arguments\" must be an object");
  std::string name = params["name"];
  std::unique_ptr<PlatformForwarder> platform = MakePlatformForwarder(options, ctx.workflow);
  Result<ToolCallOutcome> out = DispatchToolCall(ctx, session, name, arguments, platform.get());
  if (out.ok() && !out->guard.allowed) {
    spdlog::info("mcp: {} refused in session {}: {}", name, session.id, out->guard.reason);
  }
  ToolReply reply = ToolCallReply(out);
  return RpcResult(call.id, ToolText(reply.content, reply.is_error, reply.structured));
}

}  // namespace

void HandleMcp(const SessionFinder& find, const ServeOptions& options, const httplib::Request& req,
               httplib::Response& res) {
  std::string token = BearerToken(req);
  if (token.empty()) {
    ReplyJson(res, 401, RpcError(nullptr, -32001, "missing session token: send Authorization: Bearer <session token>"));
    return;
  }
  Result<FoundSession> found = find(token);
  if (!found.ok()) {
    ReplyJson(res, 401, RpcError(nullptr, -32001, "unknown session token"));
    return;
  }
  RpcCall call;
  if (!ParseRpc(req, res, &call)) return;
  ApiContext& ctx = found->oc->ctx;
  const ToolSession& session = found->session;
  if (call.method == "initialize") return ReplyJson(res, 200, Initialize(call, ctx, session));
  if (call.method == "ping") return ReplyJson(res, 200, RpcResult(call.id, json::object()));
  if (call.method == "tools/list") return ReplyJson(res, 200, RpcResult(call.id, {{"tools", CatalogToolDefinitions()}}));
  if (call.method == "tools/call") return ReplyJson(res, 200, CallTool(call, ctx, session, options));
  ReplyJson(res, 200, RpcError(call.id, -32601, "method not found: " + call.method));
}

void HandleMcp(const SessionFinder& find, const httplib::Request& req, httplib::Response& res) {
  static const ServeOptions kNoPlatform;
  HandleMcp(find, kNoPlatform, req, res);
}

}  // namespace pulse::serve

// POST /mcp: JSON-RPC 2.0 with initialize, ping, tools/list and tools/call
// over Pulse's own tools (core "pulse.tools" / "pulse.tool_call"). The
// session is the bearer token's, never anything in the request; every
// tools/call passes the autonomy guard inside "pulse.tool_call". Responses
// are plain application/json (no SSE stream); notifications get 202.
#include "core/json_limits.h"
#include "core/pulse_tools.h"
#include "server-shim/mcp.h"

#include <spdlog/spdlog.h>

#include "server-shim/http_util.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

constexpr const char* kProtocolVersion = "2025-06-18";
const char* kSupportedVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

json RpcError(const json& id, int code, const std::string& message) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json RpcResult(const json& id, const json& result) { return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}; }

json ToolText(const json& doc, bool is_error, const json& structured) {
  json out = {{"content", json::array({{{"type", "text"}, {"text", doc.is_string() ? doc.get<std::string>() : doc.dump(2)}}})},
              {"isError", is_error}};
  if (structured.is_object()) out["structuredContent"] = structured;
  return out;
}

}  // namespace

void HandleMcp(Env& env, const ServeOptions& options, const SessionFinder& find, const httplib::Request& req,
               httplib::Response& res) {
  std::string token = BearerToken(req);
  if (token.empty()) {
    ReplyJson(res, 401, RpcError(nullptr, -32001, "missing session token: send Authorization: Bearer <session token>"));
    return;
  }
  Result<SessionRef> ref = find(token);
  if (!ref.ok()) {
    ReplyJson(res, 401, RpcError(nullptr, -32001, "unknown session token"));
    return;
  }

  Result<json> parsed = ParseJsonBounded(req.body, "request body");
  if (!parsed.ok()) {
    ReplyJson(res, 400, RpcError(nullptr, -32700, "parse error: " + parsed.status().message()));
    return;
  }
  json msg = std::move(parsed).value();
  if (msg.is_array()) {
    ReplyJson(res, 400, RpcError(nullptr, -32600, "invalid request: batches are not supported"));
    return;
  }
  if (!msg.is_object() || JStr(msg, "jsonrpc") != "2.0" || !msg.contains("method") || !msg["method"].is_string()) {
    json id = msg.is_object() && msg.contains("id") ? msg["id"] : json(nullptr);
    if (!(id.is_string() || id.is_number_integer() || id.is_null())) id = nullptr;
    ReplyJson(res, 400, RpcError(id, -32600, "invalid request: expected a JSON-RPC 2.0 object with a \"method\""));
    return;
  }
  std::string method = msg["method"];
  bool is_notification = !msg.contains("id");
  json id = is_notification ? json(nullptr) : msg["id"];
  if (!is_notification && !(id.is_string() || id.is_number_integer())) {
    ReplyJson(res, 400, RpcError(nullptr, -32600, "invalid request: \"id\" must be a string or an integer"));
    return;
  }
  json params = msg.contains("params") ? msg["params"] : json::object();
  if (!params.is_object()) {
    if (is_notification) { res.status = 202; return; }
    ReplyJson(res, 200, RpcError(id, -32602, "invalid params: \"params\" must be an object"));
    return;
  }
  if (is_notification) {
    // notifications/initialized, notifications/cancelled, ...: accepted, no body.
    res.status = 202;
    return;
  }

  Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(env, options.workspace, ref->workflow);
  if (!oc.ok()) {
    ReplyJson(res, 200, RpcError(id, -32603, "internal error: " + oc.status().message()));
    return;
  }
  ApiContext& ctx = (*oc)->ctx;

  if (method == "initialize") {
    std::string asked = JStr(params, "protocolVersion");
    std::string version = kProtocolVersion;
    for (const char* v : kSupportedVersions) if (asked == v) version = v;
    ReplyJson(res, 200, RpcResult(id, {{"protocolVersion", version},
                                       {"capabilities", {{"tools", {{"listChanged", false}}}}},
                                       {"serverInfo", {{"name", "pulse"}, {"title", "Pulse"}, {"version", PULSE_VERSION}}},
                                       {"instructions", "Pulse's own tools for workflow " + ref->workflow + ", held to the session's autonomy (turn " + ref->turn + ")."}}));
    return;
  }
  if (method == "ping") {
    ReplyJson(res, 200, RpcResult(id, json::object()));
    return;
  }
  if (method == "tools/list") {
    Result<json> tools = CallApi(ctx, "pulse.tools", json::object());
    if (!tools.ok()) {
      ReplyJson(res, 200, RpcError(id, -32603, "internal error: " + tools.status().message()));
      return;
    }
    ReplyJson(res, 200, RpcResult(id, {{"tools", (*tools)["tools"]}}));
    return;
  }
  if (method == "tools/call") {
    if (!params.contains("name") || !params["name"].is_string()) {
      ReplyJson(res, 200, RpcError(id, -32602, "invalid params: tools/call needs \"name\" (a string)"));
      return;
    }
    json arguments = params.contains("arguments") ? params["arguments"] : json::object();
    if (arguments.is_null()) arguments = json::object();
    if (!arguments.is_object()) {
      ReplyJson(res, 200, RpcError(id, -32602, "invalid params: \"arguments\" must be an object"));
      return;
    }
    std::string name = params["name"];
    Result<json> known = CallApi(ctx, "pulse.tools", json{{"name", name}});
    if (!known.ok() || (*known)["tools"].empty()) {
      ReplyJson(res, 200, RpcError(id, -32602, "unknown tool: " + name + " (this server offers Pulse's own tools; see tools/list)"));
      return;
    }
    Result<json> out = CallApi(ctx, "pulse.tool_call",
                               json{{"token", token}, {"session", ref->session}, {"tool", name}, {"arguments", arguments}});
    if (!out.ok()) {
      ReplyJson(res, 200, RpcResult(id, ToolText(out.status().message(), true, json{{"error", out.status().message()}})));
      return;
    }
    if (JBool(*out, "refused", false)) {
      spdlog::info("mcp: {} refused in session {}: {}", name, ref->session, JStr(*out, "reason"));
      ReplyJson(res, 200, RpcResult(id, ToolText(JStr(*out, "reason", "refused"), true, *out)));
      return;
    }
    ReplyJson(res, 200, RpcResult(id, ToolText(out->contains("result") ? (*out)["result"] : *out, false, *out)));
    return;
  }
  ReplyJson(res, 200, RpcError(id, -32601, "method not found: " + method));
}

}  // namespace pulse::serve

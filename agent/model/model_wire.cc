#include "agent/model/model_wire.h"

#include <cctype>

#include "core/base/json_limits.h"
#include "core/base/one_line.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

constexpr size_t kMaxRawName = 256;

const char* RoleName(ModelMessage::Role r) {
  return r == ModelMessage::Role::kAssistant ? "assistant" : r == ModelMessage::Role::kTool ? "tool" : "user";
}

std::string Str(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}


// One tool call as the model wrote it: the name bounded and made safe to
// echo, the id likewise (or made up), the arguments parsed or the problem said.
ModelToolCall ReadCall(const json& id, const json& name, const json& args, size_t index, bool text_arguments) {
  ModelToolCall c;
  const std::string raw = name.is_string() ? RepairUtf8(name.get<std::string>()) : "";
  c.name = std::string(Utf8Prefix(FlattenLineBreaks(raw), kMaxRawName));
  c.wire_name = WireSafe(c.name, 64, "unnamed_tool");
  c.id = WireSafe(id.is_string() ? id.get<std::string>() : "", 64, "call_pulse_" + std::to_string(index + 1));
  if (!name.is_string() || raw.empty()) c.problem = "the tool call has no name";
  else if (raw.size() > kMaxRawName) c.problem = "the tool name is longer than 256 bytes";
  if (args.is_object()) {
    c.arguments = args;
  } else if (args.is_string() && text_arguments) {
    // OpenAI's arguments are a JSON text: parsed here, bounded like any input.
    const std::string text = args.get<std::string>();
    Result<json> parsed = text.find_first_not_of(" \t\r\n") == std::string::npos
                              ? Result<json>(json::object())
                              : ParseJsonBounded(text, "the tool call's arguments");
    if (!parsed.ok()) {
      if (c.problem.empty()) c.problem = parsed.status().message();
    } else if (!parsed->is_object()) {
      if (c.problem.empty()) c.problem = "the tool call's arguments are not a JSON object";
    } else {
      c.arguments = std::move(parsed).value();
    }
  } else if (!args.is_null()) {
    if (c.problem.empty()) c.problem = "the tool call's arguments are not a JSON object";
  }
  return c;
}

// ---- OpenAI Chat Completions ----

json OpenAiTools(const json& tools) {
  json out = json::array();
  for (const json& t : tools) {
    json params = t.contains("inputSchema") ? t["inputSchema"] : json{{"type", "object"}};
    out.push_back({{"type", "function"},
                   {"function", {{"name", Str(t, "name")}, {"description", Str(t, "description")}, {"parameters", params}}}});
  }
  return out;
}

json OpenAiBody(const ModelRequest& r) {
  json messages = json::array();
  if (!r.system.empty()) messages.push_back({{"role", "system"}, {"content", r.system}});
  for (const ModelMessage& m : r.messages) {
    if (m.role == ModelMessage::Role::kTool) {
      for (const ModelToolResult& res : m.results) {
        messages.push_back({{"role", "tool"}, {"tool_call_id", res.id},
                            {"content", res.is_error ? "Error: " + res.content : res.content}});
      }
      continue;
    }
    json msg = {{"role", RoleName(m.role)}};
    if (m.role == ModelMessage::Role::kAssistant && !m.calls.empty()) {
      msg["content"] = m.text.empty() ? json(nullptr) : json(m.text);
      json calls = json::array();
      for (const ModelToolCall& c : m.calls) {
        calls.push_back({{"id", c.id}, {"type", "function"},
                         {"function", {{"name", c.wire_name}, {"arguments", c.arguments.dump()}}}});
      }
      msg["tool_calls"] = calls;
    } else {
      msg["content"] = m.text;
    }
    messages.push_back(msg);
  }
  json body = {{"model", r.model}, {"messages", messages}};
  if (r.tools && !r.tools->empty()) {
    body["tools"] = OpenAiTools(*r.tools);
    body["tool_choice"] = "auto";
  }
  return body;
}

std::string OpenAiContent(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const json& part : content) {
      if (part.is_object() && Str(part, "type") == "text") text += Str(part, "text");
    }
  }
  return text;
}

Result<ModelReply> ParseOpenAi(const json& doc) {
  const json* choices = doc.contains("choices") ? &doc["choices"] : nullptr;
  if (!choices || !choices->is_array() || choices->empty() || !(*choices)[0].is_object()) {
    return Status::InvalidArgument("model reply: no choices (not a Chat Completions answer)");
  }
  const json& choice = (*choices)[0];
  if (!choice.contains("message") || !choice["message"].is_object()) {
    return Status::InvalidArgument("model reply: choices[0] has no message");
  }
  const json& msg = choice["message"];
  ModelReply out;
  out.text = OpenAiContent(msg.contains("content") ? msg["content"] : json());
  out.stop = Str(choice, "finish_reason");
  if (msg.contains("tool_calls") && msg["tool_calls"].is_array()) {
    size_t i = 0;
    for (const json& tc : msg["tool_calls"]) {
      json fn = tc.is_object() && tc.contains("function") && tc["function"].is_object() ? tc["function"] : json::object();
      ModelToolCall c = ReadCall(tc.is_object() ? tc.value("id", json()) : json(), fn.value("name", json()),
                                 fn.value("arguments", json()), i, true);
      if (i >= kMaxToolCallsPerReply) c.problem = "more than 16 tool calls in one answer; this one was not run";
      out.calls.push_back(std::move(c));
      ++i;
    }
  }
  const json usage = doc.value("usage", json::object());
  out.tokens_in = TokenCount(usage, "prompt_tokens");
  out.tokens_out = TokenCount(usage, "completion_tokens");
  return out;
}

// ---- Anthropic Messages ----

json TextBlock(const std::string& text) { return json{{"type", "text"}, {"text", text}}; }

json AnthropicMessage(const ModelMessage& m) {
  json content = json::array();
  if (m.role == ModelMessage::Role::kTool) {
    for (const ModelToolResult& res : m.results) {
      content.push_back({{"type", "tool_result"}, {"tool_use_id", res.id},
                         {"content", res.content.empty() ? "(empty)" : res.content}, {"is_error", res.is_error}});
    }
    return json{{"role", "user"}, {"content", content}};
  }
  if (!m.text.empty()) content.push_back(TextBlock(m.text));
  for (const ModelToolCall& c : m.calls) {
    content.push_back({{"type", "tool_use"}, {"id", c.id}, {"name", c.wire_name}, {"input", c.arguments}});
  }
  // The API refuses empty content and empty text blocks.
  if (content.empty()) content.push_back(TextBlock("(no text)"));
  return json{{"role", RoleName(m.role)}, {"content", content}};
}

json AnthropicBody(const ModelRequest& r) {
  json messages = json::array();
  for (const ModelMessage& m : r.messages) {
    json next = AnthropicMessage(m);
    // Roles alternate, starting with the user; a user message's tool
    // results come first (results, then the text that follows them).
    if (messages.empty() && next["role"] != "user") {
      messages.push_back({{"role", "user"}, {"content", json::array({TextBlock("(the conversation so far)")})}});
    }
    if (!messages.empty() && messages.back()["role"] == next["role"]) {
      for (json& block : next["content"]) messages.back()["content"].push_back(std::move(block));
    } else {
      messages.push_back(std::move(next));
    }
  }
  json body = {{"model", r.model}, {"max_tokens", r.max_tokens}, {"messages", messages}};
  if (!r.system.empty()) body["system"] = r.system;
  if (r.tools && !r.tools->empty()) {
    json tools = json::array();
    for (const json& t : *r.tools) {
      tools.push_back({{"name", Str(t, "name")}, {"description", Str(t, "description")},
                       {"input_schema", t.contains("inputSchema") ? t["inputSchema"] : json{{"type", "object"}}}});
    }
    body["tools"] = tools;
  }
  return body;
}

Result<ModelReply> ParseAnthropic(const json& doc) {
  if (Str(doc, "type") != "message" || !doc.contains("content") || !doc["content"].is_array()) {
    return Status::InvalidArgument("model reply: not a Messages API message (no type \"message\" with content)");
  }
  ModelReply out;
  size_t i = 0;
  for (const json& block : doc["content"]) {
    if (!block.is_object()) continue;
    const std::string type = Str(block, "type");
    if (type == "text") {
      if (!out.text.empty()) out.text += "\n";
      out.text += Str(block, "text");
    } else if (type == "tool_use") {
      ModelToolCall c = ReadCall(block.value("id", json()), block.value("name", json()), block.value("input", json()), i, false);
      if (i >= kMaxToolCallsPerReply) c.problem = "more than 16 tool calls in one answer; this one was not run";
      out.calls.push_back(std::move(c));
      ++i;
    }
  }
  out.stop = Str(doc, "stop_reason");
  const json usage = doc.value("usage", json::object());
  out.tokens_in = TokenCount(usage, "input_tokens") + TokenCount(usage, "cache_creation_input_tokens") +
                  TokenCount(usage, "cache_read_input_tokens");
  out.tokens_out = TokenCount(usage, "output_tokens");
  return out;
}

}  // namespace

int64_t TokenCount(const json& doc, const char* key) {
  if (!doc.is_object()) return 0;
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_number_integer()) return 0;
  int64_t v = it->get<int64_t>();
  return v >= 0 && v < 1000000000000 ? v : 0;
}

std::string WireSafe(std::string_view text, size_t max, const std::string& fallback) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= max) break;
    out += std::isalnum(c) || c == '_' || c == '-' ? static_cast<char>(c) : '_';
  }
  return out.empty() ? fallback : out;
}

json ModelMessage::ToJson() const {
  json out = {{"role", RoleName(role)}};
  if (!text.empty()) out["text"] = text;
  if (!calls.empty()) {
    json list = json::array();
    for (const ModelToolCall& c : calls) {
      json item = {{"id", c.id}, {"name", c.name}, {"wire_name", c.wire_name}, {"arguments", c.arguments}};
      if (!c.problem.empty()) item["problem"] = c.problem;
      list.push_back(item);
    }
    out["calls"] = list;
  }
  if (!results.empty()) {
    json list = json::array();
    for (const ModelToolResult& r : results) list.push_back({{"id", r.id}, {"content", r.content}, {"is_error", r.is_error}});
    out["results"] = list;
  }
  return out;
}

Result<ModelMessage> ModelMessage::FromJson(const json& doc) {
  if (!doc.is_object()) return Status::InvalidArgument("stored model message: not an object");
  ModelMessage m;
  const std::string role = Str(doc, "role");
  if (role == "assistant") m.role = Role::kAssistant;
  else if (role == "tool") m.role = Role::kTool;
  else if (role == "user") m.role = Role::kUser;
  else return Status::InvalidArgument("stored model message: role \"" + role + "\"");
  m.text = Str(doc, "text");
  for (const json& c : doc.value("calls", json::array())) {
    if (!c.is_object()) continue;
    ModelToolCall call;
    call.id = WireSafe(Str(c, "id"), 64, "call_pulse");
    call.name = Str(c, "name");
    call.wire_name = WireSafe(Str(c, "wire_name"), 64, "unnamed_tool");
    call.arguments = c.contains("arguments") && c["arguments"].is_object() ? c["arguments"] : json::object();
    call.problem = Str(c, "problem");
    m.calls.push_back(std::move(call));
  }
  for (const json& r : doc.value("results", json::array())) {
    if (!r.is_object()) continue;
    m.results.push_back({WireSafe(Str(r, "id"), 64, "call_pulse"), Str(r, "content"), r.value("is_error", false)});
  }
  return m;
}

json BuildModelRequest(ModelProvider provider, const ModelRequest& request) {
  return provider == ModelProvider::kAnthropic ? AnthropicBody(request) : OpenAiBody(request);
}

Result<ModelReply> ParseModelReply(ModelProvider provider, std::string_view body) {
  // Bytes that are not UTF-8 are repaired before parsing: the parser would
  // refuse the whole answer for one stray byte in a string.
  Result<json> doc = ParseJsonBounded(RepairUtf8(body), "model reply");
  if (!doc.ok()) return doc.status();
  if (!doc->is_object()) return Status::InvalidArgument("model reply: not a JSON object");
  if (doc->contains("error") && !(*doc)["error"].is_null()) {
    return Status::InvalidArgument("model reply: an error: " + ModelErrorText(body));
  }
  return provider == ModelProvider::kAnthropic ? ParseAnthropic(*doc) : ParseOpenAi(*doc);
}

std::string ModelErrorText(std::string_view body) {
  std::string text;
  Result<json> doc = ParseJsonBounded(RepairUtf8(Utf8Prefix(body, 64 << 10)), "model error");
  if (doc.ok() && doc->is_object() && doc->contains("error")) {
    const json& e = (*doc)["error"];
    text = e.is_string() ? e.get<std::string>() : e.is_object() ? Str(e, "message") : "";
    if (text.empty() && e.is_object()) text = Str(e, "type");
  }
  if (text.empty()) text = RepairUtf8(Utf8Prefix(body, 300));
  text = FlattenLineBreaks(text);
  if (text.size() > 300) text = std::string(Utf8Prefix(text, 300)) + "…";
  return text;
}

}  // namespace pulse

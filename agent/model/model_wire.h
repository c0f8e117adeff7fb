// The two wire formats Pulse's model turns speak, over one neutral message
// list: OpenAI's Chat Completions with tools (tool_calls, role "tool") —
// which OpenAI, Ollama, llama.cpp's server, vLLM and LM Studio all serve —
// and Anthropic's Messages API (tool_use / tool_result blocks, is_error).
//
// Model output is hostile input: a reply is repaired to UTF-8 and parsed
// with the bounded parser, tool names and ids are bounded (and made safe to
// echo back), malformed tool arguments become a problem on that call (the
// loop answers it with a tool error), and a reply that is neither format's
// answer is a one-line error. Pure: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/model/model_spec.h"
#include "core/base/status.h"

namespace pulse {

// Tool calls one answer may carry; more are answered with a tool error.
constexpr size_t kMaxToolCallsPerReply = 16;

struct ModelToolCall {
  std::string id;         // safe to echo: [A-Za-z0-9_-], at most 64 bytes (made up when the model gave none)
  std::string name;       // as the model wrote it (repaired, at most 256 bytes): what the guard normalises
  std::string wire_name;  // the name as echoed back: [A-Za-z0-9_-], at most 64 bytes
  nlohmann::json arguments = nlohmann::json::object();
  std::string problem;    // why it cannot run (malformed arguments, ...); "" when it can
};

struct ModelToolResult {
  std::string id;  // the call's
  std::string content;
  bool is_error = false;
};

// One message of the conversation as Pulse keeps it, whatever the format.
struct ModelMessage {
  enum class Role { kUser, kAssistant, kTool };
  Role role = Role::kUser;
  std::string text;                      // user and assistant
  std::vector<ModelToolCall> calls;      // assistant
  std::vector<ModelToolResult> results;  // tool: the results of one round, in the calls' order

  nlohmann::json ToJson() const;
  // Messages Pulse stored itself; InvalidArgument for anything else.
  static Result<ModelMessage> FromJson(const nlohmann::json& doc);
};

struct ModelRequest {
  std::string model;
  std::string system;
  std::vector<ModelMessage> messages;
  const nlohmann::json* tools = nullptr;  // MCP descriptors [{name, description, inputSchema}]
  int max_tokens = 4096;
};

struct ModelReply {
  std::string text;  // the answer's text (may be empty when it calls tools)
  std::vector<ModelToolCall> calls;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  std::string stop;  // finish_reason / stop_reason as given
};

// The request body for `provider`.
nlohmann::json BuildModelRequest(ModelProvider provider, const ModelRequest& request);

// The answer of a 2xx response. InvalidArgument "model reply: ..." when the
// body is not that format's answer (an error object, no choices, ...).
Result<ModelReply> ParseModelReply(ModelProvider provider, std::string_view body);

// What an error response says ("rate limit reached"), one line, bounded: the
// vendor's error.message when the body is JSON, else the body's start.
std::string ModelErrorText(std::string_view body);

// [A-Za-z0-9_-]{1,max}: what both APIs accept as a tool name or id.
std::string WireSafe(std::string_view text, size_t max, const std::string& fallback);

// A token count from a reply (a model's, or a program's JSON output): a
// whole number within reason, else 0 (hostile input).
int64_t TokenCount(const nlohmann::json& doc, const char* key);

}  // namespace pulse

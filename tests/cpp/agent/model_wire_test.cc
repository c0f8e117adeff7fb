// The two wire formats (agent/model/model_wire.h): requests as each API
// documents them, and a model's answers read as hostile input.
#include "agent/model/model_wire.h"

#include <gtest/gtest.h>

namespace pulse {
namespace {

using nlohmann::json;

const json kTools = json::parse(R"([
  {"name": "get_pulse_state", "description": "reads", "inputSchema": {"type": "object", "properties": {"view": {"type": "string"}}}},
  {"name": "update_step", "description": "changes", "inputSchema": {"type": "object", "additionalProperties": true}}])");

ModelRequest Conversation() {
  ModelRequest r;
  r.model = "m";
  r.system = "You are Pulse.";
  r.tools = &kTools;
  ModelMessage user;
  user.text = "PULSE TURN goal_check";
  ModelMessage said;
  said.role = ModelMessage::Role::kAssistant;
  said.text = "Reading first.";
  ModelToolCall c;
  c.id = "call_1";
  c.name = c.wire_name = "get_pulse_state";
  c.arguments = {{"view", "goal_status"}};
  said.calls.push_back(c);
  c.id = "call_2";
  c.name = c.wire_name = "update_step";
  c.arguments = json::object();
  said.calls.push_back(c);
  ModelMessage results;
  results.role = ModelMessage::Role::kTool;
  results.results = {{"call_1", "{\"status\":\"not_measured\"}", false}, {"call_2", "refused: change=ask", true}};
  ModelMessage done;
  done.role = ModelMessage::Role::kAssistant;
  done.text = "Not measured.";
  ModelMessage next;
  next.text = "The owner wrote: why?";
  r.messages = {user, said, results, done, next};
  return r;
}

TEST(ModelWire, AnOpenAiRequestHasTheSystemMessageToolCallsAndToolMessages) {
  json body = BuildModelRequest(ModelProvider::kOpenAi, Conversation());
  EXPECT_EQ(body["model"], "m");
  const json& m = body["messages"];
  ASSERT_EQ(m.size(), 7u) << m.dump(1);
  EXPECT_EQ(m[0], json({{"role", "system"}, {"content", "You are Pulse."}}));
  EXPECT_EQ(m[1]["role"], "user");
  EXPECT_EQ(m[2]["role"], "assistant");
  EXPECT_EQ(m[2]["content"], "Reading first.");
  EXPECT_EQ(m[2]["tool_calls"][0]["type"], "function");
  EXPECT_EQ(m[2]["tool_calls"][0]["function"]["name"], "get_pulse_state");
  // Arguments travel as a JSON text.
  EXPECT_EQ(m[2]["tool_calls"][0]["function"]["arguments"], "{\"view\":\"goal_status\"}");
  EXPECT_EQ(m[3], json({{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "{\"status\":\"not_measured\"}"}}));
  EXPECT_EQ(m[4]["tool_call_id"], "call_2");
  EXPECT_EQ(m[4]["content"], "Error: refused: change=ask");
  EXPECT_EQ(m[5], json({{"role", "assistant"}, {"content", "Not measured."}}));
  EXPECT_EQ(m[6]["role"], "user");
  EXPECT_EQ(body["tools"][1]["type"], "function");
  EXPECT_EQ(body["tools"][1]["function"]["name"], "update_step");
  EXPECT_EQ(body["tools"][0]["function"]["parameters"], kTools[0]["inputSchema"]);
  EXPECT_EQ(body["tool_choice"], "auto");
}

TEST(ModelWire, AnAnthropicRequestAlternatesRolesWithToolResultsFirst) {
  json body = BuildModelRequest(ModelProvider::kAnthropic, Conversation());
  EXPECT_EQ(body["system"], "You are Pulse.");
  EXPECT_EQ(body["max_tokens"], 4096);
  const json& m = body["messages"];
  ASSERT_EQ(m.size(), 5u) << m.dump(1);
  for (size_t i = 0; i < m.size(); ++i) EXPECT_EQ(m[i]["role"], i % 2 == 0 ? "user" : "assistant") << i;
  EXPECT_EQ(m[1]["content"][0], json({{"type", "text"}, {"text", "Reading first."}}));
  EXPECT_EQ(m[1]["content"][1]["type"], "tool_use");
  EXPECT_EQ(m[1]["content"][1]["input"], json({{"view", "goal_status"}}));
  EXPECT_EQ(m[2]["content"][0], json({{"type", "tool_result"}, {"tool_use_id", "call_1"},
                                      {"content", "{\"status\":\"not_measured\"}"}, {"is_error", false}}));
  EXPECT_EQ(m[2]["content"][1]["is_error"], true);
  EXPECT_EQ(body["tools"][0]["input_schema"], kTools[0]["inputSchema"]);
  EXPECT_FALSE(body["tools"][0].contains("inputSchema"));

  // A replay that starts with the assistant gets a user turn first; two
  // user messages in a row become one.
  ModelRequest odd;
  odd.model = "m";
  ModelMessage a;
  a.role = ModelMessage::Role::kAssistant;
  ModelMessage u1, u2;
  u1.text = "one";
  u2.text = "two";
  odd.messages = {a, u1, u2};
  json b = BuildModelRequest(ModelProvider::kAnthropic, odd);
  ASSERT_EQ(b["messages"].size(), 3u) << b.dump();
  EXPECT_EQ(b["messages"][0]["role"], "user");
  EXPECT_EQ(b["messages"][1]["content"][0]["text"], "(no text)");  // never an empty block
  EXPECT_EQ(b["messages"][2]["content"].size(), 2u);
}

TEST(ModelWire, ReadsToolCallsAndUsageFromBothFormats) {
  Result<ModelReply> o = ParseModelReply(ModelProvider::kOpenAi, R"({"choices":[{"index":0,"message":{"role":"assistant",
    "content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_pulse_state","arguments":"{\"view\":\"goal_status\"}"}}]},
    "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1200,"completion_tokens":35}})");
  ASSERT_TRUE(o.ok()) << o.status().message();
  ASSERT_EQ(o->calls.size(), 1u);
  EXPECT_EQ(o->calls[0].id, "call_a");
  EXPECT_EQ(o->calls[0].name, "get_pulse_state");
  EXPECT_EQ(o->calls[0].arguments, json({{"view", "goal_status"}}));
  EXPECT_TRUE(o->calls[0].problem.empty());
  EXPECT_EQ(o->tokens_in, 1200);
  EXPECT_EQ(o->tokens_out, 35);
  EXPECT_EQ(o->stop, "tool_calls");

  Result<ModelReply> a = ParseModelReply(ModelProvider::kAnthropic, R"({"id":"msg_1","type":"message","role":"assistant",
    "content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_1","name":"record_pulse_goal_check","input":{"verdict":"not_measured"}}],
    "stop_reason":"tool_use","usage":{"input_tokens":900,"cache_read_input_tokens":100,"output_tokens":20}})");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->text, "Checking.");
  ASSERT_EQ(a->calls.size(), 1u);
  EXPECT_EQ(a->calls[0].arguments["verdict"], "not_measured");
  EXPECT_EQ(a->tokens_in, 1000);
  EXPECT_EQ(a->tokens_out, 20);
}

TEST(ModelWire, MalformedArgumentsBecomeAProblemOnThatCallOnly) {
  Result<ModelReply> r = ParseModelReply(ModelProvider::kOpenAi, R"({"choices":[{"message":{"role":"assistant","tool_calls":[
    {"id":"c1","type":"function","function":{"name":"get_pulse_state","arguments":"{\"view\": goal"}},
    {"id":"c2","type":"function","function":{"name":"get_pulse_state","arguments":"[1,2]"}},
    {"id":"c3","type":"function","function":{"name":"get_pulse_state","arguments":""}},
    {"id":"c4","type":"function","function":{"arguments":"{}"}}]}}]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->calls.size(), 4u);
  EXPECT_NE(r->calls[0].problem.find("the tool call's arguments: malformed JSON"), std::string::npos) << r->calls[0].problem;
  EXPECT_EQ(r->calls[0].problem.find("goal"), std::string::npos) << "the error never quotes the input";
  EXPECT_EQ(r->calls[1].problem, "the tool call's arguments are not a JSON object");
  EXPECT_TRUE(r->calls[2].problem.empty()) << "no arguments are {}";
  EXPECT_EQ(r->calls[3].problem, "the tool call has no name");
  // Anthropic's input that is not an object.
  Result<ModelReply> a = ParseModelReply(ModelProvider::kAnthropic, R"({"type":"message","content":[
    {"type":"tool_use","id":"t1","name":"get_pulse_state","input":"view=goal_status"}]})");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->calls[0].problem, "the tool call's arguments are not a JSON object");
}

TEST(ModelWire, NamesAndIdsAreBoundedAndSafeToEchoAndBadBytesRepaired) {
  std::string long_name(300, 'x');
  std::string body = std::string(R"({"choices":[{"message":{"role":"assistant","content":"ok )") + "\xff\xfe" +
                     R"( done","tool_calls":[)" +
                     R"({"id":"id with spaces/and;symbols","type":"function","function":{"name":" Record_Pulse_Goal_Check ","arguments":"{}"}},)" +
                     R"({"type":"function","function":{"name":")" + long_name + R"(","arguments":"{}"}},)" +
                     R"({"id":"x","type":"function","function":{"name":"mcp__pulse__get_pulse_state\u0000\n","arguments":"{}"}}]}}]})";
  Result<ModelReply> r = ParseModelReply(ModelProvider::kOpenAi, body);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->text, "ok \xEF\xBF\xBD\xEF\xBF\xBD done");
  EXPECT_EQ(r->calls[0].id, "id_with_spaces_and_symbols");
  EXPECT_EQ(r->calls[0].name, " Record_Pulse_Goal_Check ");  // the guard normalises it
  EXPECT_EQ(r->calls[0].wire_name, "_Record_Pulse_Goal_Check_");
  EXPECT_EQ(r->calls[1].id, "call_pulse_2");
  EXPECT_EQ(r->calls[1].name.size(), 256u);
  EXPECT_EQ(r->calls[1].problem, "the tool name is longer than 256 bytes");
  EXPECT_EQ(r->calls[1].wire_name.size(), 64u);
  EXPECT_EQ(r->calls[2].name.find('\n'), std::string::npos);
}

TEST(ModelWire, MoreThanSixteenCallsAreAnsweredNotRun) {
  json calls = json::array();
  for (int i = 0; i < 20; ++i) {
    calls.push_back({{"id", "c" + std::to_string(i)}, {"type", "function"},
                     {"function", {{"name", "get_pulse_state"}, {"arguments", "{}"}}}});
  }
  json doc = {{"choices", {{{"message", {{"role", "assistant"}, {"tool_calls", calls}}}}}}};
  Result<ModelReply> r = ParseModelReply(ModelProvider::kOpenAi, doc.dump());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->calls.size(), 20u);
  EXPECT_TRUE(r->calls[15].problem.empty());
  EXPECT_NE(r->calls[16].problem.find("more than 16 tool calls"), std::string::npos);
}

TEST(ModelWire, AnythingElseIsAOneLineError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json at all", "model reply: malformed JSON at byte 1"},
      {"[1,2]", "model reply: not a JSON object"},
      {R"({"error":{"message":"The model `x` does not exist","type":"invalid_request_error"}})",
       "model reply: an error: The model `x` does not exist"},
      {R"({"choices":[]})", "model reply: no choices"},
      {R"({"choices":[{"text":"legacy completion"}]})", "model reply: choices[0] has no message"},
      {std::string(100, '[') + std::string(100, ']'), "model reply: JSON nested deeper than 64 levels"},
  };
  for (const auto& [body, says] : cases) {
    Result<ModelReply> r = ParseModelReply(ModelProvider::kOpenAi, body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().message().find(says), 0u) << r.status().message();
  }
  Result<ModelReply> a = ParseModelReply(ModelProvider::kAnthropic, R"({"choices":[{"message":{"content":"hi"}}]})");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "model reply: not a Messages API message (no type \"message\" with content)");
  Result<ModelReply> overloaded = ParseModelReply(
      ModelProvider::kAnthropic, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  ASSERT_FALSE(overloaded.ok());
  EXPECT_EQ(overloaded.status().message(), "model reply: an error: Overloaded");
}

TEST(ModelWire, ErrorTextIsOneBoundedLine) {
  EXPECT_EQ(ModelErrorText(R"({"type":"error","error":{"type":"rate_limit_error","message":"slow\ndown"}})"), "slow down");
  EXPECT_EQ(ModelErrorText("<html>Bad Gateway</html>"), "<html>Bad Gateway</html>");
  std::string big(5000, 'e');
  EXPECT_LE(ModelErrorText(big).size(), 310u);
}

TEST(ModelWire, StoredMessagesComeBackAsTheyWere) {
  ModelRequest r = Conversation();
  for (const ModelMessage& m : r.messages) {
    Result<ModelMessage> back = ModelMessage::FromJson(m.ToJson());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->ToJson(), m.ToJson());
  }
  EXPECT_FALSE(ModelMessage::FromJson(json{{"role", "system"}}).ok());
}

}  // namespace
}  // namespace pulse

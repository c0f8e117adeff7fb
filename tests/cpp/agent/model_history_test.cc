// The model turns kept beside Pulse's conversation (agent/model/model_history.h):
// a turn's tool steps stored and read back, and the replay of a generation
// as messages within its budget.
#include "agent/model/model_history.h"

#include <gtest/gtest.h>

#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

std::vector<ModelMessage> Steps(const std::string& result) {
  ModelMessage said;
  said.role = ModelMessage::Role::kAssistant;
  ModelToolCall c;
  c.id = "call_1";
  c.name = c.wire_name = "get_pulse_state";
  c.arguments = {{"view", "goal_status"}};
  said.calls = {c};
  ModelMessage results;
  results.role = ModelMessage::Role::kTool;
  results.results = {{"call_1", result, false}};
  return {said, results};
}

json Item(int64_t id, const std::string& text, const std::string& reply, const std::string& state = "completed") {
  return json{{"id", id}, {"turn", "goal_check"}, {"caller", "tick"}, {"text", text}, {"reply", reply}, {"state", state}};
}

TEST(ModelHistory, StepsAreKeptPerTurnAndReadBack) {
  Workflow wf;
  ASSERT_TRUE(SaveModelSteps(*wf.ctx.db, 7, "openai:m", Steps("{\"status\":\"not_measured\"}"), wf.env.NowSeconds()).ok());
  // Saving again replaces.
  ASSERT_TRUE(SaveModelSteps(*wf.ctx.db, 7, "openai:m", Steps("second"), wf.env.NowSeconds()).ok());
  auto loaded = LoadModelSteps(*wf.ctx.db, {7, 8});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ(loaded->at(7)[1].results[0].content, "second");
  EXPECT_EQ(loaded->at(7)[0].calls[0].arguments["view"], "goal_status");
}

TEST(ModelHistory, AGenerationIsReplayedAsTheModelLivedIt) {
  json transcript = json::array({
      json{{"id", 1}, {"turn", "charter"}, {"caller", "platform"}, {"text", "You are Pulse"}, {"reply", ""}, {"state", "completed"}},
      Item(2, "PULSE TURN goal_check", "Not measured for 20 days."),
      json{{"id", 3}, {"turn", "qa_result"}, {"caller", "platform"}, {"text", "QA: fixed"}, {"reply", ""}, {"state", "completed"}},
      Item(4, "PULSE TURN ask_pulse\nThe owner wrote: why?", "", "failed"),
  });
  transcript[3]["error"] = "step cap: ...";
  std::map<int64_t, std::vector<ModelMessage>> steps = {{2, Steps("{\"status\":\"not_measured\"}")}};
  std::vector<ModelMessage> m = ReplayMessages(transcript, steps);
  ASSERT_EQ(m.size(), 7u);
  EXPECT_EQ(m[0].role, ModelMessage::Role::kUser);  // the charter is the system prompt's, not replayed
  EXPECT_EQ(m[0].text, "PULSE TURN goal_check");
  EXPECT_EQ(m[1].calls[0].name, "get_pulse_state");
  EXPECT_EQ(m[2].results[0].content, "{\"status\":\"not_measured\"}");
  EXPECT_EQ(m[3].text, "Not measured for 20 days.");
  EXPECT_EQ(m[4].text, "[Pulse platform, qa_result] QA: fixed");
  EXPECT_EQ(m[6].role, ModelMessage::Role::kAssistant);
  EXPECT_EQ(m[6].text, "(this turn ended failed: step cap: ...)");
}

TEST(ModelHistory, TheReplayStaysWithinItsBudgetNewestFirst) {
  json transcript = json::array();
  std::map<int64_t, std::vector<ModelMessage>> steps;
  for (int i = 1; i <= 50; ++i) {
    transcript.push_back(Item(i, "turn " + std::to_string(i), std::string(1000, 'r')));
    steps[i] = Steps(std::string(5000, 's'));
  }
  std::vector<ModelMessage> m = ReplayMessages(transcript, steps, 20000);
  size_t bytes = 0;
  for (const ModelMessage& x : m) {
    bytes += x.text.size();
    for (const ModelToolResult& r : x.results) {
      bytes += r.content.size();
      EXPECT_LE(r.content.size(), kReplayToolResultBytes + 16) << "tool results are cut short in a replay";
    }
  }
  EXPECT_LE(bytes, 20000u);
  ASSERT_FALSE(m.empty());
  EXPECT_NE(m[0].text.find("earlier entries of this generation are not replayed"), std::string::npos) << m[0].text;
  EXPECT_EQ(m.back().text, std::string(1000, 'r'));
  // The newest turn is there with its steps.
  bool newest = false;
  for (const ModelMessage& x : m) newest = newest || x.text == "turn 50";
  EXPECT_TRUE(newest);
}

}  // namespace
}  // namespace pulse

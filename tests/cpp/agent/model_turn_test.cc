// The model loop (agent/model/model_turn.h) on a real workflow database
// against a scripted endpoint on loopback: tool calls through the guarded
// dispatch, a refusal sent back with its reason, the step cap, malformed
// and unknown calls, the key kept out of everything the turn keeps, and the
// tokens priced into the ledger.
#include "agent/model/model_turn.h"

#include <gtest/gtest.h>

#include "agent/outbox/outbox.h"
#include "agent/turns/pulse_turns.h"
#include "core/store/db.h"
#include "tests/cpp/agent/agent_fixture.h"
#include "tests/cpp/agent/model_test_server.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::ModelTestServer;
using testing::Workflow;

struct Turn {
  Workflow wf;
  ModelTestServer model;
  ModelTurnInput in;
  explicit Turn(TurnKind kind = TurnKind::kGoalCheck, const std::string& change = "ask") : wf(change) {
    wf.NotMeasured();
    json s = wf.Session(TurnKindName(kind));
    in.spec.provider = ModelProvider::kOpenAi;
    in.spec.name = "test-model";
    in.spec.url = model.Base() + "/v1";
    in.spec.timeout = 5;
    in.workspace = wf.ctx.workflow_dir + "/../..";
    in.kind = kind;
    in.session = s["session"];
    in.pulse_run_id = "pr-test";
    Result<json> prepared = TurnContext(wf.ctx, kind, false, json());
    EXPECT_TRUE(prepared.ok()) << prepared.status().message();
    in.prepared = *prepared;
    in.prepared["turn"] = {{"kind", TurnKindName(kind)}, {"trigger", "test"}};
  }
  ModelTurnResult Run() {
    Result<ModelTurnResult> r = RunModelTurn(wf.ctx, in);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : ModelTurnResult{};
  }
  json Request(size_t i) { return model.Seen().at(i).Json(); }
};

// The tool messages of a recorded OpenAI request.
std::vector<json> ToolMessages(const json& body) {
  std::vector<json> out;
  for (const json& m : body["messages"]) {
    if (m["role"] == "tool") out.push_back(m);
  }
  return out;
}

TEST(ModelTurn, AGoalCheckCallsToolsThroughTheGuardAndEndsWithItsSummary) {
  Turn t;
  t.model.PushJson(ModelTestServer::OpenAi("", {{"c1", "get_pulse_state", R"({"view":"goal_status"})"}}, 1000, 50));
  t.model.PushJson(ModelTestServer::OpenAi("", {{"c2", "record_pulse_goal_check", R"({"verdict":"not_measured"})"}}, 1200, 40));
  t.model.PushJson(ModelTestServer::OpenAi("Substack Pulse: not measured for 20 days; see the decision.", {}, 1300, 30));
  ModelTurnResult r = t.Run();
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.reply, "Substack Pulse: not measured for 20 days; see the decision.");
  EXPECT_EQ(r.tokens_in, 3500);
  EXPECT_EQ(r.tokens_out, 120);
  EXPECT_EQ(r.requests, 3);
  EXPECT_EQ(r.round_trips, 2);
  EXPECT_EQ(r.tools, (std::vector<std::string>{"get_pulse_state: done", "record_pulse_goal_check: done"}));

  // The first request: the charter as the system message, the context as
  // the user's, every catalog tool offered.
  json first = t.Request(0);
  EXPECT_EQ(first["model"], "test-model");
  EXPECT_EQ(first["messages"][0]["role"], "system");
  EXPECT_NE(first["messages"][0]["content"].get<std::string>().find("daily goal check"), std::string::npos);
  EXPECT_NE(first["messages"][0]["content"].get<std::string>().find("Pulse's own agent loop"), std::string::npos);
  EXPECT_NE(first["messages"][1]["content"].get<std::string>().find("\"not_measured\""), std::string::npos);
  std::set<std::string> offered;
  for (const json& tool : first["tools"]) offered.insert(tool["function"]["name"]);
  EXPECT_TRUE(offered.count("get_pulse_state") && offered.count("update_step") && offered.count("answer_decision_request"));
  // The second carries the first call's result under its id.
  std::vector<json> results = ToolMessages(t.Request(1));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["tool_call_id"], "c1");
  EXPECT_NE(results[0]["content"].get<std::string>().find("\"status\":\"not_measured\""), std::string::npos);

  // The check was recorded, and the summary went to the owner.
  json last = t.wf.Call("goal.last_check", json::object());
  EXPECT_EQ(last["status"], "not_measured") << last.dump();
  EXPECT_TRUE(r.reply_stored);
  auto out = ListOutbox(*t.wf.ctx.db, OutboxQuery{});
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].kind, "pulse_summary");
  EXPECT_EQ((*out)[0].text, r.reply);
  EXPECT_EQ((*out)[0].pulse_run_id, "pr-test");
}

TEST(ModelTurn, ARefusalGoesBackWithItsReasonAndTheGuardLogsIt) {
  Turn t;
  t.model.PushJson(ModelTestServer::OpenAi("", {{"c1", "update_step", R"({"step_id":"growth","config":{"x":1}})"}}));
  t.model.PushJson(ModelTestServer::OpenAi("I could not change it; I asked the owner."));
  ModelTurnResult r = t.Run();
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.tools, std::vector<std::string>{"update_step: refused (change_level)"});
  std::vector<json> results = ToolMessages(t.Request(1));
  ASSERT_EQ(results.size(), 1u);
  const std::string said = results[0]["content"];
  EXPECT_EQ(said.find("Error: refused by the autonomy guard (rule change_level): "), 0u) << said;
  EXPECT_NE(said.find("decision request"), std::string::npos) << said;
  auto logged = ListGuardDecisions(*t.wf.ctx.db, t.in.session);
  ASSERT_TRUE(logged.ok());
  ASSERT_EQ(logged->size(), 1u);
  EXPECT_EQ((*logged)[0].tool, "update_step");
  EXPECT_EQ((*logged)[0].rule, "change_level");
  EXPECT_FALSE((*logged)[0].allowed);
}

TEST(ModelTurn, MalformedAndUnknownCallsGetToolErrorsAndTheLoopGoesOn) {
  Turn t;
  t.model.PushJson(ModelTestServer::OpenAi("", {{"c1", "get_pulse_state", R"({"view": goal_st)"},
                                                 {"c2", "launch_rockets", "{}"},
                                                 {"c3", "get_pulse_state", R"({"view":"no_such_view"})"}}));
  t.model.PushJson(ModelTestServer::OpenAi("Done."));
  ModelTurnResult r = t.Run();
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.reply, "Done.");
  std::vector<json> results = ToolMessages(t.Request(1));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0]["content"].get<std::string>().find("Error: not run: the tool call's arguments: malformed JSON"), 0u)
      << results[0]["content"];
  EXPECT_EQ(results[1]["content"].get<std::string>().find("Error: unknown tool \"launch_rockets\""), 0u) << results[1]["content"];
  EXPECT_NE(results[2]["content"].get<std::string>().find("must be goal_status, goal_work, agent_log or module"),
            std::string::npos)
      << results[2]["content"];
  EXPECT_EQ(r.tools[1], "launch_rockets: unknown tool");
}

TEST(ModelTurn, PastTheStepCapTheTurnFailsSayingWhatItDid) {
  Turn t;
  t.in.spec.max_steps = 2;
  for (int i = 0; i < 3; ++i) {
    t.model.PushJson(ModelTestServer::OpenAi("", {{"c" + std::to_string(i), "get_pulse_state", R"({"view":"goal_status"})"}}));
  }
  ModelTurnResult r = t.Run();
  EXPECT_EQ(r.error,
            "step cap: the model still asked for tools after 2 round trips (--model-max-steps 2); it did: "
            "get_pulse_state: done; get_pulse_state: done");
  EXPECT_TRUE(r.reply.empty());
  EXPECT_EQ(r.requests, 3);
  EXPECT_FALSE(r.reply_stored);
  EXPECT_TRUE(ListOutbox(*t.wf.ctx.db, OutboxQuery{})->empty());
}

TEST(ModelTurn, TheKeyGoesInTheHeaderAndNowhereTheTurnKeeps) {
  Turn t;
  const std::string key = "sk-test-0123456789abcdef";
  t.in.key = key;
  t.model.Push({401, R"({"error":{"message":"Incorrect API key provided: )" + key + R"(."}})", {}, 0});
  ModelTurnResult r = t.Run();
  ASSERT_FALSE(r.error.empty());
  EXPECT_EQ(r.error.find(key), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("Incorrect API key provided: [key]."), std::string::npos) << r.error;
  EXPECT_EQ(t.model.Seen()[0].headers.find("Authorization")->second, "Bearer " + key);
  EXPECT_EQ(t.model.Seen()[0].body.find(key), std::string::npos) << "the key is not in the model's context";

  Turn anthropic;
  anthropic.in.spec.provider = ModelProvider::kAnthropic;
  anthropic.in.spec.url = anthropic.model.Base();
  anthropic.in.key = key;
  anthropic.model.PushJson({{"type", "message"}, {"content", {{{"type", "text"}, {"text", "fine"}}}}, {"usage", {{"input_tokens", 5}, {"output_tokens", 1}}}});
  ModelTurnResult a = anthropic.Run();
  EXPECT_EQ(a.reply, "fine");
  const std::vector<testing::SeenRequest> seen = anthropic.model.Seen();
  const auto& h = seen[0].headers;
  EXPECT_EQ(h.find("x-api-key")->second, key);
  EXPECT_EQ(h.find("anthropic-version")->second, "2023-06-01");
  EXPECT_EQ(h.count("Authorization"), 0u);
}

TEST(ModelTurn, NoKeyMeansNoAuthHeader) {
  Turn t;
  t.model.PushJson(ModelTestServer::OpenAi("ok"));
  EXPECT_EQ(t.Run().reply, "ok");
  EXPECT_EQ(t.model.Seen()[0].headers.count("Authorization"), 0u);
}

TEST(ModelTurn, TokensArePricedIntoTheLedger) {
  Turn t;
  testing::WriteFile(t.in.workspace + "/.pulse/prices.json",
                     R"({"test-model": {"input_per_mtok": 3, "output_per_mtok": 15}})");
  t.model.PushJson(ModelTestServer::OpenAi("ok", {}, 2000, 200));
  ModelTurnResult r = t.Run();
  ASSERT_TRUE(r.usd);
  EXPECT_DOUBLE_EQ(*r.usd, 0.009);
  auto ledger = Db::Open(t.wf.ctx.workflow_dir + "/costs/costs.sqlite");
  ASSERT_TRUE(ledger.ok());
  auto q = (*ledger)->Prepare("SELECT usd FROM cost_events WHERE source = 'pulse'");
  ASSERT_TRUE(q.ok() && *q->Step());
  EXPECT_DOUBLE_EQ(q->Double(0), 0.009);

  // No price: tokens counted, nothing written, the note says why.
  Turn unpriced;
  unpriced.model.PushJson(ModelTestServer::OpenAi("ok", {}, 10, 1));
  ModelTurnResult u = unpriced.Run();
  EXPECT_FALSE(u.usd);
  ASSERT_EQ(u.notes.size(), 1u);
  EXPECT_EQ(u.notes[0], "not priced: .pulse/prices.json has no price for openai:test-model or test-model");
}

TEST(ModelTurn, ALongReplyKeepsItsHeadAndItsDecisionLines) {
  Turn t(TurnKind::kAskPulse);
  std::string reply = std::string(6000, 'a') + "\ndecision: add the step because it measures\nowner_needed: no (within levels)";
  t.in.input = {{"message", "what now?"}, {"ask", {{"call_id", "c"}}}};
  t.model.PushJson(ModelTestServer::OpenAi(reply));
  ModelTurnResult r = t.Run();
  EXPECT_LE(r.reply.size(), kModelReplyBytes);
  EXPECT_EQ(r.reply.substr(0, 10), std::string(10, 'a'));
  EXPECT_NE(r.reply.find("decision: add the step because it measures\nowner_needed: no (within levels)"), std::string::npos);
  EXPECT_FALSE(r.reply_stored) << "an ask's reply goes back to its caller, not to the outbox";
}

TEST(ModelTurn, AnEmptyAnswerIsAFailure) {
  Turn t;
  t.model.PushJson(ModelTestServer::OpenAi("  \n"));
  EXPECT_EQ(t.Run().error, "the model ended its turn with no text and no tool call");
}

}  // namespace
}  // namespace pulse

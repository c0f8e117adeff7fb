// Which model a workflow's turns use (agent/model/model_spec.h): the flags,
// a workflow's pulse.model over them, bad values refused in one line, and
// where the key may go.
#include "agent/model/model_spec.h"

#include <gtest/gtest.h>

namespace pulse {
namespace {

using nlohmann::json;

ModelFlags Flags(const std::string& model, const std::string& url = "", const std::string& key_env = "") {
  ModelFlags f;
  f.model = model;
  f.url = url;
  f.key_env = key_env;
  return f;
}

json Workflow(const json& model) { return json{{"pulse", {{"enabled", true}, {"model", model}}}}; }

TEST(ModelSpec, NoFlagAndNoOverrideMeansTheRulesRunner) {
  Result<std::optional<ModelSpec>> spec = ModelForWorkflow(Flags(""), json{{"pulse", {{"enabled", true}}}});
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_FALSE(spec->has_value());
  EXPECT_TRUE(ModelKeyVariables(Flags("")).empty());
}

TEST(ModelSpec, TheFlagNamesProviderModelUrlAndTheKeyVariable) {
  auto openai = ModelForWorkflow(Flags("openai:gpt-4o-mini"), json::object());
  ASSERT_TRUE(openai.ok() && openai->has_value());
  EXPECT_EQ((*openai)->provider, ModelProvider::kOpenAi);
  EXPECT_EQ((*openai)->name, "gpt-4o-mini");
  EXPECT_EQ((*openai)->Endpoint(), "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ((*openai)->key_env, "OPENAI_API_KEY");
  EXPECT_EQ((*openai)->source, "--model");

  auto ollama = ModelForWorkflow(Flags("openai:llama3.1:8b", "http://127.0.0.1:11434/v1/"), json::object());
  ASSERT_TRUE(ollama.ok() && ollama->has_value());
  EXPECT_EQ((*ollama)->name, "llama3.1:8b");  // a colon in the name is the model's own
  EXPECT_EQ((*ollama)->Endpoint(), "http://127.0.0.1:11434/v1/chat/completions");

  auto claude = ModelForWorkflow(Flags("anthropic:claude-x", "", "MY_KEY"), json::object());
  ASSERT_TRUE(claude.ok() && claude->has_value());
  EXPECT_EQ((*claude)->Endpoint(), "https://api.anthropic.com/v1/messages");
  EXPECT_EQ((*claude)->key_env, "MY_KEY");
  EXPECT_EQ(ModelKeyVariables(Flags("anthropic:claude-x", "", "MY_KEY")), std::vector<std::string>{"MY_KEY"});
  EXPECT_EQ(ModelKeyVariables(Flags("openai:m")), (std::vector<std::string>{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}));
}

TEST(ModelSpec, BadFlagsAreRefusedNamingTheFlag) {
  struct Case {
    ModelFlags flags;
    std::string says;
  };
  ModelFlags steps = Flags("openai:m");
  steps.max_steps = 0;
  ModelFlags timeout = Flags("openai:m");
  timeout.timeout = 0;
  const std::vector<Case> cases = {
      {Flags("gpt-4o"), "--model: \"gpt-4o\" is not PROVIDER:NAME"},
      {Flags("gemini:pro"), "--model: provider \"gemini\" is neither openai"},
      {Flags("openai:"), "--model: the model name is empty"},
      {Flags("openai:a b"), "--model: the model name holds a blank"},
      {Flags("openai:m", "ftp://host/v1"), "--model-url: \"ftp://host/v1\" is not an http:// or https:// URL"},
      {Flags("openai:m", "http://user:pw@host/v1"), "--model-url: \"http://user:pw@host/v1\" names no host (or carries credentials"},
      {Flags("openai:m", "http://host/v1?x=1"), "--model-url: \"http://host/v1?x=1\" has a query"},
      {Flags("openai:m", "", "MY-KEY"), "--model-key-env: \"MY-KEY\" is not an environment variable name"},
      {steps, "--model-max-steps: 0 is not within 1-256"},
      {timeout, "--model-timeout: seconds within 0.1-3600"},
  };
  for (const Case& c : cases) {
    Status s = CheckModelFlags(c.flags);
    ASSERT_FALSE(s.ok()) << c.says;
    EXPECT_EQ(s.message().find(c.says), 0u) << s.message();
    EXPECT_EQ(s.message().find('\n'), std::string::npos);
  }
}

TEST(ModelSpec, AWorkflowsPulseModelOverridesTheFlag) {
  auto spec = ModelForWorkflow(Flags("openai:gpt-4o"),
                               Workflow({{"provider", "anthropic"}, {"name", "claude-y"}}));
  ASSERT_TRUE(spec.ok() && spec->has_value()) << spec.status().message();
  EXPECT_EQ((*spec)->provider, ModelProvider::kAnthropic);
  EXPECT_EQ((*spec)->name, "claude-y");
  EXPECT_EQ((*spec)->url, "https://api.anthropic.com");
  EXPECT_EQ((*spec)->source, "workflow.json pulse.model");
  // The vendor's own URL: the key may go there.
  EXPECT_EQ((*spec)->key_env, "ANTHROPIC_API_KEY");

  // Without the flag a workflow still gets its model, with no key.
  auto alone = ModelForWorkflow(Flags(""), Workflow({{"provider", "openai"}, {"name", "qwen"}, {"url", "http://10.0.0.5:8000/v1"}}));
  ASSERT_TRUE(alone.ok() && alone->has_value());
  EXPECT_EQ((*alone)->url, "http://10.0.0.5:8000/v1");
  EXPECT_TRUE((*alone)->key_env.empty());
  EXPECT_NE((*alone)->key_note.find("not started with --model"), std::string::npos);
}

TEST(ModelSpec, AWorkflowFileCannotSendTheKeyToAnotherUrl) {
  // The operator's key goes to the operator's URL; workflow.json naming
  // another gets the model without it.
  auto spec = ModelForWorkflow(Flags("openai:gpt-4o", "https://llm.example.com/v1"),
                               Workflow({{"provider", "openai"}, {"name", "gpt-4o"}, {"url", "https://attacker.example/v1"}}));
  ASSERT_TRUE(spec.ok() && spec->has_value());
  EXPECT_TRUE((*spec)->key_env.empty());
  EXPECT_NE((*spec)->key_note.find("is not the URL the server was given for openai (https://llm.example.com/v1)"),
            std::string::npos)
      << (*spec)->key_note;
  json shown = (*spec)->ToJson(false);
  EXPECT_EQ(shown["key"], "none");
  // The same URL as the operator's: the key goes.
  auto same = ModelForWorkflow(Flags("openai:gpt-4o", "https://llm.example.com/v1"),
                               Workflow({{"provider", "openai"}, {"name", "gpt-4o-mini"}, {"url", "https://llm.example.com/v1/"}}));
  ASSERT_TRUE(same.ok() && same->has_value());
  EXPECT_EQ((*same)->key_env, "OPENAI_API_KEY");
  EXPECT_EQ((*same)->ToJson(true)["key"], "set");
}

TEST(ModelSpec, ABadPulseModelIsOneLineNamingWorkflowJson) {
  const std::vector<std::pair<json, std::string>> cases = {
      {"gpt-4o", "workflow.json pulse.model: must be an object"},
      {{{"provider", "openai"}}, "workflow.json pulse.model: \"name\" is required"},
      {{{"provider", "mistral"}, {"name", "x"}}, "workflow.json pulse.model: provider \"mistral\" is neither"},
      {{{"provider", "openai"}, {"name", "x"}, {"key", "sk-1"}}, "workflow.json pulse.model: unknown key \"key\""},
      {{{"provider", "openai"}, {"name", "x"}, {"url", "file:///etc/passwd"}}, "workflow.json pulse.model: \"file:///etc/passwd\" is not"},
      {{{"provider", 3}, {"name", "x"}}, "workflow.json pulse.model: \"provider\" must be a string"},
  };
  for (const auto& [model, says] : cases) {
    auto spec = ModelForWorkflow(Flags("openai:m"), Workflow(model));
    ASSERT_FALSE(spec.ok()) << model.dump();
    EXPECT_EQ(spec.status().message().find(says), 0u) << spec.status().message();
  }
}

}  // namespace
}  // namespace pulse

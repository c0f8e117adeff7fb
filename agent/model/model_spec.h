// Which model thinks for Pulse's turns: the server's --model flags, a
// workflow's pulse.model override ({"provider", "name", "url"} in
// workflow.json), and where the key may go.
//
// The key rule: the server reads a key only when it was started with
// --model (the operator's opt-in), from --model-key-env or the provider's
// default variable, and sends it only to the URL the operator chose for that
// provider (--model-url, or the vendor's). A workflow file that names another
// URL gets the model without the key (a local server needs none), so text in
// the workspace can never send the operator's key anywhere.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace pulse {

enum class ModelProvider { kOpenAi, kAnthropic };
const char* ModelProviderName(ModelProvider p);  // "openai", "anthropic"
// InvalidArgument naming the value when it is neither.
Result<ModelProvider> ParseModelProvider(const std::string& text);
// The vendor's own API: "https://api.openai.com/v1", "https://api.anthropic.com".
const char* DefaultModelUrl(ModelProvider p);
// "OPENAI_API_KEY", "ANTHROPIC_API_KEY".
const char* DefaultModelKeyEnv(ModelProvider p);

constexpr int kModelMaxStepsDefault = 16;
constexpr double kModelTimeoutDefault = 120;

// The command line's flags (every command that runs a turn takes them).
struct ModelFlags {
  std::string model;    // --model PROVIDER:NAME; empty: no model from the flags
  std::string url;      // --model-url; empty: the vendor's
  std::string key_env;  // --model-key-env; empty: the provider's default variable
  int max_steps = kModelMaxStepsDefault;   // --model-max-steps
  double timeout = kModelTimeoutDefault;   // --model-timeout (seconds per request)
};

// One model as a turn uses it.
struct ModelSpec {
  ModelProvider provider = ModelProvider::kOpenAi;
  std::string name;
  std::string url;       // no trailing '/': openai up to /v1, anthropic the host
  std::string key_env;   // the variable the key is read from; "" when no key may be sent
  std::string key_note;  // why no key is sent ("" when one may be)
  int max_steps = kModelMaxStepsDefault;
  double timeout = kModelTimeoutDefault;
  std::string source;    // "--model" or "workflow.json pulse.model"

  // "openai:llama3" (what prices.json and the agent log name).
  std::string Id() const;
  // Where requests go: url + "/chat/completions" or url + "/v1/messages".
  std::string Endpoint() const;
  // {provider, name, url, source, key_env, key}: never the key itself.
  nlohmann::json ToJson(bool key_set) const;
};

// InvalidArgument naming the flag: --model not PROVIDER:NAME, a URL that is
// not http(s)://host..., a variable name that is not one, steps or timeout
// out of range.
Status CheckModelFlags(const ModelFlags& flags);

// The model a workflow's turns use: pulse.model from workflow.json (its raw
// document) over the flags; nullopt when neither names one (the built-in
// rules runner). InvalidArgument naming workflow.json for a pulse.model that
// is not {"provider", "name", "url"?}.
Result<std::optional<ModelSpec>> ModelForWorkflow(const ModelFlags& flags, const nlohmann::json& workflow_raw);

// The variables holding keys this server may read: no child process it
// starts (runners, --platform, --builder) inherits them.
std::vector<std::string> ModelKeyVariables(const ModelFlags& flags);

}  // namespace pulse
